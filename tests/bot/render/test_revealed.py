"""Characters that lie, shown for what they are: reveal and unreveal."""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from bot.render.revealed import Revealed, reveal, unreveal

LYING_CATEGORIES = {"Cc", "Cf", "Co", "Cn", "Zl", "Zp", "Cs"}


def lies(text: str) -> list[str]:
    """The characters of `text` that `reveal` must never leave in place."""
    return [c for c in text if c != "\n" and unicodedata.category(c) in LYING_CATEGORIES]


def test_right_to_left_override_is_escaped_and_named() -> None:
    assert reveal("echo safe\u202e; rm -rf ~") == Revealed(
        "echo safe\\u202e; rm -rf ~",
        ("1 bidirectional control character (U+202E) — shown as \\u202e",),
    )


def test_bidi_isolates_are_counted_together_with_overrides() -> None:
    assert reveal("a\u202eb\u2066c\u2066") == Revealed(
        "a\\u202eb\\u2066c\\u2066",
        ("3 bidirectional control characters (U+202E, U+2066) — shown as \\u202e, \\u2066",),
    )


def test_zero_width_space_is_escaped_and_named() -> None:
    assert reveal("git\u200b push") == Revealed(
        "git\\u200b push", ("1 zero-width character (U+200B) — shown as \\u200b",)
    )


def test_carriage_return_is_shown_as_backslash_r_with_how_bash_reads_it() -> None:
    assert reveal("echo ok\rrm -rf /") == Revealed(
        "echo ok\\rrm -rf /",
        ("1 carriage return (\\r): bash reads it as part of the line, not a line break",),
    )


def test_cyrillic_homoglyph_in_a_latin_word_is_escaped_and_named() -> None:
    assert reveal("g\u0456t push") == Revealed(
        "g\\u0456t push",
        ("mixed scripts in `g\u0456t`: \u0456 is CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I",),
    )


def test_plain_ascii_command_is_unchanged_with_no_warnings() -> None:
    command = "printf 'a\\tb\\u00e9\\n' | grep -v x && git push origin main"
    assert reveal(command) == Revealed(command, ())


def test_newline_is_kept_as_a_line_break() -> None:
    assert reveal("make\nmake test") == Revealed("make\nmake test", ())


def test_emoji_are_not_flagged() -> None:
    assert reveal("ship it 🚀 👍🏽") == Revealed("ship it 🚀 👍🏽", ())


def test_whole_cyrillic_word_is_not_flagged() -> None:
    assert reveal("echo привет мир") == Revealed("echo привет мир", ())


def test_japanese_mixing_kanji_hiragana_and_katakana_is_not_flagged() -> None:
    assert reveal("echo 日本語のテキストー") == Revealed("echo 日本語のテキストー", ())


def test_digits_do_not_make_a_word_mixed() -> None:
    assert reveal("echo \u0444\u0430\u0439\u043b2 v2") == Revealed(
        "echo \u0444\u0430\u0439\u043b2 v2", ()
    )


def test_tie_between_latin_and_another_script_escapes_the_non_latin_letter() -> None:
    assert reveal("a\u03bf").text == "a\\u03bf"


def test_astral_format_character_uses_the_eight_digit_escape() -> None:
    assert reveal("x\U000e0041").text == "x\\U000e0041"


def test_literal_backslash_before_u_is_doubled_when_text_needed_escapes() -> None:
    assert reveal("\\u202e\u202e") == Revealed(
        "\\\\u202e\\u202e",
        (
            "1 bidirectional control character (U+202E) — shown as \\u202e",
            "1 literal backslash shown as \\\\, so it is not read as one of these escapes",
        ),
    )


def test_literal_backslash_before_an_escape_is_doubled() -> None:
    assert reveal("\\\u202e").text == "\\\\\\u202e"


def test_literal_backslash_before_other_letters_is_kept_when_text_needed_escapes() -> None:
    assert reveal("\\n\u200b").text == "\\n\\u200b"


def test_unreveal_gives_back_the_literal_and_the_escaped_override() -> None:
    assert [unreveal(reveal(t)) for t in ("\\u202e", "\u202e", "\\\u202e", "\\u202e\u202e")] == [
        "\\u202e",
        "\u202e",
        "\\\u202e",
        "\\u202e\u202e",
    ]


TRICKY = st.sampled_from(
    [
        "\\",
        "u",
        "U",
        "r",
        "t",
        "\r",
        "\t",
        "\n",
        "\u202e",
        "\u200b",
        "\u0456",
        "g",
        "\u03bf",
        "0",
        "\ue000",
    ]
)
ANY_TEXT = st.text(st.one_of(TRICKY, st.characters()), max_size=40)


@given(ANY_TEXT)
def test_revealed_text_holds_no_lying_character(text: str) -> None:
    assert lies(reveal(text).text) == []


@given(ANY_TEXT)
def test_original_is_recoverable_from_what_is_shown(text: str) -> None:
    assert unreveal(reveal(text)) == text


@given(ANY_TEXT)
def test_warnings_are_empty_exactly_when_text_is_unchanged(text: str) -> None:
    revealed = reveal(text)
    assert (revealed.warnings == ()) == (revealed.text == text)
