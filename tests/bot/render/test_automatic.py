"""The thread line of an automatic decision: the call in one inert line, who decided, and a
context block that passes Slack's limits."""

from __future__ import annotations

from typing import Any

from bot.outcomes import Verdict
from bot.render.automatic import automatic_line, call_summary
from bot.store import AskRecord, AskState, Grant
from provider import AskUserQuestionAnswer, AskUserQuestionItem, ToolApprovalIntent
from slack_emulator import check_blocks

T0 = 1_700_000_000.0


def intent(tool: str | None = "Bash", **given: Any) -> ToolApprovalIntent:
    return ToolApprovalIntent(allow="Allow", tool=tool, input=given or None, session="s1")


def decided(by: str, selected: list[str], custom: str | None = None) -> AskRecord:
    question = AskUserQuestionItem(
        id="approve",
        question="Allow Bash?",
        options=[{"label": "Allow"}, {"label": "Deny"}],
        intent=intent(command="git status"),
    )
    answer = {"answers": [{"id": "approve", "selected": selected, "custom": custom}]}
    return AskRecord(
        id="a1",
        questions=[question],
        created_at=T0,
        state=AskState.ANSWERED,
        verdict=Verdict.ANSWERED,
        answer=AskUserQuestionAnswer.model_validate(answer),
        decided_by=by,
        decided_at=T0,
    )


def test_the_summary_is_the_tool_and_its_command_as_inline_code() -> None:
    assert call_summary(intent(command="git status -s")) == "Bash `git status -s`"


def test_the_summary_of_a_file_tool_is_its_path() -> None:
    assert call_summary(intent("Edit", file_path="docs/a.md", old_string="x")) == (
        "Edit `docs/a.md`"
    )


def test_an_input_without_a_telling_field_is_summarised_field_by_field() -> None:
    assert call_summary(intent("mcp__db__query", limit=5, dry=True)) == (
        "`mcp__db__query` `limit=5, dry=true`"
    )


def test_a_command_of_several_lines_shows_its_first_and_says_there_is_more() -> None:
    assert call_summary(intent(command="cd app\nmake")) == "Bash `cd app …`"


def test_a_long_command_is_cut_to_eighty_characters() -> None:
    summary = call_summary(intent(command="x" * 200))
    assert summary == f"Bash `{'x' * 77}…`"


def test_hostile_text_in_the_call_cannot_mention_or_close_the_code_span() -> None:
    assert call_summary(intent("<!here>", command="`<@U1>` *b*")) == (
        "&lt;!here&gt; `\u02cb&lt;@U1&gt;\u02cb *b*`"
    )


def test_a_call_with_no_input_is_its_tool_alone() -> None:
    assert call_summary(intent()) == "Bash"


def test_a_person_s_decision_has_no_line() -> None:
    assert automatic_line(decided("U0ALICE001", ["Allow"])) is None


def test_a_grant_for_everyone_without_expiry_says_so() -> None:
    grant = Grant(id="g1", tool="Bash", scope="everyone", granted_by="U0ALICE001", created_at=T0)
    line = automatic_line(decided("grant:g1", ["Allow"]), grant)
    assert line is not None
    assert line.text == "✅ auto-allowed by U0ALICE001's grant for everyone: Bash `git status`"


def test_a_granter_is_named_by_their_slack_name_as_plain_text() -> None:
    grant = Grant(id="g1", tool="Bash", scope="agent", granted_by="U0ALICE001", created_at=T0)
    line = automatic_line(decided("grant:g1", ["Allow"]), grant, "<!channel> *al*")
    assert line is not None
    assert line.text == (
        "✅ auto-allowed by @&lt;!channel&gt; \u2217al\u2217's grant for this agent: Bash `git status`"
    )


def test_a_purged_grant_is_named_by_its_id() -> None:
    line = automatic_line(decided("grant:g1", ["Allow"]))
    assert line is not None
    assert line.text == "✅ auto-allowed by grant `g1`: Bash `git status`"


def test_the_line_is_one_context_block_within_slacks_limits() -> None:
    line = automatic_line(decided("rule:no-force-push", [], "x" * 600))
    assert line is not None
    blocks = line.blocks_json()
    assert [b["type"] for b in blocks] == ["context"]
    assert check_blocks(blocks, surface="message") == []
    assert line.text == f"❌ auto-denied by rule `no-force-push`: {'x' * 199}… · Bash `git status`"
