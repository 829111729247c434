"""How an ask stopped in Slack reads: who stopped it, never "nobody answered", never approved."""

from __future__ import annotations

from bot.outcomes import ENDINGS, PLAN_ENDINGS, AskError, PlanOutcome, Verdict, plan_outcome
from bot.render.decided import Settlement, verdict_line
from bot.render.notes import settled_note
from provider import ErrorCode

ALICE = "U0ALICE001"
AT = 1_700_000_000.0


def test_the_decided_message_says_who_stopped_it_in_slack() -> None:
    line = verdict_line(Settlement(Verdict.STOPPED, AT, actor=ALICE))
    assert line.startswith(
        f":octagonal_sign: Stopped in Slack by <@{ALICE}>; the agent was told to stop · "
    )


def test_a_late_click_is_told_who_stopped_the_session() -> None:
    assert settled_note(Verdict.STOPPED, ALICE) == (
        f"<@{ALICE}> stopped the agent's session in Slack; no answer is needed."
    )


def test_the_agent_gets_ask_aborted_stopped_in_slack() -> None:
    assert ENDINGS[Verdict.STOPPED].error("stopped in Slack") == AskError(
        code=ErrorCode.ASK_ABORTED,
        message="ask_user_question was aborted before the user answered: stopped in Slack",
    )


def test_a_stopped_plan_review_is_its_own_outcome_and_not_approved() -> None:
    outcome = plan_outcome(Verdict.STOPPED, None, "Approve")
    assert outcome is PlanOutcome.STOPPED
    assert PLAN_ENDINGS[outcome].words == "Stopped in Slack, not approved"
