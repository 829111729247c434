"""A property of the decision made before anyone is pinged: no sequence of grants, rules of
the policy file and rules saved with "Always allow" ever allows a tool call that a deny rule
of the file matches."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bot.asks.automatic import decide
from bot.review import ReviewPolicies, ToolRule, pattern_matches
from bot.store import Grant, StoredRule
from provider import AskUserQuestionItem, AskUserQuestionOption, ToolApprovalIntent

NOW = 1_000_000.0
WORDS = ["git", "push", "status", "rm", "-rf", "make"]
commands = st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join)
patterns = st.one_of(
    commands,
    commands.map(lambda c: c + "*"),
    commands.map(lambda c: "*" + c + "*"),
    st.just("*"),
    st.sampled_from(["re:git .*", "re:.*", "re:(rm|make) .*"]),
)
rules = st.builds(
    lambda tool, pattern, decision: ToolRule(
        tool=tool, args={"command": pattern}, decision=decision
    ),
    st.sampled_from(["Bash", "*", "Ba*", "Edit"]),
    patterns,
    st.sampled_from(["allow", "ask", "deny"]),
)
grants = st.builds(
    lambda n, tool, pattern, scope: Grant(
        id=f"g{n}",
        tool=tool,
        args={"command": pattern},
        scope=scope,
        subject={"session": "s1", "agent": "agent-1", "everyone": None}[scope],
        granted_by="U0ALICE",
        created_at=NOW - 10,
    ),
    st.integers(0, 99),
    st.sampled_from(["Bash", "Edit"]),
    patterns,
    st.sampled_from(["session", "agent", "everyone"]),
)

saved = st.builds(
    lambda n, tool, pattern, scope: StoredRule(
        name=f"saved-{n}",
        tool=tool,
        args={"command": pattern},
        scope=scope,
        subject="agent-1" if scope == "agent" else None,
        created_by="U0ALICE",
        created_at=NOW - 10,
    ),
    st.integers(0, 99),
    st.sampled_from(["Bash", "Edit"]),
    patterns,
    st.sampled_from(["agent", "everyone"]),
)


def call(command: str) -> list[AskUserQuestionItem]:
    return [
        AskUserQuestionItem(
            id="approve",
            question="Allow Bash?",
            options=[AskUserQuestionOption(label="Allow"), AskUserQuestionOption(label="Deny")],
            intent=ToolApprovalIntent(
                allow="Allow", tool="Bash", input={"command": command}, session="s1"
            ),
        )
    ]


@given(
    st.lists(rules, max_size=6),
    st.lists(grants, max_size=6),
    st.lists(saved, max_size=6),
    commands,
)
def test_no_grants_or_rules_allow_a_call_a_deny_rule_matches(
    tool_rules: list[ToolRule], standing: list[Grant], stored: list[StoredRule], command: str
) -> None:
    questions = call(command)
    intent = questions[0].intent
    assert isinstance(intent, ToolApprovalIntent)
    denied = any(r.decision == "deny" and r.matches(intent) for r in tool_rules)
    decided = decide(
        ReviewPolicies(tools=tuple(tool_rules)),
        standing,
        questions,
        agent_id="agent-1",
        channel=None,
        requester=None,
        now=NOW,
        stored=stored,
    )
    allowed = decided is not None and decided.answer.answers[0].selected == ["Allow"]
    if denied:
        assert not allowed
        assert decided is not None
        assert decided.actor.startswith("rule:")
        # A deny rule of the file decided it, never a saved rule (named `saved-<n>`).
        assert decided.actor in {
            f"rule:tools.{i}" for i, r in enumerate(tool_rules) if r.decision == "deny"
        }


@given(st.lists(saved, min_size=1, max_size=6), commands)
def test_a_saved_rule_that_covers_a_call_allows_it_by_its_name(
    stored: list[StoredRule], command: str
) -> None:
    decided = decide(
        ReviewPolicies(),
        [],
        call(command),
        agent_id="agent-1",
        channel=None,
        requester=None,
        now=NOW,
        stored=stored,
    )
    covering = [
        r for r in stored if r.tool == "Bash" and pattern_matches(r.args["command"], command)
    ]
    if covering:
        assert decided is not None
        assert decided.actor == f"rule:{covering[0].name}"
        assert decided.answer.answers[0].selected == ["Allow"]
    else:
        assert decided is None
