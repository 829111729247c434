"""The edit modals of tool approvals and plan reviews, reading them back, and the edit shown
as original → edited (issue 25)."""

from __future__ import annotations

from typing import Any

from pydantic import JsonValue

from bot.payloads import ElementState, StateValues
from bot.render.edit_input import (
    edit_sections,
    plan_edit_modal,
    read_plan_edit,
    read_tool_edit,
    tool_edit_modal,
)
from slack_emulator import check_view

RUN: dict[str, JsonValue] = {"command": "make test", "timeout": 60000, "env": {"CI": "1"}}


def inputs(view: dict[str, Any]) -> list[tuple[str, str, bool, str | None]]:
    return [
        (
            b["block_id"],
            b["label"]["text"],
            b["element"].get("multiline", False),
            b["element"].get("initial_value"),
        )
        for b in view["blocks"]
        if b["type"] == "input"
    ]


def typed(**by_block: str) -> StateValues:
    return {
        block: {"sq_input": ElementState(type="plain_text_input", value=text)}
        for block, text in by_block.items()
    }


def test_each_field_is_an_input_prefilled_with_its_exact_value_json_for_non_strings() -> None:
    view = tool_edit_modal("a1", "Bash", RUN, "Allow").to_dict()
    assert check_view(view) == []
    assert inputs(view) == [
        ("sq~edit.1", "1. command", True, "make test"),
        ("sq~edit.2", "2. timeout", False, "60000"),
        ("sq~edit.3", "3. env", True, '{\n  "CI": "1"\n}'),
    ]
    assert all(b["element"]["max_length"] == 3000 for b in view["blocks"] if b["type"] == "input")


def test_a_value_over_3000_characters_is_not_offered_and_the_modal_says_so() -> None:
    view = tool_edit_modal("a1", "Write", {"file_path": "a", "content": "x" * 3001}, "Allow")
    blob = view.to_dict()
    assert check_view(blob) == []
    assert [i[0] for i in inputs(blob)] == ["sq~edit.1"]
    [note] = [b for b in blob["blocks"] if b["block_id"] == "sq~edit.fixed"]
    assert note["elements"][0]["text"] == (
        "Not editable in Slack (over 3,000 characters, or too many fields for one form), so it "
        "runs as the agent sent it: 2. `content` (3,001 characters)"
    )


def test_reading_back_keeps_every_field_and_parses_json_fields() -> None:
    read = read_tool_edit(
        RUN, typed(**{"sq~edit.1": "make check", "sq~edit.2": "90000", "sq~edit.3": '{"CI":"0"}'})
    )
    assert (read.value, read.errors) == (
        {"command": "make check", "timeout": 90000, "env": {"CI": "0"}},
        {},
    )


def test_a_type_change_is_an_error_on_that_fields_block_naming_the_expected_type() -> None:
    read = read_tool_edit(
        RUN, typed(**{"sq~edit.1": "make", "sq~edit.2": "true", "sq~edit.3": "[1]"})
    )
    assert read.value is None
    assert read.errors == {
        "sq~edit.2": "“timeout” must stay a number, as the agent sent it: this is true or false.",
        "sq~edit.3": "“env” must stay a JSON object, as the agent sent it: this is a JSON list.",
    }


def test_an_unchanged_input_is_refused_as_nothing_edited() -> None:
    read = read_tool_edit(
        RUN, typed(**{"sq~edit.1": "make test", "sq~edit.2": "60000", "sq~edit.3": '{"CI": "1"}'})
    )
    assert read.errors == {
        "sq~edit.1": "Nothing was edited: change a field, or go back and allow it as asked."
    }


def test_an_empty_string_field_reads_as_the_empty_string() -> None:
    read = read_tool_edit(
        {"command": "ls", "cwd": "/tmp"}, typed(**{"sq~edit.1": "ls", "sq~edit.2": ""})
    )
    assert read.value == {"command": "ls", "cwd": ""}


def test_the_plan_modal_holds_the_whole_plan_and_reads_back_the_amendment() -> None:
    view = plan_edit_modal("a1", "1. a\n2. b", "Approve").to_dict()
    assert check_view(view) == []
    assert inputs(view) == [("sq~edit.plan", "The plan", True, "1. a\n2. b")]
    assert read_plan_edit("1. a\n2. b", typed(**{"sq~edit.plan": "1. a\n2. c"})).value == {
        "plan": "1. a\n2. c"
    }
    assert read_plan_edit("1. a", typed(**{"sq~edit.plan": "  "})).errors == {
        "sq~edit.plan": "The plan cannot be empty."
    }


def test_only_changed_fields_are_shown_one_line_values_as_two_boxes() -> None:
    assert edit_sections(RUN, {**RUN, "timeout": 1}) == [
        "✏️ *2.* `timeout` edited: original\n```\n60000\n```\nedited\n```\n1\n```"
    ]


def test_agent_text_in_the_diff_is_escaped_revealed_and_cannot_close_the_box() -> None:
    [section] = edit_sections({"command": "ls"}, {"command": "<!channel> ```x\u202e"})
    assert section == (
        "✏️ *1.* `command` edited: original\n```\nls\n```\nedited\n"
        "```\n&lt;!channel&gt; `\u200b`\u200b`x\\u202e\n```"
    )
