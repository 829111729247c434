"""ANSI text for a terminal: colour and weight codes, how wide text shows, word wrapping."""

from __future__ import annotations

import re
import unicodedata
from typing import Final

# ANSI SGR pairs; each closes only what it opened, so styles nest.
BOLD: Final = ("\x1b[1m", "\x1b[22m")
DIM: Final = ("\x1b[2m", "\x1b[22m")
ITALIC: Final = ("\x1b[3m", "\x1b[23m")
UNDERLINE: Final = ("\x1b[4m", "\x1b[24m")
STRIKE: Final = ("\x1b[9m", "\x1b[29m")
CODE: Final = ("\x1b[36m", "\x1b[39m")
MENTION: Final = ("\x1b[94m", "\x1b[39m")
GREEN: Final = ("\x1b[32m", "\x1b[39m")
RED: Final = ("\x1b[31m", "\x1b[39m")

_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def visible_width(text: str) -> int:
    """Columns `text` takes in a terminal: ANSI codes take none, wide characters two."""
    width = 0
    for char in _ANSI.sub("", text):
        if unicodedata.combining(char) or char in "\ufe0f\u200d":
            continue
        width += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return width


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text)


# Markers a wrapped line hangs its continuation under: quotes, bullets, numbers, ticks.
_HANG = re.compile(r"^\s*(?:(?:│|▌|•|◦|-|\d+[.)]|\(.\)|\[.\]|\[\d+\]|✎) )*")


def wrap(text: str, width: int) -> str:
    """Word-wrap each line of `text` to `width` columns. A continuation hangs under the
    line's leading markers (a quote bar is repeated); a word wider than the line is left
    whole."""
    return "\n".join(_wrap_line(line, max(width, 10)) for line in text.split("\n"))


def _wrap_line(line: str, width: int) -> str:
    if visible_width(line) <= width:
        return line
    prefix = _HANG.match(line)
    lead = prefix.group(0) if prefix else ""
    if visible_width(lead) > width // 2:
        lead = ""
    hang = "".join(c if c in "│▌" else " " for c in lead)
    lines: list[str] = []
    current = lead
    current_width = visible_width(lead)
    empty = True
    for word in line[len(lead) :].split(" "):
        size = visible_width(word)
        if not empty and current_width + 1 + size > width:
            lines.append(current.rstrip(" "))
            current, current_width, empty = hang + word, visible_width(hang) + size, False
            continue
        current += ("" if empty else " ") + word
        current_width += size + (0 if empty else 1)
        empty = False
    lines.append(current.rstrip(" "))
    return "\n".join(lines)
