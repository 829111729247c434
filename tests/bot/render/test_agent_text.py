"""Agent text shown literally: what each formatting character becomes, what stays as typed, and
properties over generated text drawn by the playground's model of Slack's renderer."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.render.agent_text import (
    FENCE,
    code_span,
    detail_mrkdwn,
    fenced_chunks,
    literal,
    literal_within,
    one_line,
)
from bot.render.text import ELLIPSIS
from slack_emulator import EMOJI
from slack_emulator.playground.mrkdwn import Names, mrkdwn

MARKUP = re.compile(r"<(b|i|s|code|pre|blockquote|a)\b|sk-mention")
ENTITY_CUT = re.compile(r"&(a|am|amp|l|lt|g|gt)?$")

agent_text = st.lists(
    st.sampled_from(
        [
            *["*", "_", "~", "`", "```", ":", ">", "\uff1e", "<", "&", "@", "!", "|", "\n", " "],
            *["a", "b1", "x_y", "white_check_mark", "here", "U0LEAD", "https://x.example"],
            *["✅", "❌", "\ufe0f", "\u2796", "⚠", "💬", "é", "\u00a0"],
        ]
    ),
    max_size=40,
).map("".join)


def drawn(text: str) -> list[str]:
    """Formatting, links, mentions and emoji the playground draws for `text` (empty: none)."""
    html = mrkdwn(text, Names())
    return [m[0] for m in MARKUP.finditer(html)] + [
        e for e in set(EMOJI.values()) if e and e in html
    ]


# --- literal ----------------------------------------------------------------------------------


def test_formatting_characters_become_lookalikes_slack_does_not_parse() -> None:
    assert literal("*bold* _it_ ~gone~ `code`") == (
        "\u2217bold\u2217 \u02cdit\u02cd \u223cgone\u223c \u02cbcode\u02cb"
    )


def test_fullwidth_markers_become_lookalikes_too() -> None:
    assert literal("\uff0ab\uff0a \uff3fi\uff3f \uff5es\uff5e \uff40c\uff40") == (
        "\ufe61b\ufe61 \u2e0fi\u2e0f \u223cs\u223c \u02cbc\u02cb"
    )


def test_markers_inside_a_word_stay_as_typed() -> None:
    assert literal("snake_case_name 2*3 a~b") == "snake_case_name 2*3 a~b"


def test_a_quote_marker_starting_a_line_is_not_a_quote_but_one_inside_a_line_is_escaped() -> None:
    assert literal("> a\n  > b\n\uff1e c\nd > e") == "\u203a a\n  \u203a b\n\u203a c\nd &gt; e"
    assert literal("a\r> b\u2028> c") == "a\r\u203a b\u2028\u203a c"


def test_an_emoji_shortcode_loses_its_first_colon_and_plain_colons_stay() -> None:
    assert literal(":x: at 10:30, see http://host:8080") == (
        "\u2236x: at 10:30, see http://host:8080"
    )


def test_the_bots_verdict_symbols_are_spelled_out_with_their_variation_selector_dropped() -> None:
    assert literal("\u26a0\ufe0f ✅ ❌ \u2796 ⏰ 💬 🚀") == (
        "[warning] [check] [cross] [minus] [alarm clock] [speech balloon] 🚀"
    )


def test_mentions_broadcasts_and_links_are_escaped() -> None:
    assert literal("<@U1> <!here> <https://x|y> &") == (
        "&lt;@U1&gt; &lt;!here&gt; &lt;https://x|y&gt; &amp;"
    )


def test_a_bidi_control_is_shown_as_its_escape_so_it_cannot_reorder_what_follows() -> None:
    assert literal("Deploy\u202e bot\u2066") == "Deploy\\u202e bot\\u2066"
    assert code_span("id\u202e", 80) == "`id\\u202e`"


def test_literal_within_cuts_to_the_limit_between_whole_pieces() -> None:
    assert literal_within("ab&cd", 6) == "ab" + ELLIPSIS
    assert literal_within("ab&cd", 8) == "ab&amp;" + ELLIPSIS
    assert literal_within("ab&cd", 9) == "ab&amp;cd"


def test_one_line_joins_lines_and_spaces() -> None:
    assert one_line("a\n\n> b\t c", 100) == "a &gt; b c"


def test_a_code_span_cannot_be_closed_by_the_text_inside_it() -> None:
    assert code_span("a`b <c>\nd", 80) == "`a\u02cbb &lt;c&gt; d`"


@settings(max_examples=300, deadline=None)
@given(agent_text)
def test_no_agent_text_draws_any_formatting_mention_link_or_emoji(text: str) -> None:
    assert drawn(literal(text)) == []


@settings(max_examples=300, deadline=None)
@given(agent_text, st.integers(min_value=1, max_value=60))
def test_literal_within_fits_and_never_ends_in_a_broken_entity(text: str, limit: int) -> None:
    out = literal_within(text, limit)
    assert len(out) <= limit
    assert ENTITY_CUT.search(out.removesuffix(ELLIPSIS)) is None
    assert drawn(out) == []


# --- details ----------------------------------------------------------------------------------


def test_a_detail_quotes_its_text_and_keeps_its_fences_as_code() -> None:
    detail = "Plan:\n\nsteps\n```python\nx = a*b  # <ok>\n> not a quote\n```\ntail"
    assert detail_mrkdwn(detail) == (
        "> Plan:\n>\n> steps\n```\nx = a*b  # &lt;ok&gt;\n&gt; not a quote\n```\n> tail"
    )


def test_an_unclosed_fence_runs_to_the_end_and_is_closed() -> None:
    assert detail_mrkdwn("see\n```\nrm -rf *") == "> see\n```\nrm -rf *\n```"


def test_a_fence_in_the_middle_of_a_line_becomes_its_own_block() -> None:
    assert detail_mrkdwn("run ```ls *``` now") == "> run \n```\nls *\n```\n>  now"


def fence_lines(text: str) -> list[int]:
    return [i for i, line in enumerate(text.split("\n")) if line == FENCE]


def outside_fences(text: str) -> list[str]:
    lines = text.split("\n")
    marks = fence_lines(text)
    inside = {i for a, b in zip(marks[::2], marks[1::2], strict=True) for i in range(a, b + 1)}
    return [line for i, line in enumerate(lines) if i not in inside]


@settings(max_examples=300, deadline=None)
@given(agent_text, st.integers(min_value=0, max_value=80))
def test_a_cut_detail_fits_closes_every_fence_and_quotes_every_other_line(
    text: str, limit: int
) -> None:
    out = detail_mrkdwn(text, limit)
    assert len(out) <= limit
    assert len(fence_lines(out)) % 2 == 0
    rest = outside_fences(out)
    assert all(line.startswith(">") for line in rest if line)
    assert drawn("\n".join(line.removeprefix(">").removeprefix(" ") for line in rest)) == []


@settings(max_examples=200, deadline=None)
@given(agent_text, st.integers(min_value=12, max_value=60))
def test_fenced_chunks_close_and_reopen_a_block_they_cut(text: str, limit: int) -> None:
    whole = detail_mrkdwn(text * 3)
    pieces = fenced_chunks(whole, limit)
    assert all(len(piece) <= limit for piece in pieces)
    assert all(len(fence_lines(piece)) % 2 == 0 for piece in pieces)
