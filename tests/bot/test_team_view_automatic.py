"""The team view's rows of tool calls a rule or a grant decided, and of an edited allow:
who decided is the rule or the grant, and an edit reads original → edited."""

from __future__ import annotations

from typing import Any

from bot.render.decided import when
from bot.render.team_view import command_message
from bot.store import Grant
from slack_emulator import check_blocks

from .test_team_view import ALICE, T0, answered, decision, listed

TOOL = {
    "id": "approve",
    "question": "Allow Bash: git status?",
    "options": [{"label": "Allow"}, {"label": "Deny"}],
    "intent": {
        "kind": "tool-approval",
        "allow": "Allow",
        "tool": "Bash",
        "input": {"command": "git status", "description": "Show the status"},
        "session": "s1",
    },
}
ALLOW = [{"id": "approve", "selected": ["Allow"]}]


def grant(scope: Any = "session") -> Grant:
    return Grant(
        id="g1",
        tool="Bash",
        args={"command": "git status"},
        scope=scope,
        subject="s1" if scope == "session" else None,
        granted_by=ALICE,
        created_at=T0,
        expires_at=T0 + 3600,
    )


def test_a_rules_allow_reads_allowed_by_the_rule() -> None:
    record = answered(0, TOOL, answers=ALLOW, by="rule:git-read-only")
    assert decision(record) == (
        "*Allow Bash: git status?* → *Allow*\n"
        ":white_check_mark: Allowed by rule `git-read-only`\n"
        f"{when(T0 + 30)} · from Planner"
    )


def test_a_rules_deny_reads_denied_by_the_rule_with_its_reason_as_the_answer() -> None:
    denied = [{"id": "approve", "selected": [], "custom": "force-pushing is not allowed"}]
    record = answered(0, TOOL, answers=denied, by="rule:no-force-push")
    assert decision(record) == (
        "*Allow Bash: git status?* → “force-pushing is not allowed”\n"
        ":x: Denied by rule `no-force-push`\n"
        f"{when(T0 + 30)} · from Planner"
    )


def test_a_session_grants_allow_reads_allowed_by_its_granters_session_grant() -> None:
    record = answered(0, TOOL, answers=ALLOW, by="grant:g1")
    shown = command_message([record], {}, deciders={"g1": grant()}).blocks_json()
    assert shown[4]["text"]["text"] == (
        "*Allow Bash: git status?* → *Allow*\n"
        f":white_check_mark: Allowed by <@{ALICE}>'s session grant\n"
        f"{when(T0 + 30)} · from Planner"
    )


def test_an_agent_grant_is_named_so() -> None:
    record = answered(0, TOOL, answers=ALLOW, by="grant:g1")
    shown = command_message([record], {}, deciders={"g1": grant("agent")}).blocks_json()
    assert shown[4]["text"]["text"].split("\n")[1] == (
        f":white_check_mark: Allowed by <@{ALICE}>'s agent grant"
    )


def test_a_grant_no_longer_stored_is_named_by_its_id() -> None:
    record = answered(0, TOOL, answers=ALLOW, by="grant:g1")
    assert decision(record).split("\n")[1] == ":white_check_mark: Allowed by grant `g1`"


def test_an_edited_allow_reads_each_changed_field_original_then_edited() -> None:
    edited = [
        {
            "id": "approve",
            "selected": ["Allow"],
            "updated_input": {"command": "git status -s", "description": "Show the status"},
        }
    ]
    record = answered(0, TOOL, answers=edited, by=ALICE)
    assert decision(record) == (
        "*Allow Bash: git status?* → *Allow*\n"
        "✏️ `command` edited: `git status` → `git status -s`\n"
        f":white_check_mark: Answered by <@{ALICE}>\n"
        f"{when(T0 + 30)} · from Planner"
    )


def test_an_edit_of_many_lines_shows_the_first_of_each_and_hostile_text_stays_inert() -> None:
    tool = {**TOOL, "intent": {**TOOL["intent"], "input": {"command": "ls\nrm -rf /"}}}  # type: ignore[dict-item]
    edited = [
        {"id": "approve", "selected": ["Allow"], "updated_input": {"command": "<!channel> `x`\nls"}}
    ]
    record = answered(0, tool, answers=edited, by=ALICE)
    assert decision(record).split("\n")[1] == (
        "✏️ `command` edited: `ls …` → `&lt;!channel&gt; \u02cbx\u02cb …`"
    )


def test_the_rows_pass_slacks_limits() -> None:
    records = [
        answered(0, TOOL, answers=ALLOW, by="rule:git-read-only"),
        answered(1, TOOL, answers=ALLOW, by="grant:g1"),
    ]
    blocks = command_message(records, {}, deciders={"g1": grant()}).blocks_json()
    assert check_blocks(blocks, surface="message") == []
    assert len(listed(records)) == 6
