"""Slack's text formats as a person reads them in a terminal: mrkdwn, a `markdown` block's
Markdown, and rich_text.

mrkdwn is made readable: `*bold*`, `_italic_` and inline code become ANSI styles when colour
is on (the markers go either way), `&lt;`/`&gt;`/`&amp;` are unescaped, and Slack's `<…>`
tokens read as Slack shows them (`@name`, `#channel`, `@group`, a date's fallback,
`text (url)`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, TypeAlias

from slack_emulator.emoji import EMOJI
from slack_emulator.terminal.ansi import BOLD, CODE, ITALIC, MENTION, STRIKE, UNDERLINE

Json: TypeAlias = Mapping[str, Any]


def _no_name(_: str) -> str | None:
    return None


@dataclass(frozen=True)
class Names:
    """How ids in `<@U…>`, `<#C…>` and `<!subteam^S…>` read: a name, or None if unknown."""

    user: Callable[[str], str | None] = _no_name
    channel: Callable[[str], str | None] = _no_name
    group: Callable[[str], str | None] = _no_name


@dataclass(frozen=True)
class Style:
    """Where the text goes: its width in columns, whether it may carry ANSI colour, and how
    ids read."""

    width: int = 80
    color: bool = False
    names: Names = field(default_factory=Names)

    def paint(self, pair: tuple[str, str], text: str) -> str:
        return f"{pair[0]}{text}{pair[1]}" if self.color and text else text


def unescape(text: str) -> str:
    """Slack's three mrkdwn entities, back to the characters a person typed."""
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def emoji(text: str) -> str:
    """`:shortcode:` as the emoji Slack shows (unknown codes stay as typed)."""
    return re.sub(r":([a-z0-9_+'-]+):", lambda m: EMOJI.get(m[1], m[0]), text, flags=re.IGNORECASE)


_HELD_BASE: Final = 0xF0000  # Unicode private use plane: never in Slack text we show
_HELD = re.compile("[\U000f0000-\U000fffff]")
_CODE_BLOCK = re.compile(r"```\n?(.*?)\n?```", re.DOTALL)
_INLINE_CODE = re.compile(r"`([^`\n]+)`")
_TOKEN = re.compile(r"<([^<>\n]+)>")
_QUOTE = re.compile(r"^(?:&gt;|>) ?")
_QUOTE_REST = re.compile(r"^(?:&gt;&gt;&gt;|>>>) ?")
_EMPHASIS: Final = (
    ("*", re.compile(r"(?<![\w*])\*([^\s*](?:[^*\n]*[^\s*])?)\*(?![\w*])"), BOLD),
    ("_", re.compile(r"(?<![\w_])_([^\s_](?:[^_\n]*[^\s_])?)_(?![\w_])"), ITALIC),
    ("~", re.compile(r"(?<![\w~])~([^\s~](?:[^~\n]*[^\s~])?)~(?![\w~])"), STRIKE),
)


def mrkdwn(text: str, style: Style) -> str:
    """A mrkdwn string as Slack shows it (not wrapped)."""
    held: list[str] = []

    def hold(shown: str) -> str:
        held.append(shown)
        return chr(_HELD_BASE + len(held) - 1)

    text = _HELD.sub("", text)
    text = _CODE_BLOCK.sub(
        lambda m: hold(
            "\n".join("  " + style.paint(CODE, line) for line in unescape(m[1]).split("\n"))
        ),
        text,
    )
    text = _INLINE_CODE.sub(
        lambda m: hold(style.paint(CODE, unescape(m[1])) if style.color else f"`{unescape(m[1])}`"),
        text,
    )
    text = _TOKEN.sub(lambda m: hold(_token(m[1], style)), text)
    text = "\n".join(_quoted(text.split("\n")))
    text = emoji(text)
    for marker, pattern, pair in _EMPHASIS:
        text = pattern.sub(_emphasis(marker, pair, style), text)
    text = unescape(text)
    # Held text may itself hold nothing: each piece was rendered whole before holding.
    return _HELD.sub(lambda m: held[ord(m[0]) - _HELD_BASE], text)


def _emphasis(marker: str, pair: tuple[str, str], style: Style) -> Callable[[re.Match[str]], str]:
    def shown(match: re.Match[str]) -> str:
        if marker == "~" and not style.color:
            return match[0]  # without colour a strike-through still reads as one
        return style.paint(pair, match[1])

    return shown


def _quoted(lines: list[str]) -> list[str]:
    out: list[str] = []
    rest = False
    for line in lines:
        if not rest and _QUOTE_REST.match(line):
            rest = True
            line = _QUOTE_REST.sub("", line, count=1)
        elif not rest and _QUOTE.match(line):
            out.append("│ " + _QUOTE.sub("", line, count=1))
            continue
        out.append("│ " + line if rest else line)
    return out


def _token(inner: str, style: Style) -> str:
    """One `<…>` token: mention, channel, special command or link."""
    body, _, label = inner.partition("|")
    label = unescape(label)
    names = style.names
    if body.startswith("@"):
        return style.paint(MENTION, "@" + (names.user(body[1:]) or label or body[1:]))
    if body.startswith("#"):
        return style.paint(MENTION, "#" + (label or names.channel(body[1:]) or body[1:]))
    if body.startswith("!subteam^"):
        group = body.removeprefix("!subteam^")
        handle = label.lstrip("@") or names.group(group) or group
        return style.paint(MENTION, "@" + handle)
    if body.startswith("!date^"):
        return label or body
    if body in ("!here", "!channel", "!everyone"):
        return style.paint(MENTION, "@" + body[1:])
    if body.startswith("!"):
        return label or body[1:]
    url = unescape(body)
    shown = label or url
    if shown == url or url.removeprefix("mailto:") == shown:
        return style.paint(UNDERLINE, shown)
    return f"{style.paint(UNDERLINE, shown)} ({url})"


def plain(text: str, *, with_emoji: bool = True) -> str:
    """A plain_text string: literal, but `:shortcode:`s are emoji unless `emoji` is false."""
    return emoji(text) if with_emoji else text


def text_of(obj: Any, style: Style) -> str:
    """A text object (plain_text or mrkdwn) as shown; empty when absent."""
    if not isinstance(obj, Mapping):
        return ""
    text = obj.get("text")
    if not isinstance(text, str):
        return ""
    if obj.get("type") == "mrkdwn":
        return mrkdwn(text, style)
    return plain(text, with_emoji=obj.get("emoji") is not False)


_MD_HEADING = re.compile(r"^#{1,6}\s+(.*)$")
_MD_BOLD = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_MD_ITALIC = re.compile(r"(?<![\w*])([*_])(?=\S)([^*_\n]+?)(?<=\S)\1(?![\w*])")
_MD_LINK = re.compile(r"\[([^\]\n]+)\]\(([^)\s]+)\)")
_MD_BULLET = re.compile(r"^(\s*)[-*+]\s+")
_MD_QUOTE = re.compile(r"^>\s?")


def markdown(text: str, style: Style) -> str:
    """A `markdown` block's standard Markdown, readable: headings bold, emphasis styled,
    links as `text (url)`, bullets as `•`, fenced code indented."""
    out: list[str] = []
    fenced = False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            out.append("  " + style.paint(CODE, line))
            continue
        heading = _MD_HEADING.match(line)
        if heading:
            out.append(style.paint(BOLD, heading[1]))
            continue
        line = _MD_QUOTE.sub("│ ", line, count=1)
        line = _MD_BULLET.sub(lambda m: f"{m[1]}• ", line, count=1)
        line = _INLINE_CODE.sub(lambda m: style.paint(CODE, m[1]) if style.color else m[0], line)
        line = _MD_LINK.sub(lambda m: f"{style.paint(UNDERLINE, m[1])} ({m[2]})", line)
        line = _MD_BOLD.sub(lambda m: style.paint(BOLD, m[2]), line)
        line = _MD_ITALIC.sub(lambda m: style.paint(ITALIC, m[2]), line)
        out.append(emoji(line))
    return "\n".join(out)


# rich_text ----------------------------------------------------------------------------


def _rich_inline(elements: Any, style: Style) -> str:
    names = style.names
    parts: list[str] = []
    for element in elements if isinstance(elements, list) else []:
        kind = element.get("type")
        text: str
        if kind == "text":
            text = str(element.get("text", ""))
            marks = element.get("style") or {}
            if marks.get("code"):
                text = style.paint(CODE, text) if style.color else f"`{text}`"
            for key, pair in (("bold", BOLD), ("italic", ITALIC), ("strike", STRIKE)):
                if marks.get(key):
                    text = style.paint(pair, text)
        elif kind == "link":
            url = str(element.get("url", ""))
            label = str(element.get("text") or "")
            text = f"{style.paint(UNDERLINE, label)} ({url})" if label else url
        elif kind == "user":
            user_id = str(element.get("user_id", ""))
            text = style.paint(MENTION, "@" + (names.user(user_id) or user_id))
        elif kind == "usergroup":
            group_id = str(element.get("usergroup_id", ""))
            text = style.paint(MENTION, "@" + (names.group(group_id) or group_id))
        elif kind == "channel":
            channel_id = str(element.get("channel_id", ""))
            text = style.paint(MENTION, "#" + (names.channel(channel_id) or channel_id))
        elif kind == "broadcast":
            text = style.paint(MENTION, "@" + str(element.get("range", "here")))
        elif kind == "emoji":
            name = str(element.get("name", ""))
            text = EMOJI.get(name) or _unicode_emoji(element.get("unicode")) or f":{name}:"
        elif kind == "date":
            text = str(element.get("fallback") or element.get("timestamp", ""))
        elif kind == "color":
            text = str(element.get("value", ""))
        else:
            text = str(element.get("text", ""))
        parts.append(text)
    return "".join(parts)


def _unicode_emoji(code: Any) -> str | None:
    if not isinstance(code, str) or not code:
        return None
    try:
        return "".join(chr(int(point, 16)) for point in code.split("-"))
    except ValueError:
        return None


def rich_text(block: Json, style: Style) -> str:
    """A rich_text block in plain reading form: lists bulleted or numbered, quotes barred,
    preformatted text indented."""
    out: list[str] = []
    for element in block.get("elements") or []:
        kind = element.get("type")
        inner = element.get("elements")
        if kind == "rich_text_list":
            indent = "  " * int(element.get("indent") or 0)
            ordered = element.get("style") == "ordered"
            start = int(element.get("offset") or 0)
            for n, item in enumerate(inner or [], start=start + 1):
                mark = f"{n}. " if ordered else "• "
                out.append(indent + mark + _rich_inline(item.get("elements"), style))
        elif kind == "rich_text_quote":
            out.extend("│ " + line for line in _rich_inline(inner, style).split("\n"))
        elif kind == "rich_text_preformatted":
            out.extend(
                "  " + style.paint(CODE, line) for line in _rich_inline(inner, style).split("\n")
            )
        else:
            out.append(_rich_inline(inner, style).rstrip("\n"))
    return "\n".join(out)
