"""A decided plan review's message: each way a review ends, in the words that surface uses."""

from __future__ import annotations

import pytest

from bot.outcomes import Verdict
from bot.render import Settlement, lay_out
from bot.render.plan_review import ReviewStatus, settled_plan_review
from provider import AskUserQuestionAnswerItem, AskUserQuestionRequest

AT = 1_700_000_000.0
STAMP = "<!date^1700000000^{date_short_pretty} at {time}|2023-11-14 22:13 UTC>"
REVIEW = AskUserQuestionRequest.model_validate(
    {
        "questions": [
            {
                "id": "plan",
                "question": "May I carry out this plan?",
                "detail": "# Plan\n\n- step one",
                "options": [{"label": "Revise it"}, {"label": "Approve"}],
                "intent": {"kind": "plan-review", "approve": "Approve"},
            }
        ]
    }
)


def ending(settlement: Settlement, status: ReviewStatus | None = None) -> str:
    """The decision line that replaces the controls."""
    content = settled_plan_review(
        "a1", lay_out(REVIEW), "planner", status or ReviewStatus(), settlement
    )
    verdict = content.blocks[-1].to_dict()
    return str(verdict["text"]["text"])


def answered(**item: object) -> Settlement:
    answer = AskUserQuestionAnswerItem.model_validate({"id": "plan", **item})
    return Settlement(Verdict.ANSWERED, AT, actor="U0BOB00002", answers={"plan": answer})


def test_an_approved_plan_names_every_approver() -> None:
    status = ReviewStatus(needed=2, approvals=(("U0ALICE001", AT), ("U0BOB00002", AT)))
    assert ending(answered(selected=["Approve"]), status) == (
        f":white_check_mark: *Approved* by <@U0ALICE001>, <@U0BOB00002> · {STAMP}"
    )


def test_a_plan_approved_with_no_approval_recorded_names_who_decided() -> None:
    assert ending(answered(selected=["Approve"])) == (
        f":white_check_mark: *Approved* by <@U0BOB00002> · {STAMP}"
    )


def test_requested_changes_quote_the_comment() -> None:
    assert ending(answered(custom="Split step one")) == (
        f":memo: *Changes requested* by <@U0BOB00002> · {STAMP}\n\n> Split step one"
    )


def test_a_decline_names_the_label_chosen() -> None:
    assert ending(answered(selected=["Revise it"])) == (
        f":no_entry: *Declined* by <@U0BOB00002>: *Revise it* · {STAMP}"
    )


@pytest.mark.parametrize(
    ("verdict", "reason", "line"),
    [
        (
            Verdict.CANCELLED,
            None,
            f":speech_balloon: <@U0BOB00002> moved this plan to a discussion in the thread · {STAMP}",
        ),
        (
            Verdict.EXPIRED,
            "the review expired after 1 day without approval",
            ":alarm_clock: *Expired unapproved: nobody answered*: the review expired after 1 day"
            f" without approval · {STAMP}",
        ),
        (Verdict.EXPIRED, None, f":alarm_clock: *Expired unapproved: nobody answered* · {STAMP}"),
        (
            Verdict.WITHDRAWN,
            "plan changed",
            f":heavy_minus_sign: *Withdrawn, nobody answered*: plan changed · {STAMP}",
        ),
        (
            Verdict.FAILED,
            "channel_not_found",
            f":warning: Could not be collected: channel_not_found · {STAMP}",
        ),
        (Verdict.CLOSED, None, f":warning: Could not be collected · {STAMP}"),
    ],
)
def test_a_review_ended_without_a_decision_says_how(
    verdict: Verdict, reason: str | None, line: str
) -> None:
    assert ending(Settlement(verdict, AT, actor="U0BOB00002", reason=reason)) == line
