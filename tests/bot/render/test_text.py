"""Agent text made safe and sized for Slack: escape, unescape, truncate, escaped_within, chunks."""

from __future__ import annotations

import random
import re

import pytest

from bot.render.text import ELLIPSIS, chunks, escape, escaped_within, truncate, unescape

ENTITY = re.compile(r"&(?:amp|lt|gt);")
HOSTILE = "<!channel> <!here> <@U0ALICE001> <https://evil.example|your bank> & 🚀"


def entities_whole(escaped: str) -> bool:
    """Every `&` in `escaped` starts a whole entity."""
    return all(ENTITY.match(escaped, m.start()) for m in re.finditer("&", escaped))


def random_text(rnd: random.Random, alphabet: str, longest: int) -> str:
    return "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, longest)))


# --- escape / unescape ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "escaped"),
    [
        ("&", "&amp;"),
        ("<", "&lt;"),
        (">", "&gt;"),
        ("a > b && c < d", "a &gt; b &amp;&amp; c &lt; d"),
        ("<!channel>", "&lt;!channel&gt;"),
        ("<@U0ALICE001>", "&lt;@U0ALICE001&gt;"),
        ("<https://evil.example|bank>", "&lt;https://evil.example|bank&gt;"),
        ("&amp;", "&amp;amp;"),
    ],
)
def test_escape_replaces_the_three_mrkdwn_control_characters(raw: str, escaped: str) -> None:
    assert escape(raw) == escaped


def test_escape_leaves_emoji_and_markup_characters_alone() -> None:
    assert escape("*bold* _it_ `code` ~s~ 🚀 :tada: é") == "*bold* _it_ `code` ~s~ 🚀 :tada: é"


def test_escaped_text_has_no_angle_brackets_and_only_whole_entities() -> None:
    escaped = escape(HOSTILE)
    assert "<" not in escaped
    assert ">" not in escaped
    assert entities_whole(escaped)


@pytest.mark.parametrize(
    ("slack", "typed"),
    [
        ("&lt;!channel&gt;", "<!channel>"),
        ("a &amp; b", "a & b"),
        ("&amp;amp;", "&amp;"),
        ("&amp;lt;", "&lt;"),
        ("&amp;gt;", "&gt;"),
        ("plain", "plain"),
    ],
)
def test_unescape_reads_what_a_person_typed(slack: str, typed: str) -> None:
    assert unescape(slack) == typed


def test_a_literal_amp_entity_round_trips_through_escape_and_unescape() -> None:
    assert unescape(escape("&amp;")) == "&amp;"


def test_any_text_round_trips_through_escape_and_unescape() -> None:
    rnd = random.Random(7)
    samples = [HOSTILE, "&lt;", "&gt;&amp;", "&&;;<<>>", "amp;lt;"]
    samples += [random_text(rnd, "&<>;amplgt ", 30) for _ in range(500)]
    for raw in samples:
        assert unescape(escape(raw)) == raw


# --- truncate ---------------------------------------------------------------------------------


def test_truncate_leaves_text_that_fits_alone() -> None:
    assert truncate("abcde", 5) == "abcde"


def test_truncate_cuts_to_the_limit_ending_in_an_ellipsis() -> None:
    assert truncate("abcdef", 5) == "abcd…"


def test_truncate_counts_an_emoji_as_one_character() -> None:
    assert truncate("🚀🚀🚀", 2) == "🚀…"


# --- escaped_within ---------------------------------------------------------------------------


def test_escaped_within_returns_the_whole_escaped_text_when_it_fits() -> None:
    assert escaped_within("a<b", 6) == "a&lt;b"


def test_escaped_within_measures_the_escaped_form() -> None:
    # "a<b" is 3 characters but 6 escaped: a limit of 5 cuts, and "a&lt;…" would be 6.
    assert escaped_within("a<b", 5) == "a…"


def test_escaped_within_drops_an_entity_that_would_not_fit_whole() -> None:
    assert escaped_within("ab&cd", 6) == "ab…"


def test_escaped_within_keeps_an_entity_that_fits_exactly() -> None:
    assert escaped_within("ab&cd", 8) == "ab&amp;…"


def test_escaped_within_never_splits_an_entity_and_fits_the_limit() -> None:
    rnd = random.Random(11)
    for _ in range(2000):
        raw = random_text(rnd, "ab&<> \n🚀", 40)
        limit = rnd.randint(1, 45)
        out = escaped_within(raw, limit)
        assert len(out) <= limit
        assert entities_whole(out)
        if len(escape(raw)) <= limit:
            assert out == escape(raw)
        else:
            assert out.endswith(ELLIPSIS)
            assert escape(raw).startswith(out[: -len(ELLIPSIS)])


def test_escaped_within_neutralises_pings_in_a_cut_text() -> None:
    out = escaped_within(HOSTILE * 10, 100)
    assert "<" not in out
    assert ">" not in out


# --- chunks -----------------------------------------------------------------------------------


def test_chunks_of_empty_text_are_none() -> None:
    assert chunks("", 10) == []


def test_chunks_gather_whole_lines_up_to_the_limit() -> None:
    assert chunks("one\ntwo\nthree\n", 8) == ["one\ntwo\n", "three\n"]


def test_chunks_cut_a_line_longer_than_the_limit() -> None:
    assert chunks("abcdefghij", 4) == ["abcd", "efgh", "ij"]


def test_chunks_move_a_cut_before_an_entity_it_would_split() -> None:
    assert chunks("abc&amp;def", 5) == ["abc", "&amp;", "def"]


def test_chunks_start_a_long_line_in_a_new_piece() -> None:
    assert chunks("ab\ncdefghij", 4) == ["ab\n", "cdef", "ghij"]


def test_chunks_cover_every_character_once_in_order_within_the_limit() -> None:
    rnd = random.Random(13)
    for _ in range(2000):
        escaped = escape(random_text(rnd, "ab&<> \n\r🚀", 80))
        limit = rnd.randint(5, 30)
        pieces = chunks(escaped, limit)
        assert "".join(pieces) == escaped
        assert all(0 < len(piece) <= limit for piece in pieces)
        assert all(entities_whole(piece) for piece in pieces)


def test_chunks_split_only_at_line_ends_when_every_line_fits() -> None:
    rnd = random.Random(17)
    for _ in range(1000):
        limit = rnd.randint(5, 30)
        lines = [escaped_within(random_text(rnd, "ab& <", 30), limit - 1) for _ in range(8)]
        escaped = "".join(f"{line}\n" for line in lines)
        pieces = chunks(escaped, limit)
        assert "".join(pieces) == escaped
        assert all(piece.endswith("\n") for piece in pieces)


def test_chunks_fill_each_piece_with_as_many_whole_lines_as_fit() -> None:
    assert chunks("aa\nbb\ncc\ndd\n", 6) == ["aa\nbb\n", "cc\ndd\n"]
    assert chunks("aa\nbb\ncc\ndd\n", 9) == ["aa\nbb\ncc\n", "dd\n"]


def test_chunks_ends_even_when_an_entity_is_wider_than_the_limit() -> None:
    assert chunks("ab&amp;cd", 4) == ["ab", "&amp", ";cd"]
