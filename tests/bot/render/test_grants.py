"""Grants in words (pure): durations, argument patterns, whose calls, agent text kept inert,
and the list within Slack's limits however many grants there are."""

from __future__ import annotations

import pytest

from bot.render.grants import covers_words, duration_words, grants_message
from bot.store import Grant
from slack_emulator import check_blocks


def grant(**changes: object) -> Grant:
    made = Grant(
        id="g1",
        tool="Bash",
        args={},
        scope="everyone",
        granted_by="U0ALICE001",
        created_at=1_700_000_000.0,
    )
    return made.model_copy(update=changes)


@pytest.mark.parametrize(
    ("seconds", "words"),
    [
        (8 * 3600, "8 hours"),
        (1800, "30 minutes"),
        (90, "1 minute and 30 seconds"),
        (86400 + 7200, "1 day and 2 hours"),
        (1, "1 second"),
    ],
)
def test_a_duration_reads_as_people_say_it(seconds: float, words: str) -> None:
    assert duration_words(seconds) == words


def test_an_exact_pattern_reads_as_is_exactly_the_value() -> None:
    made = grant(args={"command": r"re:make\ build\ \-j4"})
    assert (
        covers_words(made)
        == "*`Bash`* where `command` is exactly `make build -j4`, for every agent"
    )


def test_a_regular_expression_and_a_glob_read_as_what_they_match() -> None:
    made = grant(
        args={"command": "re:git (status|log)", "path": "docs/*"}, scope="agent", subject="ci"
    )
    assert covers_words(made) == (
        "*`Bash`* where `command` matches the regular expression `git (status|log)`, "
        "`path` matches `docs/*`, for the agent `ci`"
    )


def test_agent_text_in_a_grant_cannot_ping_or_link() -> None:
    made = grant(tool="<!channel> <https://evil.example|x>", args={"cmd": "<@U0BOB00002>"})
    words = covers_words(made)
    assert "<!channel>" not in words
    assert "<@U0BOB00002>" not in words
    assert "&lt;!channel&gt;" in words


def test_a_long_list_stays_within_a_message_and_says_how_many_are_not_shown() -> None:
    many = [grant(id=f"g{n}", args={"command": "x" * 2000}) for n in range(80)]
    content = grants_message(many)
    blocks = content.blocks_json()
    assert len(blocks) == 50
    assert check_blocks(blocks, surface="message") == []
    shown = sum(1 for b in blocks if "accessory" in b)
    assert blocks[-1]["elements"][0]["text"] == f"…and {80 - shown} more grants are not shown."
