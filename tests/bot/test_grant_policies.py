"""The review policy's word on grants: `grant_ttl` (a rule's, else `[default]`'s, else 8 h),
where it may be set, and which policies a grant reaches (who may see and revoke it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.review import DEFAULT_GRANT_TTL, PolicyError, ReviewPolicies, load_policies
from bot.store import AskRecord
from provider import AskUserQuestionItem

ALICE, BOB = "U0ALICE001", "U0BOB00002"
CHANNEL = "C0ELSEWHER"


def load(tmp_path: Path, text: str) -> ReviewPolicies:
    path = tmp_path / "review.toml"
    path.write_text(text)
    return load_policies(path)


def tool_ask(tool: str = "Bash") -> AskRecord:
    question = AskUserQuestionItem.model_validate(
        {
            "id": "tool",
            "question": f"Allow {tool}?",
            "options": [{"label": "Allow"}, {"label": "Deny"}],
            "intent": {"kind": "tool-approval", "allow": "Allow", "tool": tool, "input": {}},
        }
    )
    return AskRecord(id="a1", questions=[question], created_at=0.0)


def test_a_rules_grant_ttl_is_how_long_its_grants_last(tmp_path: Path) -> None:
    policies = load(tmp_path, '[[tools]]\ntool = "Bash"\ngrant_ttl = "30m"\n')
    assert policies.grant_ttl(tool_ask()) == 1800


def test_the_defaults_grant_ttl_applies_where_the_asks_policy_sets_none(tmp_path: Path) -> None:
    policies = load(tmp_path, '[default]\ngrant_ttl = "2h"\n\n[[tools]]\ntool = "Bash"\n')
    assert policies.grant_ttl(tool_ask()) == 7200


def test_with_no_grant_ttl_anywhere_a_grant_lasts_eight_hours() -> None:
    assert ReviewPolicies().grant_ttl(tool_ask()) == DEFAULT_GRANT_TTL == 8 * 3600


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            '[kinds.plan-review]\ngrant_ttl = "1h"\n',
            "kinds: Value error, grant_ttl count for tool approvals only, not for plan-review",
        ),
        (
            '[[tools]]\ntool = "Bash"\ndecision = "allow"\ngrant_ttl = "1h"\n',
            "tools.0: Value error, grant_ttl is how long a grant made on a card lasts: this "
            "rule asks nobody",
        ),
        (
            '[[tools]]\ntool = "Bash"\ngrant_ttl = "soon"\n',
            "tools.0.grant_ttl: Value error, 'soon' is not a duration like 90s, 15m, 2h or 1d",
        ),
        (
            '[[tools]]\ntool = "Bash"\ngrant_ttl = "0s"\n',
            "tools.0.grant_ttl: Input should be greater than 0",
        ),
    ],
    ids=["on plan reviews", "on a rule that allows", "not a duration", "zero"],
)
def test_a_grant_ttl_that_nothing_would_honour_is_refused(
    tmp_path: Path, text: str, problem: str
) -> None:
    with pytest.raises(PolicyError) as refused:
        load(tmp_path, text)
    assert str(refused.value) == f"review policy {tmp_path / 'review.toml'}: {problem}"


def test_a_grant_reaches_every_asking_rule_of_its_tool_and_the_policy_without_a_rule(
    tmp_path: Path,
) -> None:
    policies = load(
        tmp_path,
        f'[kinds.tool-approval]\nreviewers = ["{BOB}"]\n\n'
        '[[tools]]\ntool = "Bash"\nargs = { command = "git *" }\n'
        f'reviewers = ["{ALICE}"]\n\n'
        '[[tools]]\ntool = "Bash"\ndecision = "deny"\nargs = { command = "rm *" }\n\n'
        '[[tools]]\ntool = "Edit"\n',
    )
    assert [r.name for r in policies.grant_reach("Bash", None)] == [
        "tools.0",
        "kinds.tool-approval",
    ]


def test_a_grant_for_any_agent_reaches_each_agents_policy_and_each_channels(
    tmp_path: Path,
) -> None:
    policies = load(
        tmp_path,
        f'[agents.ci]\nreviewers = ["{ALICE}"]\n\n[channels.{CHANNEL}]\nreviewers = ["{BOB}"]\n',
    )
    reach = policies.grant_reach("Bash", None)
    assert [(r.name, r.channel) for r in reach] == [
        ("agents.ci", None),
        (f"channels.{CHANNEL}", CHANNEL),
        ("default", None),
    ]
    assert [r.name for r in policies.grant_reach("Bash", "ci")] == ["agents.ci"]


def test_a_grant_reaches_no_policy_where_one_approval_from_slack_does_not_decide(
    tmp_path: Path,
) -> None:
    policies = load(
        tmp_path,
        '[[tools]]\ntool = "Bash"\napprovals = 2\n\n'
        "[kinds.tool-approval]\napprove_in_slack = false\n",
    )
    assert policies.grant_reach("Bash", None) == []
