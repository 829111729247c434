"""Time for asks and deadlines: the system clock, and one a test moves by hand."""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from typing import Protocol


class Clock(Protocol):
    """Wall-clock time and sleeping until a moment of it."""

    def now(self) -> float:
        """Seconds since the epoch."""
        ...

    async def sleep_until(self, moment: float) -> None:
        """Return at `moment` (at once if it has passed)."""
        ...


class SystemClock:
    """Real time."""

    def now(self) -> float:
        """`time.time()`."""
        return time.time()

    async def sleep_until(self, moment: float) -> None:
        """Sleep until `moment`."""
        await asyncio.sleep(max(0.0, moment - time.time()))


class ManualClock:
    """Time that moves only when a test calls `advance()`; sleepers wake as it passes them."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self._now = start
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._order = itertools.count()
        self._new_sleeper = asyncio.Event()

    def now(self) -> float:
        """The current manual time."""
        return self._now

    @property
    def sleepers(self) -> int:
        """How many tasks wait on this clock."""
        return sum(1 for _, _, future in self._sleepers if not future.done())

    async def sleep_until(self, moment: float) -> None:
        """Wait until `advance()` reaches `moment`."""
        if moment <= self._now:
            await asyncio.sleep(0)
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (moment, next(self._order), future))
        self._new_sleeper.set()
        await future

    async def sleeping(self, count: int = 1) -> None:
        """Wait until at least `count` tasks sleep on this clock (so `advance` reaches them)."""
        while self.sleepers < count:
            self._new_sleeper.clear()
            await self._new_sleeper.wait()

    def advance(self, seconds: float) -> None:
        """Move time forward and wake every sleeper whose moment has come."""
        self._now += seconds
        while self._sleepers and self._sleepers[0][0] <= self._now:
            _, _, future = heapq.heappop(self._sleepers)
            if not future.done():
                future.set_result(None)
