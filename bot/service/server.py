"""The service `python -m bot` runs: Slack (HTTP or Socket Mode) and the relay on one port."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from aiohttp import web
from slack_bolt.adapter.aiohttp import to_aiohttp_response
from slack_bolt.async_app import AsyncApp
from slack_sdk.signature import SignatureVerifier

from bot.asks.audit_heads import HeadPublisher
from bot.asks.retention import FIRST_PURGE_AFTER_S, PURGE_EVERY_S, Retention
from bot.clock import Clock
from bot.config import Config, Mode
from bot.metrics import Metrics
from bot.parts import Parts, StartupError, build
from bot.service.audit_route import AuditExportRoute
from bot.service.body_deadline import body_deadline
from bot.service.limits import Limits
from bot.service.principals import Principals
from bot.service.readiness import CHECK_TIMEOUT_SECONDS, Check, Readiness
from bot.service.relay import MAX_BODY_BYTES, RelayServer
from bot.service.routing import Routing
from bot.slack.api import SlackCallFailed, SlackClient
from bot.slack.requests import (
    Refused,
    bolt_request_of,
    check_headers,
    check_length,
    verified_text,
)
from bot.slack.socket_mode import PING_INTERVAL_S, SocketModeRunner
from bot.slack.workspace_url import WorkspaceUrl
from bot.slack_provider import SlackQuestionProvider
from bot.store import AskStore
from bot.store.audit import OFFLINE_AUDIT_KEY as OFFLINE_AUDIT_KEY  # for offline mode
from bot.store.sqlite import SqliteStore, StoreError

if TYPE_CHECKING:
    from bot.store.postgres_notify import AskNotifier

log = logging.getLogger(__name__)

SHUTDOWN_GRACE_SECONDS = 5.0
# How often what was left unposted is posted (`Posting.sweep`, on every store: an ask whose
# post lease a crashed process held under another name); replicas sharing a store also take
# in hand what another left and drop copies that ended elsewhere.
SWEEP_EVERY_S = 2.0


@dataclass(frozen=True)
class Timings:
    """How long the service waits for what. The defaults are the product's; a test of a
    dropped socket or a hung check shortens them rather than waiting seconds out."""

    socket_ping: float = PING_INTERVAL_S
    """Socket Mode's ping interval: also how soon a dropped socket is reopened."""
    readiness_timeout: float = CHECK_TIMEOUT_SECONDS
    """A readiness check that takes longer fails (e.g. a store locked by another process)."""
    purge_every: float = PURGE_EVERY_S
    """How often settled asks past SLACK_QUESTIONS_RETENTION are purged."""
    purge_first_after: float = FIRST_PURGE_AFTER_S
    """How soon after start the first purge runs."""


PRODUCT_TIMINGS = Timings()


class Server:
    """Everything the service runs, started in order and stopped in reverse."""

    def __init__(
        self,
        config: Config,
        store: AskStore,
        provider: SlackQuestionProvider,
        relay: RelayServer,
        runner: web.AppRunner,
        socket: SocketModeRunner | None,
        notifier: AskNotifier | None = None,
        retention: Retention | None = None,
    ) -> None:
        self.config = config
        self.retention = retention  # None: SLACK_QUESTIONS_RETENTION=forever
        self.heads: HeadPublisher | None = None  # None: no SLACK_QUESTIONS_AUDIT_CHANNEL
        self.store = store
        self.provider = provider
        self.parts = provider.parts
        self.relay = relay
        self._runner = runner
        self.socket = socket
        self.metrics = self.parts.metrics
        self.notifier = notifier
        if notifier is not None:
            # Other replicas settle asks too: their notifications wake our waiters.
            notifier.hear(self.parts.asks.waiters)
        self._sweeper: asyncio.Task[None] | None = asyncio.create_task(self._sweep(), name="sweep")

    @property
    def url(self) -> str:
        """Where the service listens, e.g. http://127.0.0.1:3000."""
        host, port = self._runner.addresses[0][:2]
        return f"http://{host}:{port}"

    @classmethod
    async def start(
        cls, config: Config, *, timings: Timings = PRODUCT_TIMINGS, clock: Clock | None = None
    ) -> Server:
        """Open the store, check Slack, listen, and take back pending asks. `timings`: how
        long it waits for what (the product's unless a test shortens them); `clock`: the
        asks' time (the system's unless a test moves it by hand)."""
        if config.mode is Mode.OFFLINE:
            raise StartupError("the server needs Slack credentials (offline mode wraps it)")
        store, notifier = await open_store(config)
        try:
            parts = build(
                config.slack,
                store=store,
                clock=clock,
                shared=notifier is not None,
                replica=replica_of(config),
                metrics=Metrics() if config.metrics else None,
            )
            provider = await SlackQuestionProvider.from_parts(parts)
        except BaseException:
            await _close_store(store, notifier)
            raise
        try:
            if config.slack.channel is not None:
                await check_membership(parts.client, provider.bot_user_id, config.slack.channel)
            relay = relay_of(config, parts, store, shared=notifier is not None)
            readiness = Readiness(
                {
                    "store": _store_check(store),
                    "slack": lambda: parts.calls.check(parts.client),
                },
                timeout=timings.readiness_timeout,
            )
            runner = await _listen(config, _web_app(config, parts, relay, readiness))
            socket = None
            if config.mode is Mode.SOCKET and config.app_token is not None:
                socket = SocketModeRunner(
                    parts.app,
                    config.app_token.get_secret_value(),
                    api_url=config.slack.api_url,
                    ping_interval=timings.socket_ping,
                )
                await socket.start()
                readiness.add("socket", _socket_check(socket))
        except BaseException:
            await provider.close()
            await _close_store(store, notifier)
            raise
        retention = _retention(config, parts, timings)
        service = cls(config, store, provider, relay, runner, socket, notifier, retention)
        service.heads = _head_publisher(config, parts)
        return service

    async def close(self) -> None:
        """Graceful: stop taking work, let acks in flight finish, keep every pending ask."""
        if self.retention is not None:
            await self.retention.close()
        if self.heads is not None:
            await self.heads.close()
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
        self.relay.close()
        if self.socket is not None:
            await self.socket.close()
        await self._runner.cleanup()
        await self.provider.close()
        await _close_store(self.store, self.notifier)

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(SWEEP_EVERY_S)
            try:
                await self.parts.posting.sweep()
                await self.parts.announcements.sweep()
            except Exception:
                log.exception("sweeping the store failed; trying again")


def _head_publisher(config: Config, parts: Parts) -> HeadPublisher | None:
    """The timer that posts the decision log's head to the audit channel, started; None
    when no channel is configured."""
    channel = config.audit_channel
    if channel is None:
        return None

    async def post(text: str) -> None:
        await parts.client.chat_postMessage(channel=channel, text=text)

    heads = HeadPublisher(
        parts.store, parts.leases, parts.clock, parts.tasks, post, every=config.audit_every_s
    )
    heads.start()
    return heads


def _retention(config: Config, parts: Parts, timings: Timings) -> Retention | None:
    """The purge timer, started (each purge a task of the parts', drained on shutdown),
    unless asks are kept forever."""
    if config.retention_s is None:
        return None
    held = parts.asks.held_asks
    retention = Retention(
        parts.store,
        parts.leases,
        parts.clock,
        parts.tasks,
        keep_for=config.retention_s,
        held=lambda: [live.record.id for live in held.all()],
        every=timings.purge_every,
        first_after=timings.purge_first_after,
    )
    retention.start()
    return retention


def replica_of(config: Config) -> str | None:
    """This replica's lasting name: configured, or the host and the port it listens on
    (None for a port chosen at random, which a restart would not keep)."""
    if config.replica is not None:
        return config.replica
    return f"{socket.gethostname()}:{config.port}" if config.port else None


def _audit_key(config: Config) -> bytes:
    """The decision log's key; unset, the offline key (in the source), with a WARNING: a
    log chained with it proves only that nobody without the source changed it."""
    if config.audit_key is None:
        log.warning(
            "SLACK_QUESTIONS_AUDIT_KEY is unset: the decision log is chained with the offline"
            " key, which is public; set it (e.g. openssl rand -hex 32) to make it tamper-evident"
        )
        return OFFLINE_AUDIT_KEY
    return config.audit_key.get_secret_value().encode()


async def open_store(config: Config) -> tuple[AskStore, AskNotifier | None]:
    """The configured store, and (PostgreSQL) the notifier that hears other replicas;
    `StartupError` says what to fix."""
    key = _audit_key(config)
    if config.postgres_url is None:
        try:
            return await SqliteStore.open(config.db_path, audit_key=key), None
        except StoreError as error:
            raise StartupError(str(error)) from error
    try:
        # Imported here: psycopg is the optional `postgres` extra.
        from bot.store.postgres import PostgresStore
        from bot.store.postgres_connect import PostgresStoreError
        from bot.store.postgres_notify import AskNotifier
    except ImportError as error:
        raise StartupError(
            f"SLACK_QUESTIONS_DB is a PostgreSQL URL but its driver is missing ({error}); "
            "install slack-questions[postgres]"
        ) from error
    url = config.postgres_url.get_secret_value()
    try:
        store = await PostgresStore.open(url, audit_key=key)
    except PostgresStoreError as error:
        raise StartupError(str(error)) from error
    try:
        notifier = await AskNotifier.open(url)
    except PostgresStoreError as error:
        await store.close()
        raise StartupError(str(error)) from error
    except BaseException:
        await store.close()
        raise
    return store, notifier


async def _close_store(store: AskStore, notifier: AskNotifier | None) -> None:
    if notifier is not None:
        await notifier.close()
    await store.close()


def _web_app(
    config: Config, parts: Parts, relay: RelayServer, readiness: Readiness
) -> web.Application:
    """The one port's routes: health, readiness, metrics, the relay and (HTTP) Slack's events."""
    app = web.Application(
        client_max_size=MAX_BODY_BYTES, middlewares=[body_deadline(config.body_timeout_s)]
    )
    app.router.add_get("/healthz", _healthz)
    app.router.add_get("/readyz", readiness.handle)
    if parts.metrics is not None:
        # Outside the relay's bearer token: a scraper has none (README: keep the
        # port private, or put /metrics behind your proxy's access rules).
        app.router.add_get("/metrics", parts.metrics.handle)
    relay.add_routes(app)
    AuditExportRoute(relay, parts.store, WorkspaceUrl(parts.client), parts.clock).add_routes(app)
    if config.mode is Mode.HTTP:
        verifier = SignatureVerifier(config.slack.signing_secret)
        app.router.add_post("/slack/events", _slack_events(parts.app, verifier))
    return app


async def _listen(config: Config, app: web.Application) -> web.AppRunner:
    """`app` served on the configured host and port; `StartupError` if it cannot listen."""
    # aiohttp has no header timeout of its own, but its keep-alive timer closes a connection
    # still waiting for a complete request: armed when the connection opens (aiohttp 3.14.5
    # on) and again after each answer, it bounds the time a client takes to send its headers.
    runner = web.AppRunner(
        app,
        shutdown_timeout=SHUTDOWN_GRACE_SECONDS,
        access_log=None,
        keepalive_timeout=config.header_timeout_s,
    )
    await runner.setup()
    try:
        await web.TCPSite(runner, config.host, config.port).start()
    except OSError as error:
        await runner.cleanup()
        raise StartupError(
            f"cannot listen on {config.host}:{config.port} ({error.strerror})"
        ) from error
    return runner


async def check_membership(client: SlackClient, bot_user_id: str, channel: str) -> None:
    """Fail start-up clearly when the bot cannot post in the questions channel."""
    cursor = None
    try:
        while True:
            response = await client.conversations_members(
                channel=channel, cursor=cursor, limit=1000
            )
            if bot_user_id in (response.get("members") or []):
                return
            cursor = (response.get("response_metadata") or {}).get("next_cursor")
            if not cursor:
                break
    except SlackCallFailed as failed:
        raise StartupError(
            f"cannot read channel {channel} ({failed.error}); check SLACK_QUESTIONS_CHANNEL "
            "and that the bot is in it"
        ) from failed
    raise StartupError(
        f"the bot is not a member of channel {channel}: invite it there (/invite @your-bot)"
    )


def _slack_events(
    bolt: AsyncApp, verifier: SignatureVerifier
) -> Callable[[web.Request], Awaitable[web.Response]]:
    async def handle(request: web.Request) -> web.Response:
        # Verified and checked here, as Bolt would parse (and fail on) the body first; and
        # from the headers alone before that, so a request that cannot be Slack's is
        # refused without waiting for its body.
        try:
            check_length(request.content_length, MAX_BODY_BYTES)
            check_headers(request.headers, time.time())
            try:
                body = await request.read()
            except web.HTTPRequestEntityTooLarge:
                raise Refused(
                    413, f"the body is over the {MAX_BODY_BYTES} bytes this endpoint takes"
                ) from None
            text = verified_text(body, request.headers, verifier)
            headers = {name.lower(): request.headers.getall(name) for name in request.headers}
            bolt_request = bolt_request_of(text, request.query_string, headers)
        except Refused as refused:
            log.warning("refused a request to /slack/events (%d): %s", refused.status, refused)
            return web.Response(status=refused.status, text=refused.reason)
        bolt_response = await bolt.async_dispatch(bolt_request)
        return await to_aiohttp_response(bolt_response)

    return handle


async def _healthz(request: web.Request) -> web.Response:
    """Liveness only: the process answers. Whether it can work is `/readyz`."""
    return web.json_response({"ok": True})


@runtime_checkable
class WriteProbe(Protocol):
    """A store that can tell whether it takes writes (SQLite and PostgreSQL can)."""

    async def check_writable(self) -> None:
        """Raise, saying why, unless a write would succeed now."""
        ...


def relay_of(config: Config, parts: Parts, store: AskStore, *, shared: bool = False) -> RelayServer:
    """The relay over `parts`, its callers looked up in `store`; one WARNING if the shared
    admin token is configured. `shared`: other replicas use the store (pending asks are
    counted there, not in this process)."""
    if config.relay_token is not None:
        log.warning(
            "SLACK_QUESTIONS_RELAY_TOKEN is set: every agent holding it can see, read and "
            "withdraw every ask and ask as any agent; give each agent its own credential "
            "(python -m bot credentials create --agent ID) and unset it"
        )
    channels = (config.slack.channel,) if config.slack.channel else ()
    return RelayServer(
        parts.asks,
        parts.posting,
        parts.tasks,
        Principals(store, config.relay_token),
        Routing(store, channels + config.channels),
        Limits(
            store,
            config.max_waits,
            pending_held=None if shared else parts.asks.held_asks.pending_of,
        ),
        metrics=parts.metrics,
        links=parts.team.links,
    )


def _store_check(store: AskStore) -> Check:
    async def check() -> str | None:
        if not isinstance(store, WriteProbe):
            return None  # in memory: always writable
        try:
            await store.check_writable()
        except Exception as error:
            # Any failure means not ready; the stores' own errors say what is wrong.
            return f"the store refuses writes: {getattr(error, 'problem', None) or error}"
        return None

    return check


def _socket_check(socket: SocketModeRunner) -> Check:
    async def check() -> str | None:
        if await socket.connected():
            return None
        return "the Socket Mode connection is down (the watchdog reconnects it)"

    return check
