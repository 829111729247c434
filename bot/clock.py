"""Time for asks and deadlines: the protocol the bot reads it through, and the system clock.

Tests drive it with `slack_emulator.ManualClock`, which has the same `now()` and `sleep_until()`.
"""

from __future__ import annotations

import asyncio
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
