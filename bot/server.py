"""The service `python -m bot` runs: Slack (HTTP or Socket Mode) and the relay on one port."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from aiohttp import web
from slack_bolt.adapter.aiohttp import to_aiohttp_response
from slack_sdk.signature import SignatureVerifier

from .config import Config, Mode
from .listeners.team import TeamView
from .metrics import Metrics
from .readiness import Check, Readiness
from .relay_server import MAX_BODY_BYTES, RelayServer
from .slack_api import SlackCallFailed, slack_call
from .slack_provider import SlackQuestionProvider, StartupError
from .slack_requests import Refused, bolt_request_of, verified_text
from .socket_mode import SocketModeRunner
from .sqlite_store import SqliteStore, StoreError

log = logging.getLogger(__name__)

SHUTDOWN_GRACE_SECONDS = 5.0


class Server:
    """Everything the service runs, started in order and stopped in reverse."""

    def __init__(
        self,
        config: Config,
        store: SqliteStore,
        provider: SlackQuestionProvider,
        relay: RelayServer,
        runner: web.AppRunner,
        socket: SocketModeRunner | None,
        metrics: Metrics | None = None,
    ) -> None:
        self.config = config
        self.store = store
        self.provider = provider
        self.relay = relay
        self._runner = runner
        self.socket = socket
        self.metrics = metrics

    @property
    def url(self) -> str:
        """Where the service listens, e.g. http://127.0.0.1:3000."""
        host, port = self._runner.addresses[0][:2]
        return f"http://{host}:{port}"

    @classmethod
    async def start(cls, config: Config) -> Server:
        """Open the store, check Slack, listen, and take back pending asks."""
        if config.mode is Mode.OFFLINE:
            raise StartupError("the server needs Slack credentials (offline mode wraps it)")
        try:
            store = await SqliteStore.open(config.db_path)
        except StoreError as error:
            raise StartupError(str(error)) from error
        try:
            metrics = Metrics() if config.metrics else None
            provider = await SlackQuestionProvider.start(config.slack, store=store, metrics=metrics)
        except BaseException:
            await store.close()
            raise
        try:
            if config.slack.channel is not None:
                await check_membership(provider, config.slack.channel)
            relay = RelayServer(
                provider.asks,
                provider.tasks,
                config.relay_token,
                metrics=metrics,
                links=TeamView(provider.store, provider.client).links,
            )
            app = web.Application(client_max_size=MAX_BODY_BYTES)
            app.router.add_get("/healthz", _healthz)
            checks: dict[str, Check] = {
                "store": _store_check(store),
                "slack": lambda: provider.calls.check(provider.client),
            }
            readiness = Readiness(checks)
            app.router.add_get("/readyz", readiness.handle)
            if metrics is not None:
                # Outside the relay's bearer token: a scraper has none (README: keep the
                # port private, or put /metrics behind your proxy's access rules).
                app.router.add_get("/metrics", metrics.handle)
            relay.add_routes(app)
            if config.mode is Mode.HTTP:
                verifier = SignatureVerifier(config.slack.signing_secret)
                app.router.add_post("/slack/events", _slack_events(provider, verifier))
            runner = web.AppRunner(app, shutdown_timeout=SHUTDOWN_GRACE_SECONDS, access_log=None)
            await runner.setup()
            try:
                await web.TCPSite(runner, config.host, config.port).start()
            except OSError as error:
                await runner.cleanup()
                raise StartupError(
                    f"cannot listen on {config.host}:{config.port} ({error.strerror})"
                ) from error
            socket = None
            if config.mode is Mode.SOCKET and config.app_token is not None:
                socket = SocketModeRunner(
                    provider.app, config.app_token.get_secret_value(), api_url=config.slack.api_url
                )
                await socket.start()
                readiness.add("socket", _socket_check(socket))
        except BaseException:
            await provider.close()
            await store.close()
            raise
        return cls(config, store, provider, relay, runner, socket, metrics)

    async def close(self) -> None:
        """Graceful: stop taking work, let acks in flight finish, keep every pending ask."""
        self.relay.close()
        if self.socket is not None:
            await self.socket.close()
        await self._runner.cleanup()
        await self.provider.close()
        await self.store.close()


async def check_membership(provider: SlackQuestionProvider, channel: str) -> None:
    """Fail start-up clearly when the bot cannot post in the questions channel."""
    cursor = None
    try:
        while True:
            async with slack_call("conversations.members"):
                response = await provider.client.conversations_members(
                    channel=channel, cursor=cursor, limit=1000
                )
            if provider.bot_user_id in (response.get("members") or []):
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
    provider: SlackQuestionProvider, verifier: SignatureVerifier
) -> Callable[[web.Request], Awaitable[web.Response]]:
    async def handle(request: web.Request) -> web.Response:
        # Verified and checked here, as Bolt would parse (and fail on) the body first.
        try:
            text = verified_text(await request.read(), request.headers, verifier)
            headers = {name.lower(): request.headers.getall(name) for name in request.headers}
            bolt_request = bolt_request_of(text, request.query_string, headers)
        except Refused as refused:
            log.warning("refused a request to /slack/events (%d): %s", refused.status, refused)
            return web.Response(status=refused.status, text=refused.reason)
        bolt_response = await provider.app.async_dispatch(bolt_request)
        return await to_aiohttp_response(bolt_response)

    return handle


async def _healthz(request: web.Request) -> web.Response:
    """Liveness only: the process answers. Whether it can work is `/readyz`."""
    return web.json_response({"ok": True})


def _store_check(store: SqliteStore) -> Check:
    async def check() -> str | None:
        try:
            await store.check_writable()
        except StoreError as error:
            return f"the store refuses writes: {error.problem}"
        return None

    return check


def _socket_check(socket: SocketModeRunner) -> Check:
    async def check() -> str | None:
        if await socket.connected():
            return None
        return "the Socket Mode connection is down (the watchdog reconnects it)"

    return check
