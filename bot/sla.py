"""An SLA ladder: when a waiting ask is reminded, escalated and expired, and the working hours
in which its clock runs.

A policy's ladder (`remind_after`, `escalate_after`, `expire_after`) counts working time when
the policy names working hours: an ask created on Friday evening with `remind_after = "1h"`
is reminded an hour into Monday morning, in the policy's time zone. Each step is counted from
the ask's creation, so a restart neither resets nor skips one. Pure arithmetic, no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from enum import StrEnum
from typing import Final, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

Weekday = Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
WEEKDAYS: Final[tuple[Weekday, ...]] = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_CLOCK_TIME = re.compile(r"^([01]\d|2[0-3]):([0-5]\d)$")
# A ladder step is at most this many days of calendar time away: a bound on the walk.
_MAX_DAYS: Final = 3660


def _clock_time(value: str) -> time:
    match = _CLOCK_TIME.match(value)
    if match is None:
        raise ValueError(f"{value!r} is not a time of day like 09:00 or 17:30")
    return time(int(match.group(1)), int(match.group(2)))


class WorkingHours(BaseModel):
    """When the SLA clock runs: `start` to `end` (local, `HH:MM`) on `weekdays`, in `time_zone`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    time_zone: str
    weekdays: tuple[Weekday, ...] = Field(default=("mon", "tue", "wed", "thu", "fri"), min_length=1)
    start: str = "09:00"
    end: str = "17:00"

    @field_validator("time_zone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError) as error:
            raise ValueError(f"{value!r} is not an IANA time zone like Europe/Paris") from error
        return value

    @field_validator("start", "end")
    @classmethod
    def _valid_time(cls, value: str) -> str:
        _clock_time(value)
        return value

    @model_validator(mode="after")
    def _start_before_end(self) -> WorkingHours:
        if _clock_time(self.start) >= _clock_time(self.end):
            raise ValueError(f"working hours start ({self.start}) must be before end ({self.end})")
        return self

    def add(self, moment: float, seconds: float) -> float:
        """The moment `seconds` of working time after `moment` (epoch seconds)."""
        zone = ZoneInfo(self.time_zone)
        days = {WEEKDAYS.index(day) for day in self.weekdays}
        opens, closes = _clock_time(self.start), _clock_time(self.end)
        now = datetime.fromtimestamp(moment, zone)
        left = timedelta(seconds=seconds)
        for _ in range(_MAX_DAYS):
            day = now.date()
            window_open = datetime.combine(day, opens, zone)
            window_close = datetime.combine(day, closes, zone)
            if day.weekday() in days and now < window_close:
                now = max(now, window_open)
                # Compare in UTC: a day that changes its offset (DST) has its real length.
                available = window_close.timestamp() - now.timestamp()
                if left.total_seconds() <= available:
                    return now.timestamp() + left.total_seconds()
                left -= timedelta(seconds=available)
            now = datetime.combine(day + timedelta(days=1), time(0), zone)
        raise ValueError(f"{seconds:g} s of working time is more than {_MAX_DAYS} days away")


class Step(StrEnum):
    """A rung of the ladder, in the order they come."""

    REMIND = "remind"
    ESCALATE = "escalate"
    EXPIRE = "expire"


@dataclass(frozen=True)
class Due:
    """One step of an ask's ladder: what, when (epoch seconds), and the policy's duration."""

    step: Step
    at: float
    after: float


def ladder(
    created_at: float,
    *,
    remind_after: float | None,
    escalate_after: float | None,
    expire_after: float | None,
    hours: WorkingHours | None,
) -> list[Due]:
    """The steps set, in order, each `after` seconds (of working time, with `hours`) from
    `created_at`."""
    steps = []
    for step, after in (
        (Step.REMIND, remind_after),
        (Step.ESCALATE, escalate_after),
        (Step.EXPIRE, expire_after),
    ):
        if after is not None:
            at = created_at + after if hours is None else hours.add(created_at, after)
            steps.append(Due(step, at, after))
    return steps


def still_due(
    steps: list[Due], *, reminded_at: float | None, escalated_at: float | None
) -> list[Due]:
    """The steps not yet taken (a stored `reminded_at`, `escalated_at` says one was)."""
    taken = {Step.REMIND: reminded_at is not None, Step.ESCALATE: escalated_at is not None}
    return [due for due in steps if not taken.get(due.step, False)]
