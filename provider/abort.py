"""AbortSignal / AbortController: Python's missing cancellation token, after the web's."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Generator
from typing import Any

log = logging.getLogger(__name__)

AbortCallback = Callable[[object], None]


class AbortSignal:
    """Becomes aborted once, with a reason; callbacks and awaiters learn of it.

    Await the signal (``await signal``) to wait until it is aborted; the await returns
    the reason.
    """

    def __init__(self) -> None:
        self._aborted = False
        self._reason: object = None
        self._callbacks: list[AbortCallback] = []

    @property
    def aborted(self) -> bool:
        """Whether `abort()` has been called on the controller."""
        return self._aborted

    @property
    def reason(self) -> object:
        """What the controller passed to `abort()`, or None while not aborted."""
        return self._reason

    def add_callback(self, callback: AbortCallback) -> Callable[[], None]:
        """Call `callback(reason)` on abort (at once if already aborted); return a remover."""
        if self._aborted:
            callback(self._reason)
            return lambda: None
        self._callbacks.append(callback)

        def remove() -> None:
            if callback in self._callbacks:
                self._callbacks.remove(callback)

        return remove

    async def wait(self) -> object:
        """Wait until aborted; return the reason."""
        if self._aborted:
            return self._reason
        future: asyncio.Future[object] = asyncio.get_running_loop().create_future()

        def resolve(reason: object) -> None:
            if not future.done():
                future.set_result(reason)

        remove = self.add_callback(resolve)
        try:
            return await future
        finally:
            remove()

    def __await__(self) -> Generator[Any, None, object]:
        return self.wait().__await__()

    def _abort(self, reason: object) -> None:
        if self._aborted:
            return
        self._aborted = True
        self._reason = reason
        callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            # One failing listener must not keep the others from learning of the abort.
            try:
                callback(reason)
            except Exception:
                log.exception("abort callback failed")


class AbortController:
    """Owns an `AbortSignal` and is the only way to abort it."""

    def __init__(self) -> None:
        self.signal = AbortSignal()

    def abort(self, reason: object = None) -> None:
        """Abort the signal; later calls do nothing (the first reason stays)."""
        self.signal._abort(reason)
