"""Characters that lie, shown for what they are: agent text with its invisible tricks escaped.

A tool-approval card shows a command a person is asked to allow. Bidi overrides (U+202E),
zero-width characters, a carriage return (which bash reads as part of the line, while Slack
draws a line break) and homoglyphs (Cyrillic U+0456 in `git`) make that command read as
something it is not. `reveal` replaces each such character with a visible escape and says, in
one warning line per kind, what was found.

Escape scheme (unambiguous; `unreveal` inverts it):

- A lying character becomes `\\r` (carriage return), `\\t` (tab), `\\uXXXX` (4 lowercase hex
  digits, code points up to U+FFFF) or `\\UXXXXXXXX` (8 lowercase hex digits, beyond). `\\n`
  is a real line break and is kept.
- A letter of a mixed-script word that is not of the word's majority script is escaped the
  same way (`g\\u0456t`).
- Text that needs no escape is returned unchanged, with no warnings, so an ordinary command
  such as `printf 'a\\tb'` reads exactly as typed.
- Text that needs any escape also doubles every literal backslash whose next *shown* character
  is `u`, `U`, `r`, `t` or a backslash (including the backslash that starts one of our escapes),
  and says so in a warning. So in shown text, `\\\\` is a literal backslash, `\\` followed by
  `u`/`U`/`r`/`t` is our escape, and any other `\\` is a literal backslash.

The shown text alone cannot tell "unchanged" from "escaped" (plain text must stay itself, so
the literal text `\\u202e` and an escaped U+202E show alike); the warnings can: they are
non-empty exactly when something was escaped, and each names what it replaced.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from dataclasses import dataclass
from enum import Enum

BIDI_CONTROLS = frozenset(
    [chr(c) for c in range(0x202A, 0x202F)]
    + [chr(c) for c in range(0x2066, 0x206A)]
    + ["\u200e", "\u200f", "\u061c"]
)
ZERO_WIDTH = frozenset(["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"])
# Categories no honest command needs to show as themselves: controls, format characters,
# private use, unassigned, line/paragraph separators, and (defensively) lone surrogates.
LYING_CATEGORIES = frozenset(["Cc", "Cf", "Co", "Cn", "Zl", "Zp", "Cs"])
KEPT = frozenset(["\n"])
ESCAPE_LETTERS = frozenset("uUrt\\")

# Scripts that are written together in one word (Japanese mixes kanji, hiragana and katakana;
# Korean may mix hangul and hanja), so mixing them is ordinary and not a homoglyph trick.
EAST_ASIAN = "HAN"
EAST_ASIAN_NAMES = frozenset(
    ["CJK", "HIRAGANA", "KATAKANA", "KATAKANA-HIRAGANA", "IDEOGRAPHIC", "HANGUL", "BOPOMOFO"]
)
LATIN = "LATIN"


class Kind(Enum):
    """What a lying character is, in the order warnings are listed."""

    BIDI = "bidirectional control character"
    ZERO_WIDTH = "zero-width character"
    CARRIAGE_RETURN = "carriage return"
    TAB = "tab"
    CONTROL = "control character"
    FORMAT = "invisible format character"
    PRIVATE_USE = "private-use character"
    UNASSIGNED = "unassigned code point"
    SEPARATOR = "line or paragraph separator"
    SURROGATE = "lone surrogate"


CATEGORY_KINDS = {
    "Cc": Kind.CONTROL,
    "Cf": Kind.FORMAT,
    "Co": Kind.PRIVATE_USE,
    "Cn": Kind.UNASSIGNED,
    "Zl": Kind.SEPARATOR,
    "Zp": Kind.SEPARATOR,
    "Cs": Kind.SURROGATE,
}


@dataclass(frozen=True)
class Revealed:
    """Text with its lying characters escaped, and one warning line per kind found.

    `warnings` is empty exactly when `text` is the input unchanged.
    """

    text: str
    warnings: tuple[str, ...] = ()

    @property
    def escaped(self) -> bool:
        """Whether `text` uses the escape scheme (else it is the input verbatim)."""
        return bool(self.warnings)


def reveal(text: str) -> Revealed:
    """`text` with every lying character and homoglyph escaped, and what was found."""
    replaced: dict[int, str] = {}
    found: dict[Kind, list[str]] = {}
    for i, ch in enumerate(text):
        kind = lying_kind(ch)
        if kind is not None:
            replaced[i] = escape_char(ch)
            found.setdefault(kind, []).append(ch)
    mixed = mixed_script_words(text)
    for _, odd in mixed:
        for i in odd:
            replaced[i] = escape_char(text[i])
    if not replaced:
        return Revealed(text)

    shown: list[str] = []
    doubled = 0
    for i, ch in enumerate(text):
        if i in replaced:
            shown.append(replaced[i])
        elif ch == "\\" and next_shown(text, i + 1, replaced) in ESCAPE_LETTERS:
            shown.append("\\\\")
            doubled += 1
        else:
            shown.append(ch)

    warnings = [kind_warning(kind, chars) for kind, chars in sorted_found(found)]
    for word, odd in mixed:
        warnings.append(mixed_warning(text, word, odd))
    if doubled:
        noun = "backslash" if doubled == 1 else "backslashes"
        warnings.append(
            f"{doubled} literal {noun} shown as \\\\, so it is not read as one of these escapes"
        )
    return Revealed("".join(shown), tuple(warnings))


def unreveal(revealed: Revealed) -> str:
    """The original text back from what `reveal` made of it (the scheme is one-to-one)."""
    if not revealed.escaped:
        return revealed.text
    shown = revealed.text
    out: list[str] = []
    i = 0
    while i < len(shown):
        ch = shown[i]
        nxt = shown[i + 1] if i + 1 < len(shown) else ""
        if ch != "\\" or nxt not in ESCAPE_LETTERS:
            out.append(ch)
            i += 1
        elif nxt == "\\":
            out.append("\\")
            i += 2
        elif nxt == "r":
            out.append("\r")
            i += 2
        elif nxt == "t":
            out.append("\t")
            i += 2
        else:
            width = 4 if nxt == "u" else 8
            out.append(chr(int(shown[i + 2 : i + 2 + width], 16)))
            i += 2 + width
    return "".join(out)


def lying_kind(ch: str) -> Kind | None:
    """Which kind of lying character `ch` is, or None when it shows as itself."""
    if ch in KEPT:
        return None
    if ch in BIDI_CONTROLS:
        return Kind.BIDI
    if ch in ZERO_WIDTH:
        return Kind.ZERO_WIDTH
    if ch == "\r":
        return Kind.CARRIAGE_RETURN
    if ch == "\t":
        return Kind.TAB
    return CATEGORY_KINDS.get(unicodedata.category(ch))


def escape_char(ch: str) -> str:
    """The visible escape for one character."""
    if ch == "\r":
        return "\\r"
    if ch == "\t":
        return "\\t"
    code = ord(ch)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def next_shown(text: str, i: int, replaced: dict[int, str]) -> str:
    """The first character shown for `text[i]` (escapes and backslashes start with `\\`)."""
    if i >= len(text):
        return ""
    if i in replaced:
        return "\\"
    return text[i]


def script_of(ch: str) -> str | None:
    """The script of a letter, from its Unicode name; None for digits and marks (neutral)."""
    if not unicodedata.category(ch).startswith("L"):
        return None
    words = unicodedata.name(ch, "UNKNOWN").split()
    first = words[0]
    if first == "HALFWIDTH" and len(words) > 1 and words[1] in EAST_ASIAN_NAMES:
        first = words[1]
    return EAST_ASIAN if first in EAST_ASIAN_NAMES else first


def is_word_char(ch: str) -> bool:
    """Letters, digits and combining marks make up a word."""
    return unicodedata.category(ch)[0] in "LNM"


def mixed_script_words(text: str) -> list[tuple[tuple[int, int], list[int]]]:
    """Each word mixing scripts, as its (start, end) span and the indices of its odd letters."""
    mixed: list[tuple[tuple[int, int], list[int]]] = []
    i = 0
    while i < len(text):
        if not is_word_char(text[i]):
            i += 1
            continue
        start = i
        while i < len(text) and is_word_char(text[i]):
            i += 1
        scripts = {j: s for j in range(start, i) if (s := script_of(text[j])) is not None}
        counts = Counter(scripts.values())
        if len(counts) > 1:
            # Majority script; on a tie Latin wins, so the non-Latin letters are the odd ones.
            major = max(counts, key=lambda s: (counts[s], s == LATIN, s))
            odd = [j for j, s in scripts.items() if s != major]
            mixed.append(((start, i), odd))
    return mixed


def sorted_found(found: dict[Kind, list[str]]) -> list[tuple[Kind, list[str]]]:
    """The kinds found, in the fixed order of `Kind`."""
    return [(kind, found[kind]) for kind in Kind if kind in found]


def kind_warning(kind: Kind, chars: list[str]) -> str:
    """One warning line: how many of a kind, which code points, and how they are shown."""
    count = len(chars)
    noun = kind.value if count == 1 else plural(kind.value)
    if kind is Kind.CARRIAGE_RETURN:
        return f"{count} {noun} (\\r): bash reads it as part of the line, not a line break"
    if kind is Kind.TAB:
        return f"{count} {noun} — shown as \\t"
    distinct = list(dict.fromkeys(chars))
    codes = ", ".join(f"U+{ord(c):04X}" for c in distinct)
    shown = ", ".join(escape_char(c) for c in distinct)
    return f"{count} {noun} ({codes}) — shown as {shown}"


def plural(noun: str) -> str:
    """`noun` in the plural, for the kind names above."""
    for one, many in (
        ("character", "characters"),
        ("point", "points"),
        ("separator", "separators"),
    ):
        if noun.endswith(one):
            return noun[: -len(one)] + many
    return noun + "s"


def mixed_warning(text: str, span: tuple[int, int], odd: list[int]) -> str:
    """One warning line for a mixed-script word, naming each odd letter."""
    word = text[span[0] : span[1]]
    letters = list(dict.fromkeys(text[j] for j in odd))
    named = ", ".join(f"{c} is {unicodedata.name(c, 'UNKNOWN')}" for c in letters)
    return f"mixed scripts in `{word}`: {named}"
