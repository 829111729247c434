"""Agent text shown for what it is: literal words that can never read as the bot's own.

An agent chooses its name, questions, headers, details, option labels and reasons. If that
text could carry mrkdwn, an agent could write `:white_check_mark: *Approved* by @lead` and have
it drawn in bold with the bot's own emoji, right where the bot writes its verdicts. Everything
here turns agent text into mrkdwn that renders exactly as written, minus its power to format.

Why this way:

- Slack's mrkdwn has no way to escape its formatting characters (no backslash escape; see
  docs/slack-facts.md §2). Its only entities are `&amp; &lt; &gt;` (`text.escape`), which
  stop mentions, broadcasts and links (`<@U…>`, `<!here>`, `<url|label>`) but nothing else;
  `&#42;` would show as those five characters. A zero-width space does not help either:
  Slack reads it as a word break, which *enables* bold inside a word (jsx-slack, third party,
  relies on exactly that for its "exact mode").
- `plain_text` objects would show agent text exactly, but a section holds one text object,
  so the bot could no longer set its own words (a bold header, "asks:", a code fence around a
  detail's code) beside the agent's; the buttons, option labels and input labels agent text
  reaches are `plain_text` with `emoji=False` already. `rich_text` would show it exactly too,
  but Slack refuses to update a message holding one to blocks without one (`block_mismatch`,
  docs/slack-facts.md), a constraint on every redraw of every message.
- So agent text stays mrkdwn and each character that would *start* formatting becomes the
  closest character Slack does not parse: `*` U+2217 (asterisk operator), `_` U+02CD
  (modifier low macron), `~` U+223C (tilde operator), `` ` `` U+02CB (modifier grave), the
  first `:` of an emoji shortcode U+2236 (ratio), and a `>` (or U+FF1E, which Slack also
  quotes) that starts a line U+203A (single angle quotation mark); their fullwidth forms too. `*`, `_` and `~` between
  two ASCII letters or digits stay as typed (`snake_case`, `2*3`): Slack does not format
  inside a word (jsx-slack's `Super_cali_fragilistic` example). The result reads as the agent
  wrote it. Measured in the playground's model of Slack's renderer
  (`slack_emulator/playground/mrkdwn.py`; a model, not Slack itself): no bold, italics,
  strike, code, quote, mention or emoji survives (tests/bot/render/test_agent_text.py).
- The symbols the bot starts its verdict lines with (✅ ❌ heavy minus ⏰ ⚠️ 💬 🤖 📋 and
  their relatives) are spelled out as words in brackets (`[check]`) wherever agent text
  shows, so agent text cannot draw a verdict line; and agent text that sits inside a line the
  bot writes is kept on that line (`one_line`), while a detail's lines are quoted
  (`detail_mrkdwn`). A bidi control (U+202E…) is shown as its escape (`\\u202e`), as
  `bot.render.revealed` shows it: it would otherwise reorder the bot's words that follow it.
- A detail is the agent's long-form text and often holds code: its ``` fences stay code
  blocks (nothing renders inside one, so only `& < >` are escaped there and the code copies
  exactly), and only the lines outside fences are quoted, so no quote marker lands inside code.
"""

from __future__ import annotations

import re
from typing import Final

from bot.render.revealed import BIDI_CONTROLS
from bot.render.text import ELLIPSIS, chunks, cut_escaped, escape

FENCE: Final = "```"

# Formatting characters and the lookalikes Slack does not parse (see the module docstring).
_SWAPS: Final = {
    "*": "\u2217",
    "_": "\u02cd",
    "~": "\u223c",
    "`": "\u02cb",
    # Their fullwidth forms, which Slack may read as markers too (jsx-slack swaps them).
    "\uff0a": "\ufe61",
    "\uff3f": "\u2e0f",
    "\uff5e": "\u223c",
    "\uff40": "\u02cb",
}
_FLANKED: Final = frozenset("*_~")  # kept as typed between two ASCII letters or digits
_COLON: Final = "\u2236"
_QUOTE_MARKS: Final = frozenset(">\uff1e")
_NOT_A_QUOTE: Final = "\u203a"
# `:name:` as Slack spells emoji (custom ones may use any letters, `.`, `'`, `+` and `-`).
_SHORTCODE: Final = re.compile(r":[\w+\-'.]+:")
_VARIATION: Final = "\ufe0f"
# Where a line may start for a reader (`\r` too: Slack draws it as a line break).
_LINE_BREAKS: Final = frozenset("\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")

BOT_SYMBOLS: Final[dict[str, str]] = {
    "\u2705": "[check]",  # white_check_mark
    "\u2611": "[check]",
    "\u2713": "[check]",
    "\u2714": "[check]",  # heavy_check_mark
    "\u274c": "[cross]",  # x
    "\u274e": "[cross]",
    "\u2716": "[cross]",
    "\u2717": "[cross]",
    "\u2718": "[cross]",
    "\u2796": "[minus]",  # heavy_minus_sign
    "\u23f0": "[alarm clock]",  # alarm_clock
    "\u23f3": "[hourglass]",  # hourglass_flowing_sand
    "\u231b": "[hourglass]",
    "\u26a0": "[warning]",  # warning
    "\U0001f4ac": "[speech balloon]",  # speech_balloon
    "\U0001f916": "[robot]",  # robot_face
    "\U0001f4cb": "[clipboard]",  # clipboard
    "\U0001f512": "[lock]",  # lock
    "\u26d4": "[no entry]",
    "\U0001f6ab": "[no entry]",
}
"""The symbols the bot's own lines start with, and how agent text shows them instead."""


def literal(text: str) -> str:
    """`text` as mrkdwn that renders exactly as written: no formatting, mention, link or emoji."""
    return "".join(_pieces(text))


def literal_within(text: str, limit: int) -> str:
    """`literal(text)`, cut (ending in an ellipsis) so it fits `limit` characters."""
    pieces = _pieces(text)
    out: list[str] = []
    size = 0
    total = sum(len(piece) for piece in pieces)
    if total <= limit:
        return "".join(pieces)
    for piece in pieces:
        if size + len(piece) > limit - 1:
            break
        out.append(piece)
        size += len(piece)
    return "".join(out) + ELLIPSIS


def one_line(text: str, limit: int) -> str:
    """Agent text on a single line (whitespace runs become one space), literal and cut to fit.

    For names, headers and reasons that sit inside a line the bot writes: a line break there
    would let agent text start a line of its own."""
    return literal_within(" ".join(text.split()), limit)


def code_span(text: str, limit: int) -> str:
    """Agent text (an id) as inline code on one line; a backtick in it cannot close the span."""
    inner = "".join(
        _spelled(char) if char in BIDI_CONTROLS else escape(char) for char in " ".join(text.split())
    ).replace("`", _SWAPS["`"])
    return f"`{cut_escaped(inner, limit - 2)}`"


def detail_mrkdwn(detail: str, limit: int | None = None) -> str:
    """A question's detail: its code fences as code blocks, every other line quoted, literal.

    Cut to `limit` characters (None: all of it) with any open code block closed, so a cut can
    never leave agent text inside an unclosed fence, where it would render as mrkdwn."""
    lines: list[str] = []
    size = -1  # the length of "\n".join(lines)

    def room() -> int:
        return limit - size - 1 if limit is not None else 1 << 60

    def add(line: str) -> None:
        nonlocal size
        lines.append(line)
        size += len(line) + 1

    for is_code, body in _segments(detail):
        if is_code:
            if room() < 2 * len(FENCE) + 3:
                return _ended(lines, limit)
            add(FENCE)
            for line in body.split("\n"):
                shown = escape(line)
                avail = room() - len(FENCE) - 1  # always leave room to close the block
                if len(shown) > avail:
                    if avail >= 1:
                        add(cut_escaped(shown, avail))
                    add(FENCE)
                    return "\n".join(lines)
                add(shown)
            add(FENCE)
        else:
            for line in body.split("\n"):
                shown = f"> {literal(line)}" if line.strip() else ">"
                if len(shown) > room():
                    if room() >= 4:
                        add(f"> {literal_within(line, room() - 2)}")
                        return "\n".join(lines)
                    return _ended(lines, limit)
                add(shown)
    return "\n".join(lines)


def fenced_chunks(text: str, limit: int) -> list[str]:
    """`text.chunks` for mrkdwn holding whole-line ``` fences: a code block cut between two
    pieces is closed at the end of one and reopened at the start of the next."""
    reserve = 2 * (len(FENCE) + 1)
    pieces: list[str] = []
    in_code = False
    for piece in chunks(text, limit - reserve):
        shown = f"{FENCE}\n{piece}" if in_code else piece
        for line in piece.split("\n"):
            if line == FENCE:
                in_code = not in_code
        if in_code:
            shown += FENCE if shown.endswith("\n") else f"\n{FENCE}"
        pieces.append(shown)
    return pieces


def _pieces(text: str) -> list[str]:
    # One piece per character of `text`, so a cut between pieces never splits an entity.
    pieces: list[str] = []
    line_start = True
    for i, char in enumerate(text):
        if char in BOT_SYMBOLS:
            piece = BOT_SYMBOLS[char]
        elif char in BIDI_CONTROLS:
            piece = _spelled(char)
        elif char == _VARIATION and i > 0 and text[i - 1] in BOT_SYMBOLS:
            piece = ""
        elif char in _FLANKED and _inside_word(text, i):
            piece = char
        elif char in _SWAPS:
            piece = _SWAPS[char]
        elif char == ":" and _SHORTCODE.match(text, i):
            piece = _COLON
        elif char in _QUOTE_MARKS and line_start:
            piece = _NOT_A_QUOTE
        else:
            piece = escape(char)
        pieces.append(piece)
        if char in _LINE_BREAKS:
            line_start = True
        elif not char.isspace():
            line_start = False
    return pieces


def _spelled(char: str) -> str:
    # A bidi control would reorder the bot's own words after it: show it as its escape.
    return f"\\u{ord(char):04x}"


def _inside_word(text: str, i: int) -> bool:
    return 0 < i < len(text) - 1 and _word_char(text[i - 1]) and _word_char(text[i + 1])


def _word_char(char: str) -> bool:
    return char.isascii() and char.isalnum()


def _segments(detail: str) -> list[tuple[bool, str]]:
    """The detail split at ``` fences: (is code, body), blank pieces left out. An unclosed
    fence runs to the end, as it would for a reader; a code block's first line naming its
    language (```python) is dropped, since Slack would show it as code."""
    out: list[tuple[bool, str]] = []
    for index, part in enumerate(detail.split(FENCE)):
        is_code = index % 2 == 1
        if is_code:
            first, newline, rest = part.partition("\n")
            if newline and re.fullmatch(r"[\w+#.-]*", first):
                part = rest
            body = part.rstrip("\n")
        else:
            body = part.strip("\n")
        if body.strip():
            out.append((is_code, body))
    return out


def _ended(lines: list[str], limit: int | None) -> str:
    # Out of room between two lines: mark the cut on the last line that fits.
    text = "\n".join(lines)
    if not lines or lines[-1] == FENCE:
        return f"{text}\n>{ELLIPSIS}" if limit is None or len(text) + 3 <= limit else text
    return text + ELLIPSIS if limit is None or len(text) < limit else text
