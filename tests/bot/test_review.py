"""Choosing a review policy: agent and kind, agent, kind, channel, default; loading the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.review import PolicyError, ReviewPolicies, ReviewPolicy, kind_of, load_policies
from bot.store import AskRecord
from provider import AskUserQuestionItem

ALICE, BOB, CAROL = "U0ALICE001", "U0BOB00002", "U0CAROL003"
CHANNEL, OTHER = "C0QUESTION", "C0ELSEWHER"
FILE = f"""
[default]
reviewers = ["{CAROL}"]

[kinds.plan-review]
reviewers = ["{ALICE}", "{BOB}"]
approvals = 2

[agents."deploy-bot"]
reviewers = ["{BOB}"]

[agents."deploy-bot".kinds.tool-approval]
reviewers = ["{ALICE}"]

[agents."only-kinds".kinds.question]
reviewers = ["{ALICE}"]

[agents."ci.bot"]
reviewers = ["{ALICE}"]

[channels.{OTHER}]
reviewers = ["{BOB}"]
"""
PLAN = AskUserQuestionItem.model_validate(
    {
        "id": "plan",
        "question": "Go?",
        "detail": "# Plan",
        "options": [{"label": "Approve"}, {"label": "No"}],
        "intent": {"kind": "plan-review", "approve": "Approve"},
    }
)
TOOL = AskUserQuestionItem.model_validate(
    {
        "id": "tool",
        "question": "Allow Bash?",
        "options": [{"label": "Allow"}, {"label": "Deny"}],
        "intent": {"kind": "tool-approval", "allow": "Allow"},
    }
)
DB = AskUserQuestionItem(id="db", question="Which database?")


def load(tmp_path: Path, text: str) -> ReviewPolicies:
    path = tmp_path / "review.toml"
    path.write_text(text)
    return load_policies(path)


@pytest.fixture
def policies(tmp_path: Path) -> ReviewPolicies:
    return load(tmp_path, FILE)


@pytest.mark.parametrize(
    ("questions", "kind"),
    [
        ([PLAN], "plan-review"),
        ([TOOL], "tool-approval"),
        ([DB], "question"),
        ([DB, TOOL], "tool-approval"),
        ([TOOL, DB, PLAN], "plan-review"),
    ],
    ids=["plan", "tool", "question", "a tool in a batch", "a plan in a batch"],
)
def test_the_kind_is_read_from_the_intents(questions: list[AskUserQuestionItem], kind: str) -> None:
    assert kind_of(questions) == kind


@pytest.mark.parametrize(
    ("kind", "agent", "channel", "name"),
    [
        ("tool-approval", "deploy-bot", OTHER, "agents.deploy-bot.kinds.tool-approval"),
        ("plan-review", "deploy-bot", OTHER, "agents.deploy-bot"),
        ("plan-review", "someone", OTHER, "kinds.plan-review"),
        ("plan-review", None, OTHER, "kinds.plan-review"),
        ("question", "someone", OTHER, f"channels.{OTHER}"),
        ("tool-approval", None, OTHER, f"channels.{OTHER}"),
        ("question", "someone", CHANNEL, "default"),
        ("question", None, None, "default"),
        ("question", "only-kinds", CHANNEL, "agents.only-kinds.kinds.question"),
        ("tool-approval", "only-kinds", CHANNEL, "default"),
        ("question", "ci.bot", CHANNEL, 'agents."ci.bot"'),
    ],
    ids=[
        "agent and kind",
        "agent over kind",
        "kind over channel",
        "kind without an agent",
        "channel",
        "channel for a tool approval",
        "nothing named",
        "nowhere at all",
        "an agent's kind",
        "an agent table with only kinds is no agent policy",
        "a dotted agent id is quoted",
    ],
)
def test_the_first_match_wins_agent_and_kind_agent_kind_channel_default(
    policies: ReviewPolicies, kind: str, agent: str | None, channel: str | None, name: str
) -> None:
    assert policies.select(kind, agent, channel) == name  # type: ignore[arg-type]


def test_a_record_uses_the_policy_it_chose_when_created(policies: ReviewPolicies) -> None:
    record = AskRecord(
        id="a", questions=[DB], created_at=0, channel=OTHER, policy="kinds.plan-review"
    )
    assert policies.of(record) == ReviewPolicy(reviewers=(ALICE, BOB), approvals=2)


def test_a_record_whose_policy_left_the_file_gets_the_default(policies: ReviewPolicies) -> None:
    record = AskRecord(id="a", questions=[PLAN], created_at=0, policy="kinds.tool-approval")
    assert (policies.name_of(record), policies.of(record)) == (
        "default",
        ReviewPolicy(reviewers=(CAROL,)),
    )


def test_a_record_stored_before_policies_were_kept_chooses_again(
    policies: ReviewPolicies,
) -> None:
    record = AskRecord(id="a", questions=[PLAN], created_at=0, channel=OTHER, agent_id="x")
    assert policies.name_of(record) == "kinds.plan-review"


def test_a_file_with_only_default_and_channels_reads_as_before(tmp_path: Path) -> None:
    policies = load(
        tmp_path, f'[default]\napprovals = 2\n[channels.{OTHER}]\nreviewers = ["{BOB}"]\n'
    )
    assert policies.select("plan-review", None, OTHER) == f"channels.{OTHER}"
    assert policies.named("default") == ReviewPolicy(approvals=2)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            "[kinds.plan-reviw]\napprovals = 2\n",
            "kinds: Value error, unknown kind 'plan-reviw': the kinds are plan-review, "
            "tool-approval, question",
        ),
        (
            '[agents."a".kinds.tools]\napprovals = 1\n',
            "agents.a.kinds: Value error, unknown kind 'tools': the kinds are plan-review, "
            "tool-approval, question",
        ),
        (
            "[kinds.tool-approval]\napprovals = 2\n",
            "kinds: Value error, approvals count for plan reviews only, not for tool-approval",
        ),
        (
            '[kinds.question]\nexpire_after = "1h"\n',
            "kinds: Value error, expire_after count for plan reviews only, not for question",
        ),
        ("[agent.x]\napprovals = 2\n", "agent: Extra inputs are not permitted"),
        ('[agents."x"]\nreviewer = []\n', "agents.x.reviewer: Extra inputs are not permitted"),
    ],
    ids=[
        "unknown kind",
        "unknown kind of an agent",
        "approvals of a tool approval",
        "deadline of a question",
        "unknown section",
        "unknown key",
    ],
)
def test_a_file_naming_what_does_not_exist_is_refused(
    tmp_path: Path, text: str, problem: str
) -> None:
    with pytest.raises(PolicyError) as refused:
        load(tmp_path, text)
    assert str(refused.value) == f"review policy {tmp_path / 'review.toml'}: {problem}"


def test_a_copy_with_another_default_names_the_new_one(policies: ReviewPolicies) -> None:
    record = AskRecord(id="a", questions=[DB], created_at=0, policy="default")
    assert policies.of(record) == ReviewPolicy(reviewers=(CAROL,))
    copy = policies.model_copy(update={"default": ReviewPolicy(approvals=3)})
    assert copy.of(record) == ReviewPolicy(approvals=3)
