"""Background work the app owns: spawned after an ack, tracked, drained on shutdown."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

from bot.clock import Clock

log = logging.getLogger(__name__)


class Tasks:
    """A set of tracked tasks. Failures are logged, never lost; `drain()` waits for all."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closed = False
        # Shutdown has begun: queued work no longer starts and retries stop waiting
        # (`spawn_queued`, `wait_until`).
        self._stopping = asyncio.Event()

    def spawn(
        self, work: Coroutine[Any, Any, Any], *, name: str | None = None
    ) -> asyncio.Task[Any] | None:
        """Run `work` in the background; `drain()` waits for it."""
        if self._closed:
            # Raising here could erase an ack already given; refuse loudly in the log instead.
            work.close()
            log.error("work %s arrived after shutdown and was dropped", name or work)
            return None
        task = asyncio.get_running_loop().create_task(work, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._finished)
        return task

    def spawn_queued(self, work: Coroutine[Any, Any, Any]) -> asyncio.Task[Any] | None:
        """Start work that waited in a queue (a post whose turn came in its channel's lane);
        None once shutdown has begun. Queued work is left for the next start then (pending
        asks are taken back from the store), so `drain()` waits only for work already running
        instead of working through the queue."""
        if self._stopping.is_set():
            work.close()
            return None
        return self.spawn(work)

    async def wait_until(self, clock: Clock, moment: float) -> bool:
        """Sleep until `moment` on `clock`, before a retry: True then, or False (at once)
        when shutdown begins first. A retry is left for the next start then (recovery shows
        and posts what is pending), so `drain()` does not wait out its backoff."""
        if self._stopping.is_set():
            return False
        sleeping = asyncio.ensure_future(clock.sleep_until(moment))
        stopping = asyncio.ensure_future(self._stopping.wait())
        try:
            await asyncio.wait((sleeping, stopping), return_when=asyncio.FIRST_COMPLETED)
        finally:
            sleeping.cancel()
            stopping.cancel()
        return not self._stopping.is_set()

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("background task %s failed", task.get_name(), exc_info=task.exception())

    def __len__(self) -> int:
        return len(self._tasks)

    def __bool__(self) -> bool:
        # Always true, though `len()` may be 0: `tasks or Tasks()` must keep an idle one
        # (Asks did swap the provider's for an untracked set, so drain missed its work).
        return True

    async def idle(self) -> None:
        """Wait until no tracked task is running (tasks spawned meanwhile included)."""
        while self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def drain(self, grace: float = 10.0) -> None:
        """Wait up to `grace` seconds for running work (and work it spawns, but no more queued
        work, `spawn_queued`, nor retries' backoff, `wait_until`), cancel the rest, close."""
        self._stopping.set()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + grace
        while self._tasks and (remaining := deadline - loop.time()) > 0:
            await asyncio.wait(set(self._tasks), timeout=remaining)
        self._closed = True
        leftovers = set(self._tasks)
        for task in leftovers:
            task.cancel()
        if leftovers:
            await asyncio.gather(*leftovers, return_exceptions=True)
