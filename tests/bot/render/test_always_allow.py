"""The "Always allow" proposal, pure: the exact pattern of a value matches it and nothing
else, reads back as that value, and the modal passes Slack's limits."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from pydantic import JsonValue

from bot.render.always_allow import (
    always_modal,
    exact_pattern,
    literal_of,
    pattern_words,
    propose,
)
from bot.review import pattern_matches
from slack_emulator.block_checks import check_blocks

texts = st.text(max_size=40)


@given(texts)
def test_the_exact_pattern_of_a_value_matches_that_value(value: str) -> None:
    assert pattern_matches(exact_pattern(value), value)


@given(texts, texts)
def test_the_exact_pattern_of_a_value_matches_no_other_value(value: str, other: str) -> None:
    if other != value:
        assert not pattern_matches(exact_pattern(value), other)


@given(texts)
def test_the_exact_pattern_reads_back_as_its_value(value: str) -> None:
    assert literal_of(exact_pattern(value)) == value


def test_a_widened_pattern_is_worded_as_a_regular_expression() -> None:
    assert pattern_words("re:git status( .*)?") == (
        "matches the regular expression `git status( .*)?` (whole value)"
    )


def test_a_glob_is_worded_as_a_glob() -> None:
    assert pattern_words("git status*") == "matches the glob `git status*` (whole value)"


def test_the_proposal_is_named_for_the_tool_and_three_words_of_its_first_field() -> None:
    proposal = propose("Bash", {"command": "git status --short", "timeout": 5}, "ci/s1")
    assert (proposal.name, proposal.args, proposal.scope) == (
        "bash-git-status-short",
        {"command": "re:git status --short", "timeout": "re:5"},
        "agent",
    )


def test_the_modal_passes_slacks_limits() -> None:
    tool_input: dict[str, JsonValue] = {"command": "echo 'a\nb' && ls *.py", "timeout": 5}
    view = always_modal("a1", propose("Bash", tool_input, "ci/s1"), tool_input, "ci/s1")
    assert check_blocks(view.to_dict()["blocks"], surface="modal") == []
