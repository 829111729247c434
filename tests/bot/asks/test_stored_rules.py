"""Rules saved with "Always allow", as the decision before anyone is pinged applies them: they
allow what they cover, and nothing where the policy would not let one person's approval
decide, where a file rule says `always_allow = false`, or once expired."""

from __future__ import annotations

from bot.asks.automatic import AutoDecision, decide
from bot.review import ReviewPolicies, ReviewPolicy, ToolRule
from bot.store import StoredRule
from provider import AskUserQuestionItem, AskUserQuestionOption, ToolApprovalIntent

NOW = 1_000_000.0
ALICE = "U0ALICE"
NO_RULES = ReviewPolicies()
SAVED = StoredRule(
    name="bash-git-status",
    tool="Bash",
    args={"command": "re:git status( .*)?"},
    scope="agent",
    subject="ci",
    created_by=ALICE,
    created_at=NOW - 10,
)


def decided(
    policies: ReviewPolicies = NO_RULES,
    rule: StoredRule = SAVED,
    *,
    command: str = "git status --short",
    agent_id: str = "ci/s1",
    requester: str | None = None,
) -> AutoDecision | None:
    question = AskUserQuestionItem(
        id="approve",
        question="Allow Bash?",
        options=[AskUserQuestionOption(label="Allow"), AskUserQuestionOption(label="Deny")],
        intent=ToolApprovalIntent(allow="Allow", tool="Bash", input={"command": command}),
    )
    return decide(
        policies,
        [],
        [question],
        agent_id=agent_id,
        channel=None,
        requester=requester,
        now=NOW,
        stored=[rule],
    )


def test_a_saved_rule_allows_a_call_it_covers_decided_by_the_rule() -> None:
    made = decided()
    assert made is not None
    assert (made.actor, made.reason) == (
        "rule:bash-git-status",
        f"auto-allowed by rule `bash-git-status`, saved by <@{ALICE}>",
    )
    assert made.answer.to_wire() == {"answers": [{"id": "approve", "selected": ["Allow"]}]}


def test_a_saved_rule_allows_nothing_a_file_rule_marks_always_allow_false() -> None:
    file = ReviewPolicies(
        tools=(ToolRule(tool="Bash", args={"command": "git *"}, always_allow=False),)
    )
    assert decided(file) is None


def test_a_saved_rule_allows_nothing_where_the_policy_needs_two_approvals() -> None:
    two = ReviewPolicies(kinds={"tool-approval": ReviewPolicy(approvals=2)})
    assert decided(two) is None


def test_a_saved_rule_allows_nothing_where_slack_may_not_allow_the_tool() -> None:
    rule = ToolRule(tool="Bash", approve_in_slack=False)
    assert decided(ReviewPolicies(tools=(rule,))) is None


def test_a_saved_rule_does_not_allow_its_authors_own_agent_call() -> None:
    assert decided(requester=ALICE) is None


def test_a_saved_rule_allows_nothing_once_expired() -> None:
    assert decided(rule=SAVED.model_copy(update={"expires_at": NOW})) is None


def test_a_saved_rule_allows_nothing_once_revoked() -> None:
    revoked = SAVED.model_copy(update={"revoked_at": NOW - 1, "revoked_by": ALICE})
    assert decided(rule=revoked) is None


def test_a_saved_rule_for_an_agent_allows_nothing_of_an_agent_whose_id_only_starts_alike() -> None:
    assert decided(agent_id="ci-other/s1") is None
