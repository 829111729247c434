"""RelayProvider: the seam's provider for agents in other processes, over the relay API.

It survives relay restarts and dropped connections: the ask is created with an idempotency
key and waited on by id, so every retry re-attaches to the same ask. Cancelling the task
that awaits `ask()` (or aborting its signal) withdraws the ask with `DELETE`.

HTTP goes through a `Transport`: aiohttp's (`AiohttpTransport`, imported when first used) by
default; the Claude Code hook, which starts before every gated tool call, brings a smaller one
(bot/hooks/http.py) so it does not load aiohttp at all.

With the default transport every pending ask waits on one WebSocket per provider
(`GET /v1/asks/watch`, provider/relay_watch.py) instead of a held `GET ?wait=` each; a relay
without that route, or a custom transport, is waited on with the GET long-poll.
"""

from __future__ import annotations

import asyncio
import contextlib
import json as json_module
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Protocol, TypeVar, cast
from urllib.parse import urlencode

from pydantic import ValidationError

from .errors import ErrorCode, UserQuestionError, aborted
from .relay_watch import WATCH_PATH, NoWatch, RelayWatch, Socket, SocketDropped, UpgradeRefused
from .relay_wire import AgentRef, AskState, AskView, CreateAsk, Problem
from .types import AskUserQuestionAnswer, AskUserQuestionRequest

if TYPE_CHECKING:
    import aiohttp

log = logging.getLogger(__name__)

T = TypeVar("T")

RETRY_STATUSES = frozenset({502, 503, 504})
RETRY_AFTER_MAX = 60.0  # a longer Retry-After is not waited out in one sleep
SKIPPED_HEADERS = ("Accept", "Accept-Encoding")
# A watch socket whose relay vanished without closing it is noticed within two of these.
WATCH_HEARTBEAT_S = 30.0


@dataclass(frozen=True)
class Reply:
    """An HTTP response as the relay client reads it."""

    status: int
    text: str
    retry_after: str = ""  # the Retry-After header, "" when absent


class TransportError(Exception):
    """The request got no reply: refused, dropped, timed out (the client retries it)."""


class Transport(Protocol):
    """Sends one HTTP request; `TransportError` when no reply came."""

    async def request(
        self,
        method: str,
        url: str,
        *,
        body: bytes | None,
        headers: Mapping[str, str],
        total: float,
        connect: float,
    ) -> Reply:
        """Send it and read the whole reply within `total` seconds (`connect` to connect)."""
        ...

    async def close(self) -> None:
        """Release its connections."""
        ...


class AiohttpTransport:
    """`Transport` over an aiohttp session (made on first use)."""

    def __init__(self) -> None:
        self._session: aiohttp.ClientSession | None = None

    async def request(
        self,
        method: str,
        url: str,
        *,
        body: bytes | None,
        headers: Mapping[str, str],
        total: float,
        connect: float,
    ) -> Reply:
        """See `Transport.request`."""
        import aiohttp  # loaded only when this transport is used

        timeout = aiohttp.ClientTimeout(total=total, sock_connect=connect)
        try:
            async with self._opened().request(
                method, url, data=body, headers=dict(headers), timeout=timeout
            ) as response:
                text = await response.text()
                return Reply(response.status, text, response.headers.get("Retry-After", ""))
        except (aiohttp.ClientConnectionError, aiohttp.ClientPayloadError, TimeoutError) as error:
            raise TransportError(f"{type(error).__name__}: {error}") from error

    async def websocket(self, url: str, headers: Mapping[str, str], *, connect: float) -> Socket:
        """A WebSocket to `url`: `UpgradeRefused` when answered with a status instead,
        `SocketDropped` when no answer came within `connect` (+30 s for the upgrade)."""
        import aiohttp

        try:
            async with asyncio.timeout(connect + 30.0):
                socket = await self._opened().ws_connect(
                    url, headers=dict(headers), heartbeat=WATCH_HEARTBEAT_S
                )
        except aiohttp.WSServerHandshakeError as error:
            raise UpgradeRefused(error.status) from error
        except (aiohttp.ClientError, TimeoutError) as error:
            raise SocketDropped(f"{type(error).__name__}: {error}") from error
        return _AiohttpSocket(socket)

    def _opened(self) -> aiohttp.ClientSession:
        import aiohttp

        if self._session is None:
            # The relay keeps every header of a held poll parsed for as long as it holds it;
            # these two tell it nothing (its answers are small JSON, never compressed).
            # No pool limit: every pending ask holds one long-poll open, so aiohttp's default
            # of 100 connections would cap an agent at 100 waits and queue the rest (their
            # creates too) behind polls that end only when someone answers.
            # No total timeout by default: each request brings its own; a watch socket
            # stays open as long as it is needed.
            self._session = aiohttp.ClientSession(
                skip_auto_headers=SKIPPED_HEADERS,
                connector=aiohttp.TCPConnector(limit=0),
                timeout=aiohttp.ClientTimeout(total=None),
            )
        return self._session

    async def close(self) -> None:
        """Close the session."""
        if self._session is not None:
            await self._session.close()
            self._session = None


class _AiohttpSocket:
    """`relay_watch.Socket` over an aiohttp WebSocket."""

    def __init__(self, socket: aiohttp.ClientWebSocketResponse) -> None:
        self._socket = socket

    async def send(self, text: str) -> None:
        """See `Socket.send`."""
        import aiohttp

        try:
            await self._socket.send_str(text)
        except (ConnectionError, aiohttp.ClientError) as error:
            raise SocketDropped(f"{type(error).__name__}: {error}") from error

    async def receive(self) -> str | None:
        """See `Socket.receive`."""
        import aiohttp

        while True:
            message = await self._socket.receive()
            if message.type is aiohttp.WSMsgType.TEXT:
                return str(message.data)
            if message.type is not aiohttp.WSMsgType.BINARY:  # closed, closing, or failed
                return None

    async def close(self) -> None:
        """See `Socket.close`."""
        await self._socket.close()


class _Retry(Exception):
    """A transient failure: try again after a pause (`after`: the relay's Retry-After)."""

    def __init__(self, why: str, after: float | None = None) -> None:
        super().__init__(why)
        self.after = after


class RelayProvider:
    """Asks through a slack-questions relay at `base_url` with a bearer `token`; with
    `expires_in`, the relay withdraws each ask that long after it was made."""

    def __init__(
        self,
        base_url: str,
        token: str,
        *,
        wait_seconds: float = 30.0,
        max_outage: float = 300.0,
        first_retry: float = 0.1,
        longest_retry: float = 2.0,
        withdraw_within: float = 10.0,
        min_poll_interval: float = 0.25,
        connect_timeout: float = 30.0,
        expires_in: int | None = None,
        transport: Transport | None = None,
    ) -> None:
        self._base = base_url.rstrip("/")
        self._headers = {"Authorization": f"Bearer {token}"}
        self._wait = wait_seconds
        self._max_outage = max_outage
        self._first_retry = first_retry
        self._longest_retry = longest_retry
        self._withdraw_within = withdraw_within
        self._min_poll = min_poll_interval
        self._connect_timeout = connect_timeout
        # Each ask is withdrawn by the relay after this long (the asker will have stopped
        # waiting: a process killed outright cannot withdraw it itself).
        self._expires_in = expires_in
        self._transport: Transport = transport or AiohttpTransport()
        self._watch: RelayWatch | None = None
        if transport is None:
            self._watch = self._watch_over(cast(AiohttpTransport, self._transport))
        self._withdrawals: set[asyncio.Task[None]] = set()
        self._closed = False

    async def __aenter__(self) -> RelayProvider:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def close(self) -> None:
        """Stop unfinished withdrawals and close the transport."""
        self._closed = True
        for task in list(self._withdrawals):
            task.cancel()
        await asyncio.gather(*self._withdrawals, return_exceptions=True)
        if self._watch is not None:
            await self._watch.close()
        await self._transport.close()

    async def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        """Create the ask on the relay and wait for its answer."""
        view = await self.outcome(request)
        if view.state is AskState.ANSWERED and view.answer is not None:
            return view.answer
        raise error_of(view)

    async def outcome(self, request: AskUserQuestionRequest) -> AskView:
        """Create the ask on the relay and wait until it ends: answered or failed, and by whom.

        For callers that need more than the answer (who decided, for instance); `ask()` is
        this plus turning a failed ask into its `UserQuestionError`.
        """
        body = CreateAsk(
            questions=request.questions,
            agent=_agent_ref(request),
            idempotency_key=uuid.uuid4().hex,
            expires_in=self._expires_in,
        )
        # Shielded: once sent, the ask exists on the relay and must be withdrawn, not lost.
        creating = asyncio.ensure_future(self._patiently(lambda: self._create(body)))
        try:
            view = await asyncio.shield(creating)
            return await self._until_settled(view, request)
        except asyncio.CancelledError:
            # Withdraw first (within reason: the relay may be down), then let it through.
            withdrawal = asyncio.ensure_future(self._withdraw(creating))
            self._withdrawals.add(withdrawal)
            withdrawal.add_done_callback(self._withdrawals.discard)
            with contextlib.suppress(asyncio.CancelledError, TimeoutError):
                await asyncio.wait_for(asyncio.shield(withdrawal), self._withdraw_within)
            raise

    # --- one step at a time, for callers that hold the ask id themselves ---------------------

    async def start(self, request: AskUserQuestionRequest, *, idempotency_key: str) -> AskView:
        """Create the ask (the same key returns the same ask) without waiting for its answer."""
        body = CreateAsk(
            questions=request.questions,
            agent=_agent_ref(request),
            idempotency_key=idempotency_key,
            expires_in=self._expires_in,
        )
        return await self._patiently(lambda: self._create(body))

    async def poll(self, ask_id: str, *, wait_seconds: float) -> AskView:
        """The ask's state, held open up to `wait_seconds` while it is pending."""
        return await self._patiently(lambda: self._get(ask_id, wait_seconds))

    async def withdraw(self, ask_id: str) -> AskView:
        """Withdraw the ask (`ASK_ABORTED`), or report the decision that came first."""
        return await self._patiently(lambda: self._delete(ask_id))

    async def _withdraw(self, creating: asyncio.Future[AskView]) -> None:
        try:
            view = await creating
            await self._patiently(lambda: self._delete(view.id))
        except UserQuestionError as error:
            log.warning("could not withdraw the ask: %s", error.message)

    async def _until_settled(self, view: AskView, request: AskUserQuestionRequest) -> AskView:
        signal = request.signal
        ask_id = view.id
        while view.state is AskState.PENDING:
            if signal is None:
                # Awaited in this task, not a task of its own: the answer goes straight on.
                view = _same_ask(ask_id, await self._next_view(ask_id))
                continue
            poll = asyncio.ensure_future(self._next_view(ask_id))
            abort = asyncio.ensure_future(signal.wait())
            try:
                await asyncio.wait({poll, abort}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                abort.cancel()
            if poll.done():
                view = _same_ask(ask_id, poll.result())
                continue
            poll.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await poll
            view = await self._patiently(lambda: self._delete(ask_id))
            if view.state is AskState.PENDING:  # pragma: no cover - the relay settles on DELETE
                raise aborted()
        return view

    async def _next_view(self, ask_id: str) -> AskView:
        """The ask once settled, over the watch socket; else as one GET long-poll leaves it."""
        if self._watch is not None:
            started = time.monotonic()
            with contextlib.suppress(NoWatch):
                view = await self._watch.settled(ask_id)
                if view.state is AskState.PENDING:  # a relay that should not: no tight loop
                    await asyncio.sleep(max(0.0, self._min_poll - (time.monotonic() - started)))
                return view
        return await self._patiently(lambda: self._get(ask_id))

    def _watch_over(self, transport: AiohttpTransport) -> RelayWatch:
        async def connect() -> Socket:
            if self._closed:
                raise UserQuestionError(ErrorCode.ASK_FAILED, "the RelayProvider is closed")
            url = self._base + WATCH_PATH
            return await transport.websocket(url, self._headers, connect=self._connect_timeout)

        return RelayWatch(
            connect,
            base_url=self._base,
            max_outage=self._max_outage,
            first_retry=self._first_retry,
            longest_retry=self._longest_retry,
        )

    async def _patiently(self, call: Callable[[], Awaitable[T]]) -> T:
        """Retry `call` through outages (restarts, drops) up to `max_outage` seconds."""
        delay = self._first_retry
        started = time.monotonic()
        while True:
            try:
                return await call()
            except _Retry as why:
                if time.monotonic() - started > self._max_outage:
                    raise UserQuestionError(
                        ErrorCode.ASK_FAILED,
                        f"the relay at {self._base} was unreachable for {self._max_outage:g} s",
                        cause=why.__cause__,
                    ) from why
                pause = delay if why.after is None else max(delay, why.after)
                log.info("relay unavailable (%s); retrying in %.1f s", why, pause)
                await asyncio.sleep(pause)
                delay = min(delay * 2, self._longest_retry)

    async def _create(self, body: CreateAsk) -> AskView:
        return await self._request("POST", "/v1/asks", json=body.to_wire())

    async def _get(self, ask_id: str, wait: float | None = None) -> AskView:
        wait = self._wait if wait is None else wait
        started = time.monotonic()
        view = await self._request(
            "GET", f"/v1/asks/{ask_id}", params={"wait": str(wait)}, extra_time=wait
        )
        # A relay that answers "pending" at once (shutting down, say) is not polled in a loop.
        if view.state is AskState.PENDING and wait > 0:
            await asyncio.sleep(max(0.0, self._min_poll - (time.monotonic() - started)))
        return view

    async def _delete(self, ask_id: str) -> AskView:
        return await self._request("DELETE", f"/v1/asks/{ask_id}")

    async def _request(
        self,
        method: str,
        path: str,
        *,
        json: object = None,
        params: dict[str, str] | None = None,
        extra_time: float = 0.0,
    ) -> AskView:
        if self._closed:
            raise UserQuestionError(ErrorCode.ASK_FAILED, "the RelayProvider is closed")
        url = self._base + path + (f"?{urlencode(params)}" if params else "")
        headers = self._headers
        data = None
        if json is not None:
            data = json_module.dumps(json).encode()
            headers = {**headers, "Content-Type": "application/json"}
        try:
            reply = await self._transport.request(
                method,
                url,
                body=data,
                headers=headers,
                total=extra_time + 30.0,
                connect=self._connect_timeout,
            )
        except TransportError as error:
            raise _Retry(str(error)) from error.__cause__
        status, text, retry_after = reply.status, reply.text, reply.retry_after
        if status in RETRY_STATUSES:
            raise _Retry(f"HTTP {status}")
        if status == 429:
            # Over a limit of the credential (pending asks, creates a minute, held waits): a
            # create is retried with its idempotency key, a wait re-polled, once it says.
            after = float(retry_after) if retry_after.isdigit() else 1.0
            raise _Retry(f"HTTP 429 {_message_of(text)}", after=min(after, RETRY_AFTER_MAX))
        if status >= 400:
            raise _failure(method, path, status, text)
        try:
            return AskView.model_validate_json(text)
        except ValidationError as error:
            raise UserQuestionError(
                ErrorCode.ASK_FAILED, f"the relay answered {method} {path} with an unreadable body"
            ) from error


def _same_ask(ask_id: str, view: AskView) -> AskView:
    # An answer is trusted only for the ask it was asked for: a relay (or a proxy) that
    # answers with another ask's view must not decide this one.
    if view.id != ask_id:
        raise UserQuestionError(
            ErrorCode.ASK_FAILED, f"the relay answered for ask {view.id!r}, not {ask_id!r}"
        )
    return view


def error_of(view: AskView) -> UserQuestionError:
    """The seam error a failed (or answerless) ask view stands for."""
    error = view.error
    if error is None:
        return UserQuestionError(ErrorCode.ASK_FAILED, f"relay ask {view.id} failed")
    code = ErrorCode(error.code) if error.code in ErrorCode.__members__ else ErrorCode.ASK_FAILED
    return UserQuestionError(code, error.message)


def _message_of(text: str) -> str:
    try:
        return Problem.model_validate_json(text).error.message
    except ValidationError:
        return ""


def _failure(method: str, path: str, status: int, text: str) -> UserQuestionError:
    try:
        problem = Problem.model_validate_json(text)
    except ValidationError:
        return UserQuestionError(ErrorCode.ASK_FAILED, f"relay {method} {path}: HTTP {status}")
    code = problem.error.code
    if code in ErrorCode.__members__:
        return UserQuestionError(ErrorCode(code), problem.error.message)
    return UserQuestionError(
        ErrorCode.ASK_FAILED,
        f"relay {method} {path}: HTTP {status} {code}: {problem.error.message}",
    )


def _agent_ref(request: AskUserQuestionRequest) -> AgentRef | None:
    agent = request.agent
    if agent is None:
        return None
    return AgentRef(id=agent.id, name=agent.name, requester=agent.requester)
