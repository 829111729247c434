"""Time: the emulator reads it through `Clock.now()`, so a test can stand it still or move it.

`ManualClock` is test support for anything that keeps Slack's time (message ts, trigger_id
and response_url expiry, an app's reminders and deadlines): it moves only on `advance()`, and
wakes whoever sleeps on it as time passes them. `Clock` has the same `now()` as the app-side
clock protocol, so one `ManualClock` can drive both the emulator and the app under test.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from typing import Protocol


class Clock(Protocol):
    """Wall-clock time."""

    def now(self) -> float:
        """Seconds since the epoch, like `time.time()`."""
        ...


class WallClock:
    """Real time."""

    def now(self) -> float:
        """`time.time()`."""
        return time.time()


class ManualClock:
    """Time that moves only when a test calls `advance()`; sleepers wake as it passes them.

    `clock.advance(3.1)` expires a trigger_id without a real sleep; `await clock.sleeping()`
    then `clock.advance(3600)` fires an app's reminder at once.
    """

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self._now = start
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._order = itertools.count()
        self._new_sleeper = asyncio.Event()

    def now(self) -> float:
        """The current manual time."""
        return self._now

    def advance(self, seconds: float) -> None:
        """Move time forward and wake every sleeper whose moment has come."""
        if seconds < 0:
            raise ValueError("a clock cannot go backwards")
        self._now += seconds
        while self._sleepers and self._sleepers[0][0] <= self._now:
            _, _, future = heapq.heappop(self._sleepers)
            if not future.done():
                future.set_result(None)

    async def sleep_until(self, moment: float) -> None:
        """Wait until `advance()` reaches `moment` (yield once if it has passed)."""
        if moment <= self._now:
            await asyncio.sleep(0)
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (moment, next(self._order), future))
        self._new_sleeper.set()
        await future

    @property
    def sleepers(self) -> int:
        """How many tasks wait on this clock."""
        return sum(1 for _, _, future in self._sleepers if not future.done())

    async def sleeping(self, count: int = 1) -> None:
        """Wait until at least `count` tasks sleep on this clock (so `advance` reaches them)."""
        while self.sleepers < count:
            self._new_sleeper.clear()
            await self._new_sleeper.wait()
