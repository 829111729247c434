"""ansi: how wide text shows in a terminal, and wrapping that keeps its markers."""

from __future__ import annotations

from slack_emulator.terminal.ansi import visible_width, wrap


def test_wrapping_hangs_under_quote_bars_and_keeps_long_words_whole() -> None:
    assert wrap("│ one two three four five six", 14) == "│ one two\n│ three four\n│ five six"
    assert wrap("x https://example.com/a/very/long/path y", 12) == (
        "x\nhttps://example.com/a/very/long/path\ny"
    )
    assert visible_width("\x1b[1m[1]\x1b[22m 🤖") == 6
