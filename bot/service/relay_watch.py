"""`GET /v1/asks/watch`: one WebSocket carries the waits of many asks (issue 28).

A held `GET /v1/asks/{id}?wait=` costs an open connection and an aiohttp request per ask; an
agent host with thousands of pending asks would hold thousands. Over one watch socket the
client sends `WatchAsks` frames (`{"watch": [ids]}`, `{"unwatch": [ids]}`) and gets one
`Watched` frame per ask when its wait is over: the settled ask, as the GET answers it (at
once if it already is), or the GET's refusal (another agent's ask is NOT_FOUND, as an
unknown one; over a wait limit is RATE_LIMITED with `retry_after`).

Each watched ask is a held wait like a GET's (`Limits.wait_held`, the `relay_waiters`
gauge) and waits through `Asks.wait`, so a settle here hands the record over, and another
replica's settle, a notification or the periodic re-read wakes it as it wakes a GET. What a
watch holds is one small task; closing the socket (either side) drops all of its watches.
`close()`, at shutdown, closes every socket with 1001 (going away): clients reconnect and
watch again, and the next relay answers the settled ones at once. A watch whose wait fails
(the store unreachable) is tried again after a pause, on the same socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Final

from aiohttp import WSCloseCode, WSMsgType, web
from pydantic import ValidationError

from bot.asks.lifecycle import Asks
from bot.metrics import Metrics
from bot.service.limits import Limits, RateLimited
from bot.service.principals import Principal
from bot.store import AskRecord
from bot.tasks import Tasks
from provider.relay_wire import AskView, ErrorBody, WatchAsks, Watched

log = logging.getLogger(__name__)

WATCH_PATH: Final = "/v1/asks/watch"
# A client gone without a close frame (its host died) is noticed within two of these.
HEARTBEAT_S: Final = 30.0
MAX_FRAME_BYTES: Final = 4 * 1024 * 1024  # 10,000 ids in one frame are about 300 KiB
CLOSE_REASON_MAX: Final = 123  # bytes a close frame's reason may hold (RFC 6455)
# A watch whose wait failed (a store error) tries again after this, doubling up to the longest.
FIRST_RETRY_S: Final = 0.5
LONGEST_RETRY_S: Final = 10.0

Caller = Callable[[web.Request], Awaitable[Principal | web.Response]]
View = Callable[[AskRecord], AskView]
Refuse = Callable[[str, str], web.Response]  # (code, message): the relay's error response


class AskWatches:
    """The watch sockets of this relay and the asks each one waits on."""

    def __init__(
        self,
        asks: Asks,
        limits: Limits,
        tasks: Tasks,
        caller: Caller,
        view: View,
        refuse: Refuse,
        *,
        metrics: Metrics | None = None,
    ) -> None:
        self._asks = asks
        self._limits = limits
        self._tasks = tasks
        self._caller = caller
        self._view = view
        self._refuse = refuse
        self._metrics = metrics
        self._sockets: set[_Socket] = set()
        self._closing = False

    @property
    def sockets(self) -> int:
        """How many watch sockets are open now (for reports and tests)."""
        return len(self._sockets)

    def close(self) -> None:
        """Close every watch socket with 1001 (going away), and each one opened from now on."""
        self._closing = True
        for socket in self._sockets:
            self._tasks.spawn(socket.going_away(), name="closing a watch socket")

    async def handle(self, request: web.Request) -> web.StreamResponse:
        """`GET /v1/asks/watch`: refused before the upgrade as every relay route refuses a
        caller (and 426 without an upgrade); then the watches of one socket until it closes."""
        caller = await self._caller(request)
        if isinstance(caller, web.Response):
            return caller
        response = web.WebSocketResponse(
            heartbeat=HEARTBEAT_S, max_msg_size=MAX_FRAME_BYTES, compress=False
        )
        if not response.can_prepare(request).ok:
            # A plain GET: the relay's error shape, not aiohttp's bare text.
            refused = self._refuse(
                "UPGRADE_REQUIRED",
                f"{WATCH_PATH} is a WebSocket: send the upgrade "
                "(`Connection: Upgrade`, `Upgrade: websocket`)",
            )
            refused.headers["Upgrade"] = "websocket"
            return refused
        await response.prepare(request)
        socket = _Socket(self, response, caller)
        if self._closing:
            await socket.going_away()
            return response
        self._sockets.add(socket)
        try:
            await socket.serve()
        finally:
            self._sockets.discard(socket)
            await socket.drop()
        return response

    async def follow(self, caller: Principal, ask_id: str) -> Watched:
        """The frame that ends one watch: the ask once settled, or its refusal."""
        if not caller.admin:
            # As the GET: whose it is never changes, and the live copy says so without a read.
            mine = await self._asks.record(ask_id)
            if mine is None or not caller.owns(mine):
                return _not_found(ask_id)
        try:
            with self._limits.wait_held(caller):
                record = await self._wait(ask_id)
        except RateLimited as error:
            body = ErrorBody(name="RelayError", code=error.code, message=error.message)
            return Watched(id=ask_id, error=body, retry_after=error.retry_after)
        if record is None or not caller.owns(record):
            return _not_found(ask_id)
        return Watched(id=ask_id, ask=self._view(record))

    async def _wait(self, ask_id: str) -> AskRecord | None:
        metrics = self._metrics
        if metrics is not None:
            metrics.relay_waiters.inc()
        try:
            return await self._asks.wait(ask_id)
        except KeyError:
            return None
        finally:
            if metrics is not None:
                metrics.relay_waiters.dec()


class _Socket:
    """One watch socket: its caller and a task per ask it watches."""

    def __init__(
        self, watches: AskWatches, response: web.WebSocketResponse, caller: Principal
    ) -> None:
        self._watches = watches
        self._response = response
        self._caller = caller
        self._following: dict[str, asyncio.Task[None]] = {}

    async def serve(self) -> None:
        """Read frames until the socket closes."""
        async for message in self._response:
            if message.type is not WSMsgType.TEXT:
                await self._refuse(WSCloseCode.UNSUPPORTED_DATA, "text frames only: WatchAsks")
                return
            try:
                asked = WatchAsks.model_validate_json(message.data)
            except ValidationError as error:
                await self._refuse(WSCloseCode.INVALID_TEXT, f"not a WatchAsks frame: {error}")
                return
            for ask_id in asked.unwatch:
                following = self._following.pop(ask_id, None)
                if following is not None:
                    following.cancel()
            for ask_id in asked.watch:
                if ask_id not in self._following:
                    loop = asyncio.get_running_loop()
                    self._following[ask_id] = loop.create_task(self._follow(ask_id))

    async def going_away(self) -> None:
        """Close the socket for a shutdown: the client reconnects."""
        await self._response.close(code=WSCloseCode.GOING_AWAY, message=b"the relay is stopping")

    async def drop(self) -> None:
        """Stop every watch of this socket (it is closed)."""
        following = list(self._following.values())
        self._following.clear()
        for task in following:
            task.cancel()
        await asyncio.gather(*following, return_exceptions=True)

    async def _follow(self, ask_id: str) -> None:
        pause = FIRST_RETRY_S
        while True:
            try:
                watched = await self._watches.follow(self._caller, ask_id)
                break
            except Exception:  # the store failed: the watch stays and is tried again
                # A GET would answer 500 and its asker give up; the watch keeps waiting
                # instead (a store back after an outage answers it, nothing is lost).
                log.warning(
                    "watching ask %s failed; trying again in %.1f s", ask_id, pause, exc_info=True
                )
                await asyncio.sleep(pause)
                pause = min(pause * 2, LONGEST_RETRY_S)
        if self._following.get(ask_id) is asyncio.current_task():
            del self._following[ask_id]
        # Closed meanwhile: lost with the socket, and sent again once the client re-watches.
        with contextlib.suppress(ConnectionError):
            await self._response.send_str(watched.model_dump_json(exclude_none=True))

    async def _refuse(self, code: WSCloseCode, reason: str) -> None:
        log.warning("relay closed a watch socket of %s: %s", self._caller.name, reason)
        await self._response.close(code=code, message=reason.encode()[:CLOSE_REASON_MAX])


def _not_found(ask_id: str) -> Watched:
    body = ErrorBody(name="RelayError", code="NOT_FOUND", message=f"no ask {ask_id}")
    return Watched(id=ask_id, error=body)


__all__ = ["WATCH_PATH", "AskWatches"]
