"""Tool approvals decided before anyone is pinged: what a `[[tools]]` rule that says `allow`
or `deny` answers, stored and logged like a person's answer (decided by `rule:<name>`).

Only a lone tool-approval question is decided this way: its one answer is the whole ask. An
ask a deny rule matches that holds other questions too is refused instead (nothing in it may
be allowed by answering the rest: a deny wins over every approval).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

# `decided_by`'s prefixes live with `auto_decider`, which reads them back; re-exported here,
# where they are written.
from bot.review import GRANT_ACTOR as GRANT_ACTOR
from bot.review import RULE_ACTOR as RULE_ACTOR
from bot.review import ReviewPolicies, ReviewPolicy, RuleDecision, args_match, of_agent
from bot.store import Grant, StoredRule
from provider import (
    AskUserQuestionAnswer,
    AskUserQuestionItem,
    ErrorCode,
    ToolApprovalIntent,
    UserQuestionError,
)
from provider.types import AskUserQuestionAnswerItem


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


def grant_covers(
    grant: Grant, intent: ToolApprovalIntent, agent_id: str | None, now: float
) -> bool:
    """Whether `grant` allows this call now: active, the same tool, every argument pattern
    matching, and the call is of the session or agent it names (or it is for everyone)."""
    if not grant.active(now) or intent.tool is None or intent.tool != grant.tool:
        return False
    if not args_match(grant.args, intent.input or {}):
        return False
    match grant.scope:
        case "session":
            return intent.session is not None and intent.session == grant.subject
        case "agent":
            return agent_id is not None and agent_id == grant.subject
        case "everyone":
            return True


def grant_may_decide(policy: ReviewPolicy, grant: Grant, requester: str | None) -> bool:
    """Whether the policy the call falls under lets one person's standing allow decide it:
    not where it needs several approvals or none from Slack, nor where the granter is the
    requester it may not approve for (fail closed: the call is asked)."""
    if policy.approvals > 1 or not policy.approve_in_slack:
        return False
    return requester is None or grant.granted_by != requester or policy.requester_may_approve


def decide(
    policies: ReviewPolicies,
    grants: Sequence[Grant],
    questions: list[AskUserQuestionItem],
    *,
    agent_id: str | None,
    channel: str | None,
    requester: str | None,
    now: float,
    stored: Sequence[StoredRule] = (),
) -> AutoDecision | None:
    """How an ask is settled before anyone is pinged, or None: it is asked. A deny rule
    of the policy file wins over everything; then its allow rules; then the first rule
    saved with "Always allow" (`stored`) that covers the call; then the first grant that
    does (under a file rule that asks, or no rule)."""
    ruled = automatic(policies.rule_decision(questions), questions)
    if ruled is not None:
        return ruled
    if not (len(questions) == 1 and isinstance(questions[0].intent, ToolApprovalIntent)):
        return None
    question = questions[0]
    intent = question.intent
    assert isinstance(intent, ToolApprovalIntent)
    policy = policies.named(policies.choose(questions, agent_id, channel))
    for rule in stored:
        if stored_rule_covers(rule, intent, agent_id, now) and stored_rule_may_decide(
            policies, policy, rule, intent, requester
        ):
            item = AskUserQuestionAnswerItem(id=question.id, selected=[intent.allow])
            reason = f"auto-allowed by rule `{rule.name}`, saved by <@{rule.created_by}>"
            return AutoDecision(
                AskUserQuestionAnswer(answers=[item]), rule_actor(rule.name), reason
            )
    for grant in grants:
        if grant_covers(grant, intent, agent_id, now) and grant_may_decide(
            policy, grant, requester
        ):
            item = AskUserQuestionAnswerItem(id=question.id, selected=[intent.allow])
            reason = f"auto-allowed by grant `{grant.id}` of <@{grant.granted_by}> ({grant.scope})"
            return AutoDecision(
                AskUserQuestionAnswer(answers=[item]), grant_actor(grant.id), reason
            )
    return None


def grant_actor(grant_id: str) -> str:
    """The `decided_by` of an ask a grant decided."""
    return f"{GRANT_ACTOR}{grant_id}"


def stored_rule_covers(
    rule: StoredRule, intent: ToolApprovalIntent, agent_id: str | None, now: float
) -> bool:
    """Whether a rule saved with "Always allow" allows this call now: active, the same
    tool, every argument pattern matching, and by the agent it names or one of its sessions
    (`ci` covers `ci/<session>`), or by any agent."""
    if not rule.active(now) or intent.tool is None or intent.tool != rule.tool:
        return False
    if not args_match(rule.args, intent.input or {}):
        return False
    return rule.scope == "everyone" or of_agent(agent_id, rule.subject)


def stored_rule_may_decide(
    policies: ReviewPolicies,
    policy: ReviewPolicy,
    rule: StoredRule,
    intent: ToolApprovalIntent,
    requester: str | None,
) -> bool:
    """Whether the policy the call falls under still lets a saved rule decide it: as for a
    grant (one approval decides, from Slack, not by the requester for themselves), and no
    file rule matching the call says `always_allow = false` (the file may have changed
    since the rule was saved: fail closed, the call is asked)."""
    if policies.always_allow_forbidden([intent]) is not None:
        return False
    if policy.approvals > 1 or not policy.approve_in_slack:
        return False
    return requester is None or rule.created_by != requester or policy.requester_may_approve
