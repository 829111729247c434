"""The ephemeral "too late" note: one wording per ending."""

from __future__ import annotations

import pytest

from bot.outcomes import Verdict
from bot.render.notes import settled_note

BOB = "U_BOB"


@pytest.mark.parametrize(
    ("verdict", "note"),
    [
        (Verdict.ANSWERED, f"This question was already answered by <@{BOB}>."),
        (Verdict.WITHDRAWN, "The agent withdrew this question; no answer is needed."),
        (Verdict.CLOSED, f"This question was dismissed when <@{BOB}> closed its form."),
        (Verdict.CANCELLED, f"<@{BOB}> chose to discuss this question instead."),
        (Verdict.EXPIRED, "This question expired before anyone answered."),
        (Verdict.FAILED, "This question could not be collected."),
    ],
)
def test_each_ending_has_its_note(verdict: Verdict, note: str) -> None:
    assert settled_note(verdict, BOB) == note


def test_an_answer_by_nobody_known_names_someone_else() -> None:
    assert settled_note(Verdict.ANSWERED, None) == (
        "This question was already answered by someone else."
    )
