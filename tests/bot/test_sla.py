"""The SLA ladder's arithmetic and its policy keys: steps in order, working hours."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from pydantic import ValidationError

from bot.review import ReviewPolicy
from bot.sla import Step, WorkingHours, still_due

PARIS = ZoneInfo("Europe/Paris")


def paris(text: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=PARIS).timestamp()


def test_without_working_hours_each_step_is_counted_from_creation() -> None:
    policy = ReviewPolicy(
        remind_after=60, escalate_after=120, escalate_to=("S0BACKUP01",), expire_after=180
    )
    assert [(d.step, d.at) for d in policy.ladder(1000.0)] == [
        (Step.REMIND, 1060.0),
        (Step.ESCALATE, 1120.0),
        (Step.EXPIRE, 1180.0),
    ]


def test_working_time_stops_at_the_end_of_the_day_and_resumes_next_morning() -> None:
    hours = WorkingHours(time_zone="Europe/Paris", start="09:00", end="17:00")
    assert hours.add(paris("2026-12-02T16:30"), 3600) == paris("2026-12-03T09:30")


def test_working_time_skips_days_that_are_not_working_days() -> None:
    hours = WorkingHours(time_zone="Europe/Paris", weekdays=("mon",))
    assert hours.add(paris("2026-12-01T10:00"), 1800) == paris("2026-12-07T09:30")


def test_working_time_over_a_clock_change_counts_real_hours() -> None:
    # 2027-03-28: Paris moves from +01:00 to +02:00 at 02:00.
    hours = WorkingHours(time_zone="Europe/Paris", weekdays=("sun",), start="00:00", end="05:00")
    assert hours.add(paris("2027-03-28T00:00"), 3 * 3600) == paris("2027-03-28T04:00")


def test_a_step_already_stored_is_not_due_again() -> None:
    policy = ReviewPolicy(
        remind_after=60, escalate_after=120, escalate_to=("S0BACKUP01",), expire_after=180
    )
    due = still_due(policy.ladder(0.0), reminded_at=61.0, escalated_at=None)
    assert [d.step for d in due] == [Step.ESCALATE, Step.EXPIRE]


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        (
            {"remind_after": "2h", "escalate_after": "1h", "escalate_to": ["S0BACKUP01"]},
            "remind_after must come before escalate_after",
        ),
        ({"escalate_to": ["S0BACKUP01"]}, "escalate_after and escalate_to go together"),
        (
            {"escalate_after": "1h", "escalate_to": ["C0CHANNEL1"]},
            "escalate_to must be user (U…/W…) or group (S…) ids, not ['C0CHANNEL1']",
        ),
        (
            {"expire_after": "1h", "working_hours": {"time_zone": "Mars/Olympus"}},
            "'Mars/Olympus' is not an IANA time zone like Europe/Paris",
        ),
        (
            {"expire_after": "1h", "working_hours": {"time_zone": "UTC", "start": "18:00"}},
            "working hours start (18:00) must be before end (17:00)",
        ),
        (
            {"working_hours": {"time_zone": "UTC"}},
            "working_hours move the SLA steps: set remind_after, escalate_after or expire_after",
        ),
    ],
    ids=[
        "out of order",
        "backup without when",
        "a channel",
        "unknown zone",
        "start after end",
        "hours alone",
    ],
)
def test_a_ladder_that_cannot_be_kept_is_refused(fields: dict[str, object], problem: str) -> None:
    with pytest.raises(ValidationError) as refused:
        ReviewPolicy.model_validate(fields)
    assert problem in str(refused.value)
