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
            "[kinds.question]\napprovals = 2\n",
            "kinds: Value error, approvals count for plan reviews and tool approvals only, "
            "not for question",
        ),
        (
            '[kinds.question]\nescalate_after = "1h"\n',
            "kinds.question: Value error, escalate_after and escalate_to go together: when, and to whom",
        ),
        ("[agent.x]\napprovals = 2\n", "agent: Extra inputs are not permitted"),
        ('[agents."x"]\nreviewer = []\n', "agents.x.reviewer: Extra inputs are not permitted"),
    ],
    ids=[
        "unknown kind",
        "unknown kind of an agent",
        "approvals of a question",
        "escalation without its backup",
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


# --- tool-approval rules ([[tools]]) -------------------------------------------------------

TOOL_RULES = f"""
[kinds.tool-approval]
reviewers = ["{CAROL}"]

[agents."deploy-bot".kinds.tool-approval]
reviewers = ["{ALICE}"]

[[tools]]
tool = "Bash"
args = {{ command = "git push*" }}
reviewers = ["{BOB}"]
approvals = 2

[[tools]]
tool = "mcp__deploy__*"
args = {{ dry_run = "false", target = "prod" }}
approve_in_slack = false
where = "in the change board"

[[tools]]
tool = "Bash"
requester_may_approve = true
confirm = false
"""


def tool(name: str, **given: object) -> AskUserQuestionItem:
    return AskUserQuestionItem.model_validate(
        {
            "id": "tool",
            "question": f"Allow {name}?",
            "options": [{"label": "Allow"}, {"label": "Deny"}],
            "intent": {"kind": "tool-approval", "allow": "Allow", "tool": name, "input": given},
        }
    )


@pytest.fixture
def tool_rules(tmp_path: Path) -> ReviewPolicies:
    return load(tmp_path, TOOL_RULES)


@pytest.mark.parametrize(
    ("question", "name"),
    [
        (tool("Bash", command="git push --force origin main"), "tools.0"),
        (tool("Bash", command="ls && git push"), "tools.2"),
        (tool("mcp__deploy__release", target="prod", dry_run=False), "tools.1"),
        (tool("mcp__deploy__release", target="prod", dry_run=True), "kinds.tool-approval"),
        (tool("mcp__deploy__release", target="prod"), "kinds.tool-approval"),
        (tool("mcp__deploy", target="prod", dry_run=False), "kinds.tool-approval"),
        (tool("bash", command="git push"), "kinds.tool-approval"),
        (tool("Edit", file_path="a.py"), "kinds.tool-approval"),
    ],
    ids=[
        "name and argument glob",
        "a glob matches the whole value: the next rule",
        "a non-string argument as canonical JSON",
        "an argument that does not match",
        "a missing argument does not match",
        "the glob matches the whole name",
        "names are case-sensitive",
        "no rule: the kind's policy",
    ],
)
def test_the_first_tool_rule_matching_the_tool_and_its_arguments_wins(
    tool_rules: ReviewPolicies, question: AskUserQuestionItem, name: str
) -> None:
    assert tool_rules.choose([question], None, CHANNEL) == name


def test_a_tool_rule_ranks_above_the_agents_own_tool_approval_policy(
    tool_rules: ReviewPolicies,
) -> None:
    assert tool_rules.choose([tool("Bash", command="git push")], "deploy-bot", CHANNEL) == (
        "tools.0"
    )
    assert tool_rules.choose([tool("Edit")], "deploy-bot", CHANNEL) == (
        "agents.deploy-bot.kinds.tool-approval"
    )


def test_a_nested_argument_is_matched_as_canonical_json(tmp_path: Path) -> None:
    policies = load(tmp_path, '[[tools]]\ntool = "T"\nargs = { env = \'{"a":1,"b":"x"}\' }\n')
    assert policies.choose([tool("T", env={"b": "x", "a": 1})], None, None) == "tools.0"


def test_tool_rules_never_apply_to_plans_or_questions(tool_rules: ReviewPolicies) -> None:
    assert tool_rules.choose([PLAN], None, CHANNEL) == "default"
    assert tool_rules.choose([DB], None, CHANNEL) == "default"


def test_a_tool_rule_reads_its_keys_and_defaults(tool_rules: ReviewPolicies) -> None:
    push, deploy, bash = (tool_rules.named(f"tools.{i}") for i in range(3))
    assert (push.reviewers, push.approvals, push.confirm, push.requester_may_approve) == (
        (BOB,),
        2,
        True,
        False,
    )
    assert (push.approve_in_slack, push.where) == (True, None)
    assert (deploy.approve_in_slack, deploy.where) == (False, "in the change board")
    assert (bash.confirm, bash.requester_may_approve) == (False, True)


def test_a_tool_approval_record_stored_without_a_policy_chooses_its_tool_rule_again(
    tool_rules: ReviewPolicies,
) -> None:
    record = AskRecord(
        id="a", questions=[tool("Bash", command="git push")], created_at=0, channel=CHANNEL
    )
    assert tool_rules.name_of(record) == "tools.0"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[[tools]]\ntool = 7\n", "tools.0.tool: Input should be a valid string"),
        (
            '[[tools]]\ntool = "Bash"\nargs = { timeout = 60 }\n',
            "tools.0.args.timeout: Input should be a valid string",
        ),
        ('[[tools]]\ntool = ""\n', "tools.0.tool: String should have at least 1 character"),
        ("[[tools]]\nreviewers = []\n", "tools.0.tool: Field required"),
        (
            '[[tools]]\ntool = "Bash"\nargument = {}\n',
            "tools.0.argument: Extra inputs are not permitted",
        ),
        (
            '[[tools]]\ntool = "Bash"\nreviewers = ["alice"]\n',
            "tools.0: Value error, reviewers must be user (U…/W…) or group (S…) ids, not ['alice']",
        ),
        (
            '[[tools]]\ntool = "Bash"\nremind_after = "2h"\nexpire_after = "1h"\n',
            "tools.0: Value error, remind_after must come before expire_after",
        ),
        (
            '[[tools]]\ntool = "Bash"\nwhere = "the board"\n',
            "tools.0: Value error, where says where to approve instead of Slack: set "
            "approve_in_slack = false",
        ),
        (
            '[[tools]]\ntool = "Bash"\nconfirm = "no"\n',
            "tools.0.confirm: Input should be a valid boolean",
        ),
        (
            "[default]\napprove_in_slack = false\n",
            "default: Value error, approve_in_slack count for tool approvals only: set them in "
            "[[tools]] or [kinds.tool-approval]",
        ),
        (
            "[kinds.plan-review]\napprove_in_slack = false\n",
            "kinds: Value error, approve_in_slack count for tool approvals only, not for "
            "plan-review",
        ),
        (
            "[kinds.question]\nrequester_may_approve = true\n",
            "kinds: Value error, requester_may_approve count for plan reviews and tool "
            "approvals only, not for question",
        ),
        ('[tools]\ntool = "Bash"\n', "tools: Input should be a valid tuple"),
    ],
    ids=[
        "a tool that is not a string",
        "an argument glob that is not a string",
        "an empty tool glob",
        "a rule without a tool",
        "an unknown key",
        "a bad reviewer id",
        "a deadline on a tool",
        "where without approve_in_slack = false",
        "confirm that is not a boolean",
        "approve_in_slack for every kind",
        "approve_in_slack on plans",
        "requester_may_approve on questions",
        "a table, not an array of tables",
    ],
)
def test_a_bad_tool_rule_is_refused_saying_what_is_wrong(
    tmp_path: Path, text: str, problem: str
) -> None:
    with pytest.raises(PolicyError) as refused:
        load(tmp_path, text)
    assert str(refused.value) == f"review policy {tmp_path / 'review.toml'}: {problem}"


def test_approvals_may_be_set_for_tool_approvals(tmp_path: Path) -> None:
    policies = load(
        tmp_path, "[kinds.tool-approval]\napprovals = 2\nrequester_may_approve = true\n"
    )
    assert policies.choose([TOOL], None, None) == "kinds.tool-approval"
    assert policies.named("kinds.tool-approval").approvals == 2
