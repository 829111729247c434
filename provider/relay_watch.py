"""`RelayWatch`: one WebSocket to the relay (`GET /v1/asks/watch`) carries the waits of every
pending ask of a `RelayProvider`, instead of one held `GET ?wait=` connection per ask.

Opened on first need; every wait registers its ask id and awaits a future, and ids are sent
in batches (`WatchAsks`). A dropped socket or a restarted relay is reconnected patiently
(the provider's backoff, up to `max_outage`) and every id still pending is watched again:
the relay answers the settled ones at once, so no answer is lost. A relay without the route
(404 on the upgrade) or one refusing it raises `NoWatch`: the provider waits with GET then.

The socket itself comes through `Connect`, so this module loads no HTTP library: the
provider's aiohttp transport brings it (relay_client.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Final, Protocol

from pydantic import BaseModel, ConfigDict, ValidationError

from .errors import ErrorCode, UserQuestionError
from .relay_wire import AskView, ErrorBody, WatchAsks, Watched

log = logging.getLogger(__name__)

WATCH_PATH: Final = "/v1/asks/watch"
# Statuses of a refused upgrade that mean "try again later", as for every relay request.
RETRY_STATUSES: Final = frozenset({429, 502, 503, 504})
RETRY_AFTER_MAX: Final = 60.0
IDS_PER_FRAME: Final = 1000  # a frame stays far below the relay's 4 MiB


class Socket(Protocol):
    """An open watch socket: text frames both ways."""

    async def send(self, text: str) -> None:
        """Send one text frame; `SocketDropped` if the socket is gone."""
        ...

    async def receive(self) -> str | None:
        """The next text frame; None once the socket is closed (either side)."""
        ...

    async def close(self) -> None:
        """Close the socket."""
        ...


Connect = Callable[[], Awaitable[Socket]]
"""Opens the watch socket; `SocketDropped` when no reply came, `UpgradeRefused` when the relay
answered with a status instead of upgrading."""


class SocketDropped(Exception):
    """No socket: refused, dropped, timed out (reconnected after a pause)."""


class UpgradeRefused(Exception):
    """The relay answered the upgrade with an HTTP status."""

    def __init__(self, status: int) -> None:
        super().__init__(f"HTTP {status}")
        self.status = status


class NoWatch(Exception):
    """This wait is not served over the socket: wait with `GET /v1/asks/{id}?wait=`."""


class RelayWatch:
    """The watch socket of one `RelayProvider` and the asks waiting on it."""

    def __init__(
        self,
        connect: Connect,
        *,
        base_url: str,
        max_outage: float,
        first_retry: float,
        longest_retry: float,
    ) -> None:
        self._connect = connect
        self._base = base_url
        self._max_outage = max_outage
        self._first_retry = first_retry
        self._longest_retry = longest_retry
        self._waiting: dict[str, list[asyncio.Future[AskView]]] = {}
        # What the next frame says: asks to watch, asks nobody waits on any more.
        self._watch: set[str] = set()
        self._unwatch: set[str] = set()
        self._news = asyncio.Event()
        self._later: dict[str, asyncio.TimerHandle] = {}  # over a wait limit: watched again
        self._runner: asyncio.Task[None] | None = None
        self._absent = False  # the relay has no watch route: GET from now on
        self._closed = False

    async def settled(self, ask_id: str) -> AskView:
        """The ask's view once it settled (`NoWatch`: wait with GET instead)."""
        if self._absent:
            raise NoWatch
        if self._closed:
            raise UserQuestionError(ErrorCode.ASK_FAILED, "the RelayProvider is closed")
        future: asyncio.Future[AskView] = asyncio.get_running_loop().create_future()
        futures = self._waiting.setdefault(ask_id, [])
        futures.append(future)
        if len(futures) == 1:
            self._unwatch.discard(ask_id)
            self._ask_for(ask_id)
        if self._runner is None or self._runner.done():
            self._runner = asyncio.ensure_future(self._run())
        try:
            return await future
        finally:
            # Cancelled (an answered or failed one was taken out already): if nobody else
            # waits on the ask, the relay may stop watching it too.
            self._leave(ask_id, future)

    async def close(self) -> None:
        """Close the socket; waits still pending fail (`ASK_FAILED`, closed)."""
        self._closed = True
        for handle in self._later.values():
            handle.cancel()
        self._later.clear()
        if self._runner is not None:
            self._runner.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._runner
        self._fail_all(
            lambda: UserQuestionError(ErrorCode.ASK_FAILED, "the RelayProvider is closed")
        )

    async def _run(self) -> None:
        """Connect, serve, reconnect after a drop: while anyone waits. Whatever else ends
        it ends every wait (none is left waiting on a watch that is gone)."""
        try:
            await self._connect_and_serve()
        except UserQuestionError as error:
            self._fail_all(functools.partial(UserQuestionError, error.code, error.message))
        except Exception as error:
            log.exception("the relay watch at %s stopped", self._base)
            message = f"the relay watch at {self._base} stopped: {type(error).__name__}: {error}"
            self._fail_all(functools.partial(UserQuestionError, ErrorCode.ASK_FAILED, message))

    async def _connect_and_serve(self) -> None:
        delay = self._first_retry
        outage_since: float | None = None
        while self._waiting:
            try:
                socket = await self._connect()
            except UpgradeRefused as refused:
                if refused.status not in RETRY_STATUSES:
                    # No route (an older relay), or a refusal the GET will name exactly.
                    self._absent = refused.status == 404
                    self._fail_all(NoWatch)
                    return
                why = str(refused)
            except SocketDropped as dropped:
                why = str(dropped)
            else:
                delay, outage_since = self._first_retry, None
                await self._serve(socket)
                why = "the socket closed"  # a relay stopping: it may refuse for a while
            now = time.monotonic()
            outage_since = now if outage_since is None else outage_since
            if now - outage_since > self._max_outage:
                message = f"the relay at {self._base} was unreachable for {self._max_outage:g} s"
                self._fail_all(functools.partial(UserQuestionError, ErrorCode.ASK_FAILED, message))
                return
            log.info("relay watch unavailable (%s); retrying in %.1f s", why, delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, self._longest_retry)

    async def _serve(self, socket: Socket) -> None:
        """Watch every pending ask on `socket` and take its frames until it closes."""
        self._watch = set(self._waiting)  # again, after a drop: settled ones come at once
        self._unwatch.clear()
        self._news.set()
        writing = asyncio.ensure_future(self._write(socket))
        try:
            while (text := await socket.receive()) is not None:
                self._read(text)
        finally:
            writing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await writing
            await socket.close()

    async def _write(self, socket: Socket) -> None:
        """Send what is new, in batches, as it comes."""
        while True:
            await self._news.wait()
            self._news.clear()
            watch, self._watch = sorted(self._watch), set()
            unwatch, self._unwatch = sorted(self._unwatch), set()
            try:
                for start in range(0, max(len(watch), len(unwatch)), IDS_PER_FRAME):
                    frame = WatchAsks(
                        watch=watch[start : start + IDS_PER_FRAME],
                        unwatch=unwatch[start : start + IDS_PER_FRAME],
                    )
                    await socket.send(frame.model_dump_json(exclude_defaults=True))
            except SocketDropped:
                await socket.close()  # the reader stops too; the next socket watches all
                return

    def _read(self, text: str) -> None:
        try:
            watched = Watched.model_validate_json(text)
        except ValidationError:
            log.warning("the relay's watch socket sent an unreadable frame: %.200s", text)
            self._unreadable(text)
            return
        if watched.ask is not None:
            for future in self._waiting.pop(watched.id, ()):
                if not future.done():
                    future.set_result(watched.ask)
        elif watched.error is not None and watched.error.code == "RATE_LIMITED":
            # Over a limit of held waits: watched again when the relay says, as a GET is.
            after = min(float(watched.retry_after or 1), RETRY_AFTER_MAX)
            if (earlier := self._later.pop(watched.id, None)) is not None:
                earlier.cancel()
            self._later[watched.id] = asyncio.get_running_loop().call_later(
                after, self._again, watched.id
            )
        elif watched.error is not None:
            error = _refusal(watched.id, watched.error)
            for future in self._waiting.pop(watched.id, ()):
                if not future.done():
                    future.set_exception(error)

    def _unreadable(self, text: str) -> None:
        # The ask's one frame came and cannot be read (a newer relay, say): its waits go to
        # the GET, which says what it cannot read, instead of waiting for a frame that will
        # not come again.
        try:
            ask_id = _FrameOf.model_validate_json(text).id
        except ValidationError:
            return
        for future in self._waiting.pop(ask_id, ()):
            if not future.done():
                future.set_exception(NoWatch())

    def _again(self, ask_id: str) -> None:
        self._later.pop(ask_id, None)
        if ask_id in self._waiting:
            self._ask_for(ask_id)

    def _ask_for(self, ask_id: str) -> None:
        self._watch.add(ask_id)
        self._news.set()

    def _leave(self, ask_id: str, future: asyncio.Future[AskView]) -> None:
        futures = self._waiting.get(ask_id)
        if futures is None or future not in futures:
            return
        futures.remove(future)
        if not futures:
            del self._waiting[ask_id]
            self._watch.discard(ask_id)
            self._unwatch.add(ask_id)
            self._news.set()

    def _fail_all(self, error: Callable[[], Exception]) -> None:
        """Every wait ends with `error()` (one exception each: each is raised in its task)."""
        waiting, self._waiting = self._waiting, {}
        for futures in waiting.values():
            for future in futures:
                if not future.done():
                    future.set_exception(error())


class _FrameOf(BaseModel):
    """Which ask a frame is about, whatever else it holds."""

    model_config = ConfigDict(defer_build=True)  # built only for an unreadable frame

    id: str


def _refusal(ask_id: str, error: ErrorBody) -> UserQuestionError:
    """The seam error of a refused watch, worded as the GET's (`relay_client._failure`)."""
    if error.code in ErrorCode.__members__:
        return UserQuestionError(ErrorCode(error.code), error.message)
    return UserQuestionError(
        ErrorCode.ASK_FAILED, f"relay watch of ask {ask_id}: {error.code}: {error.message}"
    )
