"""Change notification: lets a test await a condition on the emulator instead of sleeping."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


class NotAnEmulatorChange(AssertionError):
    """A condition came true without the emulator changing: waiting on the emulator for it
    would always wait out the timeout, so the wait fails instead of passing slowly."""


class Changes:
    """Wakes every waiter whenever something the emulator records or stores changes."""

    def __init__(self) -> None:
        self._waiters: set[asyncio.Future[None]] = set()
        self.version = 0
        """How many changes there have been: a watcher compares it to what it last saw."""

    def notify(self) -> None:
        self.version += 1
        for waiter in self._waiters:
            if not waiter.done():
                waiter.set_result(None)
        self._waiters.clear()

    async def wait_until(self, predicate: Callable[[], bool], *, within: float, what: str) -> None:
        """Return once `predicate()` holds; raise TimeoutError naming `what` after `within` s.

        The predicate is re-checked on each change only. One that came true without a change
        (the app's own state, a store, a task) is found out when the time is up: that raises
        `NotAnEmulatorChange`, so a test awaits the event it needs instead of the timeout.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + within
        while not predicate():
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(f"timed out after {within} s waiting for {what}")
            waiter: asyncio.Future[None] = loop.create_future()
            self._waiters.add(waiter)
            try:
                # Not asyncio.wait_for: on Python 3.11 it swallows a cancellation that arrives
                # as the waiter completes, and a cancelled waiter (the terminal's watcher at
                # shutdown) would wait on, holding the process open.
                async with asyncio.timeout(remaining):
                    await waiter
            except TimeoutError:
                # The timeout cancels the waiter unless a change arrived with it (an answer).
                if waiter.cancelled() and predicate():
                    raise NotAnEmulatorChange(
                        f"{what} came true without an emulator change: waited out all {within} s"
                        " for it; await the event that makes it true instead"
                    ) from None
            finally:
                self._waiters.discard(waiter)
