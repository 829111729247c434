"""SlackEmulator: a local Slack the real Bolt app talks to over HTTP on 127.0.0.1."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from contextlib import AbstractContextManager
from types import TracebackType

from aiohttp import web

from slack_emulator.agent_sessions import AgentSession
from slack_emulator.core import Core, build_core
from slack_emulator.delivery import DeliverySettings, delivering_to
from slack_emulator.faults import Fault, Faults
from slack_emulator.files import Files, Upload
from slack_emulator.http_routes import build_server
from slack_emulator.identity import DEFAULT_SIGNING_SECRET, AppIdentity
from slack_emulator.methods import METHODS
from slack_emulator.people import Person
from slack_emulator.posting_rate import SLACK_POSTING_RATE, PostingLimits, PostingRate
from slack_emulator.records import ApiCall, BlockKitViolation, Delivery, Transport
from slack_emulator.slack_objects import Ephemeral, Message, ThreadStatus, View
from slack_emulator.socket_mode_server import SocketModeServer
from slack_emulator.timekeeping import Clock, WallClock
from slack_emulator.web_api import MethodContext, WebApi
from slack_emulator.workspace import Workspace

_SHUTDOWN_TIMEOUT = 1.0


class SlackEmulator:
    """One workspace, one app, one aiohttp server. Use `async with SlackEmulator(...) as emu`
    or `await emu.start()` / `await emu.stop()`."""

    def __init__(
        self,
        *,
        signing_secret: str = DEFAULT_SIGNING_SECRET,
        bot_token: str = "xoxb-emulator",
        app_token: str = "xapp-emulator",
        request_url: str | None = None,
        clock: Clock | None = None,
        identity: AppIdentity | None = None,
        seed: int | None = 0,
        ack_timeout: float = 10.0,
    ) -> None:
        self._app = dataclasses.replace(
            identity or AppIdentity(), bot_token=bot_token, app_token=app_token
        )
        self._settings = DeliverySettings(
            signing_secret=signing_secret, request_url=request_url, ack_timeout=ack_timeout
        )
        self._core: Core = build_core(
            app=self._app, clock=clock or WallClock(), seed=seed, settings=self._settings
        )
        self._faults = Faults()
        self._stopping = asyncio.Event()
        self._files = Files()
        context = MethodContext(
            app=self._app,
            workspace=self._core.workspace,
            ids=self._core.ids,
            triggers=self._core.triggers,
            recorder=self._core.recorder,
            socket_url=lambda: self._core.socket.issue_url(self.url),
            files=self._files,
        )
        self._web_api = WebApi(context, METHODS, self._faults, self._stopping)
        self._runner: web.AppRunner | None = None
        self._url: str | None = None

    # lifecycle ------------------------------------------------------------------------

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> None:
        if self._runner is not None:
            raise RuntimeError("the emulator is already running")
        self._stopping.clear()
        server = build_server(
            self._web_api, self._core.response_urls, self._core.socket, self._files
        )
        runner = web.AppRunner(server, shutdown_timeout=_SHUTDOWN_TIMEOUT, access_log=None)
        await runner.setup()
        try:
            site = web.TCPSite(runner, host, port)
            await site.start()
            bound_host, bound_port = runner.addresses[0][:2]
            await self._core.deliverer.start()
        except BaseException:
            await runner.cleanup()
            raise
        self._runner = runner
        self._url = f"http://{bound_host}:{bound_port}"
        self._core.response_urls.base_url = self._url
        self._files.base_url = self._url

    async def stop(self) -> None:
        """Close Socket Mode connections, the server and the outgoing HTTP session."""
        runner, self._runner = self._runner, None
        if runner is None:
            return
        self._url = None
        self._stopping.set()
        try:
            await self._core.socket.close()
            await runner.cleanup()
        finally:
            await self._core.deliverer.close()

    async def __aenter__(self) -> SlackEmulator:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.stop()

    # where and who --------------------------------------------------------------------

    @property
    def url(self) -> str:
        if self._url is None:
            raise RuntimeError("the emulator is not running; await emu.start() first")
        return self._url

    @property
    def api_url(self) -> str:
        """Pass as `AsyncWebClient(base_url=emu.api_url)`."""
        return f"{self.url}/api/"

    @property
    def identity(self) -> AppIdentity:
        return self._app

    @property
    def team_id(self) -> str:
        return self._app.team_id

    @property
    def app_id(self) -> str:
        return self._app.app_id

    @property
    def bot_id(self) -> str:
        return self._app.bot_id

    @property
    def bot_user_id(self) -> str:
        return self._app.bot_user_id

    @property
    def bot_token(self) -> str:
        return self._app.bot_token

    @property
    def app_token(self) -> str:
        return self._app.app_token

    @property
    def workspace(self) -> Workspace:
        return self._core.workspace

    # delivery settings ----------------------------------------------------------------

    @property
    def delivery(self) -> Transport:
        """Where people's interactions go: "http" (the request_url) or "socket"."""
        return self._settings.mode

    @delivery.setter
    def delivery(self, mode: Transport) -> None:
        if mode not in ("http", "socket"):
            raise ValueError(f'delivery is "http" or "socket", not {mode!r}')
        self._settings.mode = mode

    @property
    def request_url(self) -> str | None:
        return self._settings.request_url

    @request_url.setter
    def request_url(self, url: str | None) -> None:
        self._settings.request_url = url

    @property
    def signing_secret(self) -> str:
        return self._settings.signing_secret

    @signing_secret.setter
    def signing_secret(self, secret: str) -> None:
        self._settings.signing_secret = secret

    @property
    def request_clock(self) -> Clock:
        """Source of the X-Slack-Request-Timestamp the emulator signs with (real time)."""
        return self._settings.request_clock

    @request_clock.setter
    def request_clock(self, clock: Clock) -> None:
        self._settings.request_clock = clock

    @property
    def ack_deadline(self) -> float:
        """When an ack is late (a `late_ack` violation, not applied): Slack's 3 s by default."""
        return self._settings.ack_deadline

    @ack_deadline.setter
    def ack_deadline(self, seconds: float) -> None:
        self._settings.ack_deadline = seconds

    @property
    def socket_mode(self) -> SocketModeServer:
        return self._core.socket

    # records --------------------------------------------------------------------------

    @property
    def calls(self) -> list[ApiCall]:
        return self._core.recorder.calls

    def files(self) -> list[Upload]:
        """The files uploaded and completed (files.completeUploadExternal), in order."""
        return self._files.shared()

    def calls_to(self, method: str) -> list[ApiCall]:
        return [call for call in self.calls if call.method == method]

    def held(self, method: str) -> int:
        """How many calls of `method` a `Slow` fault has held (from their arrival): a test
        waits for this to act while a call is in flight."""
        return self._core.recorder.held.count(method)

    @property
    def violations(self) -> list[BlockKitViolation]:
        return self._core.recorder.violations

    @property
    def deliveries(self) -> list[Delivery]:
        return self._core.recorder.deliveries

    @property
    def version(self) -> int:
        """Grows whenever the emulator records or stores anything: a page that shows the
        workspace (the playground) re-renders when it moved, with `wait_for`."""
        return self._core.changes.version

    async def wait_for(
        self, predicate: Callable[[], bool], *, within: float = 5.0, what: str = "a condition"
    ) -> None:
        """Wait until `predicate()` holds, re-checked whenever the emulator records or stores
        anything. For the app's work after an ack: no sleeps."""
        await self._core.changes.wait_until(predicate, within=within, what=what)

    async def wait_for_call(self, method: str, *, count: int = 1, within: float = 5.0) -> ApiCall:
        """The `count`-th call to `method`, once it has happened."""
        await self.wait_for(
            lambda: len(self.calls_to(method)) >= count,
            within=within,
            what=f"call #{count} to {method}",
        )
        return self.calls_to(method)[count - 1]

    # workspace queries ----------------------------------------------------------------

    def message(self, channel: str, ts: str) -> Message:
        message = self._core.workspace.message(channel, ts)
        if message is None:
            known = (
                ", ".join(m.ts for m in self._core.workspace.channel_messages(channel)) or "none"
            )
            raise LookupError(f"no message {ts} in {channel}; top-level messages: {known}")
        return message

    def thread(self, channel: str, thread_ts: str) -> list[Message]:
        """The root first, then the replies in order."""
        thread = self._core.workspace.thread(channel, thread_ts)
        if not thread:
            raise LookupError(f"no thread {thread_ts} in {channel}")
        return thread

    def thread_status(self, channel: str, thread_ts: str) -> ThreadStatus | None:
        """The app's status line under the thread (assistant.threads.setStatus) now: None
        when never set, cleared by an empty status or the app's reply, or two minutes old."""
        return self._core.workspace.thread_status(channel, thread_ts)

    def declare_agent(self, *, subscribed: bool = True) -> None:
        """Declare the app as an agent (app settings, the manifest's `features.agent_view`),
        so agents.sessions.setStatus serves it; `subscribed`: it subscribes to
        `agent_session_stopped` (else setStatus warns and people get no Stop button)."""
        sessions = self._core.workspace.agent_sessions
        sessions.declared = True
        sessions.subscribed = subscribed

    def agent_session(self, channel: str, thread_ts: str) -> AgentSession | None:
        """The app's agent session in the thread (agents.sessions.setStatus): its status,
        title, initiator and when it last changed; None if never set."""
        return self._core.workspace.agent_sessions.session(channel, thread_ts)

    def channel_messages(self, channel: str) -> list[Message]:
        """Top-level messages, oldest first."""
        return self._core.workspace.channel_messages(channel)

    def ephemerals(self, user_id: str) -> list[Ephemeral]:
        return self._core.workspace.ephemerals(user_id)

    def views(self, user_id: str) -> list[View]:
        """The person's open modal stack, root first."""
        return self._core.workspace.modal_stack(user_id)

    def home(self, user_id: str) -> View | None:
        return self._core.workspace.home(user_id)

    # people and faults ----------------------------------------------------------------

    def delivering_to(self, url: str) -> AbstractContextManager[None]:
        """Within the block (and tasks started in it), people's HTTP deliveries go to `url`
        instead of `request_url`: e.g. clicks spread over two replicas of one app."""
        return delivering_to(url)

    def person(
        self, user_id: str, *, team_id: str | None = None, app_id: str | None = None
    ) -> Person:
        """Act as `user_id`. `team_id` / `app_id`: the person's payloads claim another
        workspace or app than the emulated one (still signed with the app's secret), as a
        test of what the app does with a request that is not its own."""
        sender = self._core.app
        if team_id is not None:
            sender = dataclasses.replace(sender, team_id=team_id)
        if app_id is not None:
            sender = dataclasses.replace(sender, app_id=app_id)
        return Person(self._core, user_id, sender=sender)

    def inject(self, method: str, fault: Fault, *, times: int | None = 1) -> None:
        """Make the next `times` calls of `method` ("*": any method) suffer `fault`;
        `times=None` until `clear_faults()`."""
        self._faults.inject(method, fault, times=times)

    def limit_posting(self, rate: PostingRate | None = SLACK_POSTING_RATE) -> None:
        """Enforce Slack's posting rate per channel (`chat.postMessage`, threads included):
        beyond `rate`, 429 with `Retry-After`. None lifts it; `clear_faults()` does too."""
        self._web_api.posting_limits = PostingLimits(rate) if rate is not None else None

    def clear_faults(self) -> None:
        self._faults.clear()
        self._web_api.posting_limits = None
