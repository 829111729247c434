"""Tool approvals decided before anyone is pinged: what a `[[tools]]` rule that says `allow`
or `deny` answers, stored and logged like a person's answer (decided by `rule:<name>`).

Only a lone tool-approval question is decided this way: its one answer is the whole ask. An
ask a deny rule matches that holds other questions too is refused instead (nothing in it may
be allowed by answering the rest: a deny wins over every approval).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from bot.review import RuleDecision
from provider import (
    AskUserQuestionAnswer,
    AskUserQuestionItem,
    ErrorCode,
    ToolApprovalIntent,
    UserQuestionError,
)
from provider.types import AskUserQuestionAnswerItem

RULE_ACTOR: Final = "rule:"


@dataclass(frozen=True)
class AutoDecision:
    """How a rule settles an ask: its answer, who decided (`rule:<name>`) and why."""

    answer: AskUserQuestionAnswer
    actor: str
    reason: str


def rule_actor(name: str) -> str:
    """The `decided_by` of an ask a rule decided."""
    return f"{RULE_ACTOR}{name}"


def decided_by_rule(decided_by: str | None) -> str | None:
    """The rule's name when `decided_by` is a rule, else None (a person, or nobody)."""
    if decided_by is None or not decided_by.startswith(RULE_ACTOR):
        return None
    return decided_by[len(RULE_ACTOR) :]


def automatic(
    decision: RuleDecision | None, questions: list[AskUserQuestionItem]
) -> AutoDecision | None:
    """The settlement a rule makes of `questions` before anyone is asked; None when people
    are asked. Raises `BAD_INTENT` for a deny rule on an ask that is not a lone tool
    approval (it cannot be answered as a whole, and must not be answered in part)."""
    if decision is None or not decision.automatic:
        return None
    lone = len(questions) == 1 and isinstance(questions[0].intent, ToolApprovalIntent)
    if not lone:
        if decision.decision == "deny":
            raise UserQuestionError(
                ErrorCode.BAD_INTENT,
                f"rule {decision.name} denies this tool"
                + (f": {decision.reason}" if decision.reason else "")
                + "; ask it alone, not beside other questions",
            )
        return None  # an allow rule on a mixed ask: the people answer the whole of it
    question = questions[0]
    intent = question.intent
    assert isinstance(intent, ToolApprovalIntent)
    if decision.decision == "allow":
        item = AskUserQuestionAnswerItem(id=question.id, selected=[intent.allow])
        reason = f"auto-allowed by rule `{decision.name}`"
    else:
        # No option is chosen: the reason is the answer's words, as a person's Deny reason.
        words = decision.reason or f"denied by rule {decision.name}"
        item = AskUserQuestionAnswerItem(id=question.id, selected=[], custom=words)
        reason = f"auto-denied by rule `{decision.name}`"
    return AutoDecision(AskUserQuestionAnswer(answers=[item]), rule_actor(decision.name), reason)
