"""Clocks. The emulator reads time through a plain callable so tests can control it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeAlias

Clock: TypeAlias = Callable[[], float]
"""Seconds since the epoch, like `time.time`."""


class ManualClock:
    """A clock that moves only when told to: `clock.advance(3.1)` expires a trigger_id, no sleep."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("a clock cannot go backwards")
        self.now += seconds
