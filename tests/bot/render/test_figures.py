"""Per-agent figures, pure: what counts as automatic, quick, and how times read."""

from __future__ import annotations

import pytest

from bot.render.figures import automatic_by, duration, percent


@pytest.mark.parametrize(
    ("decided_by", "expected"),
    [("rule:safe-reads", "rule"), ("grant:g1", "grant"), ("U0ALICE001", None), (None, None)],
)
def test_only_rules_and_grants_decide_automatically(
    decided_by: str | None, expected: str | None
) -> None:
    assert automatic_by(decided_by) == expected


@pytest.mark.parametrize(
    ("seconds", "words"),
    [(2.0, "2 s"), (59.4, "59 s"), (62.0, "1 min 2 s"), (300.0, "5 min"), (7800.0, "2 h 10 min")],
)
def test_a_time_to_answer_reads_in_seconds_minutes_and_hours(seconds: float, words: str) -> None:
    assert duration(seconds) == words


def test_a_share_is_rounded_to_a_whole_percent() -> None:
    assert [percent(1, 3), percent(2, 3), percent(0, 4)] == ["33 %", "67 %", "0 %"]
