"""Block Kit as a terminal shows it: what a person would read in Slack, as plain lines.

Pure: blocks (as the emulator stores them), a width and a colour switch in; text and the
numbered controls out. Every interactive element gets a number, counted in block order the
way the emulator finds elements (actions elements, section accessories, input elements), so
a prompt can say "2" and mean the same element the person sees as `[2]`. Options are
numbered from 1 within their element.

mrkdwn is made readable: `*bold*`, `_italic_` and inline code become ANSI styles when colour
is on (the markers go either way), `&lt;`/`&gt;`/`&amp;` are unescaped, and Slack's `<…>`
tokens read as Slack shows them (`@name`, `#channel`, `@group`, a date's fallback,
`text (url)`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal, TypeAlias

from slack_emulator import View

Json: TypeAlias = Mapping[str, Any]
StateValues: TypeAlias = Mapping[str, Mapping[str, Json]]
ControlKind: TypeAlias = Literal["button", "one", "many", "text", "other"]

_KINDS: Final[dict[str, ControlKind]] = {
    "button": "button",
    "workflow_button": "button",
    "static_select": "one",
    "radio_buttons": "one",
    "overflow": "one",
    "multi_static_select": "many",
    "checkboxes": "many",
    "plain_text_input": "text",
    "email_text_input": "text",
    "url_text_input": "text",
    "number_input": "text",
}
_SELECTS: Final = frozenset({"static_select", "multi_static_select"})

# ANSI SGR pairs; each closes only what it opened, so styles nest.
_BOLD: Final = ("\x1b[1m", "\x1b[22m")
_DIM: Final = ("\x1b[2m", "\x1b[22m")
_ITALIC: Final = ("\x1b[3m", "\x1b[23m")
_UNDERLINE: Final = ("\x1b[4m", "\x1b[24m")
_STRIKE: Final = ("\x1b[9m", "\x1b[29m")
_CODE: Final = ("\x1b[36m", "\x1b[39m")
_MENTION: Final = ("\x1b[94m", "\x1b[39m")
_GREEN: Final = ("\x1b[32m", "\x1b[39m")
_RED: Final = ("\x1b[31m", "\x1b[39m")

# A modal's close and submit labels sit in single angle quotation marks.
_OPEN: Final = "\N{SINGLE LEFT-POINTING ANGLE QUOTATION MARK}"
_SHUT: Final = "\N{SINGLE RIGHT-POINTING ANGLE QUOTATION MARK}"

_ANSI = re.compile(r"\x1b\[[0-9;]*m")

# A few emoji Slack shows for shortcodes (the ones our messages use, and common ones).
EMOJI: Final[dict[str, str]] = {
    "robot_face": "🤖",
    "white_check_mark": "✅",
    "heavy_check_mark": "✔️",
    "heavy_minus_sign": "\N{HEAVY MINUS SIGN}",
    "x": "❌",
    "speech_balloon": "💬",
    "alarm_clock": "⏰",
    "warning": "⚠️",
    "question": "❓",
    "grey_question": "❔",
    "exclamation": "❗",
    "hourglass": "⌛",
    "hourglass_flowing_sand": "⏳",
    "information_source": "\N{INFORMATION SOURCE}\ufe0f",
    "bulb": "💡",
    "memo": "📝",
    "pencil": "📝",
    "lock": "🔒",
    "bell": "🔔",
    "eyes": "👀",
    "wave": "👋",
    "point_right": "👉",
    "+1": "👍",
    "thumbsup": "👍",
    "-1": "👎",
    "thumbsdown": "👎",
    "tada": "🎉",
    "rocket": "🚀",
    "fire": "🔥",
    "sparkles": "✨",
    "no_entry": "⛔",
    "no_entry_sign": "🚫",
    "calendar": "📆",
    "clipboard": "📋",
    "link": "🔗",
    "red_circle": "🔴",
    "large_green_circle": "🟢",
    "large_yellow_circle": "🟡",
    "smile": "😄",
    "slightly_smiling_face": "🙂",
    "thinking_face": "🤔",
    **{f"skin-tone-{n}": "" for n in range(2, 7)},
}


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


@dataclass(frozen=True)
class Choice:
    """One option of a select, radio group, checkbox group or overflow menu."""

    number: int
    value: str
    label: str


@dataclass(frozen=True)
class Control:
    """A numbered interactive element and what acting on it takes."""

    number: int
    kind: ControlKind
    """button: click; one: pick one option; many: pick any; text: type; other: not usable here."""
    type: str
    block_id: str
    action_id: str
    label: str
    """What a prompt calls it: the input label, the button text, or the section beside it."""
    options: tuple[Choice, ...] = ()
    in_input: bool = False
    optional: bool = True
    """False only for a required input block (Slack refuses to submit a modal without it)."""
    dispatches: bool = True
    """Using it sends block_actions at once (false for input blocks without dispatch_action)."""
    style: str | None = None
    url: str | None = None
    confirm: Json | None = None


@dataclass(frozen=True)
class Rendered:
    """Terminal text (lines joined by newlines, no trailing newline) and its controls."""

    text: str
    controls: tuple[Control, ...] = ()

    def control(self, number: int) -> Control | None:
        return next((c for c in self.controls if c.number == number), None)

    @property
    def inputs(self) -> list[Control]:
        """The controls in input blocks, in order: what a form walk-through asks for."""
        return [c for c in self.controls if c.in_input]

    @property
    def buttons(self) -> list[Control]:
        return [c for c in self.controls if c.kind == "button"]


# text ---------------------------------------------------------------------------------


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
    ("*", re.compile(r"(?<![\w*])\*([^\s*](?:[^*\n]*[^\s*])?)\*(?![\w*])"), _BOLD),
    ("_", re.compile(r"(?<![\w_])_([^\s_](?:[^_\n]*[^\s_])?)_(?![\w_])"), _ITALIC),
    ("~", re.compile(r"(?<![\w~])~([^\s~](?:[^~\n]*[^\s~])?)~(?![\w~])"), _STRIKE),
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
            "\n".join("  " + style.paint(_CODE, line) for line in unescape(m[1]).split("\n"))
        ),
        text,
    )
    text = _INLINE_CODE.sub(
        lambda m: hold(
            style.paint(_CODE, unescape(m[1])) if style.color else f"`{unescape(m[1])}`"
        ),
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
        return style.paint(_MENTION, "@" + (names.user(body[1:]) or label or body[1:]))
    if body.startswith("#"):
        return style.paint(_MENTION, "#" + (label or names.channel(body[1:]) or body[1:]))
    if body.startswith("!subteam^"):
        group = body.removeprefix("!subteam^")
        handle = label.lstrip("@") or names.group(group) or group
        return style.paint(_MENTION, "@" + handle)
    if body.startswith("!date^"):
        return label or body
    if body in ("!here", "!channel", "!everyone"):
        return style.paint(_MENTION, "@" + body[1:])
    if body.startswith("!"):
        return label or body[1:]
    url = unescape(body)
    shown = label or url
    if shown == url or url.removeprefix("mailto:") == shown:
        return style.paint(_UNDERLINE, shown)
    return f"{style.paint(_UNDERLINE, shown)} ({url})"


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
            out.append("  " + style.paint(_CODE, line))
            continue
        heading = _MD_HEADING.match(line)
        if heading:
            out.append(style.paint(_BOLD, heading[1]))
            continue
        line = _MD_QUOTE.sub("│ ", line, count=1)
        line = _MD_BULLET.sub(lambda m: f"{m[1]}• ", line, count=1)
        line = _INLINE_CODE.sub(lambda m: style.paint(_CODE, m[1]) if style.color else m[0], line)
        line = _MD_LINK.sub(lambda m: f"{style.paint(_UNDERLINE, m[1])} ({m[2]})", line)
        line = _MD_BOLD.sub(lambda m: style.paint(_BOLD, m[2]), line)
        line = _MD_ITALIC.sub(lambda m: style.paint(_ITALIC, m[2]), line)
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
                text = style.paint(_CODE, text) if style.color else f"`{text}`"
            for key, pair in (("bold", _BOLD), ("italic", _ITALIC), ("strike", _STRIKE)):
                if marks.get(key):
                    text = style.paint(pair, text)
        elif kind == "link":
            url = str(element.get("url", ""))
            label = str(element.get("text") or "")
            text = f"{style.paint(_UNDERLINE, label)} ({url})" if label else url
        elif kind == "user":
            user_id = str(element.get("user_id", ""))
            text = style.paint(_MENTION, "@" + (names.user(user_id) or user_id))
        elif kind == "usergroup":
            group_id = str(element.get("usergroup_id", ""))
            text = style.paint(_MENTION, "@" + (names.group(group_id) or group_id))
        elif kind == "channel":
            channel_id = str(element.get("channel_id", ""))
            text = style.paint(_MENTION, "#" + (names.channel(channel_id) or channel_id))
        elif kind == "broadcast":
            text = style.paint(_MENTION, "@" + str(element.get("range", "here")))
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
                "  " + style.paint(_CODE, line) for line in _rich_inline(inner, style).split("\n")
            )
        else:
            out.append(_rich_inline(inner, style).rstrip("\n"))
    return "\n".join(out)


# blocks -------------------------------------------------------------------------------


def render_blocks(
    blocks: Sequence[Json],
    style: Style,
    *,
    state: StateValues | None = None,
    errors: Mapping[str, str] | None = None,
) -> Rendered:
    """Blocks as terminal text with their numbered controls. `state` is `state.values`
    (what a modal's person has picked so far; initial values otherwise); `errors` are a
    modal's input errors by block_id."""
    renderer = _Renderer(style, state or {}, errors or {})
    for block in blocks:
        renderer.block(block)
    return Rendered("\n".join(renderer.lines), tuple(renderer.controls))


def render_message(
    text: str,
    blocks: Sequence[Json],
    style: Style,
    *,
    attachments: Sequence[Json] = (),
) -> Rendered:
    """A message: its blocks, or its mrkdwn `text` when it has none; then any legacy
    attachments' text behind a bar."""
    rendered = (
        render_blocks(blocks, style) if blocks else Rendered(wrap(mrkdwn(text, style), style.width))
    )
    bars: list[str] = []
    for attachment in attachments:
        parts = [
            str(attachment.get(key))
            for key in ("pretext", "title", "text")
            if isinstance(attachment.get(key), str)
        ] or [str(attachment.get("fallback", ""))]
        body = wrap(mrkdwn("\n".join(parts), style), style.width - 2)
        bars.extend("▌ " + line for line in body.split("\n"))
    if not bars:
        return rendered
    return Rendered("\n".join([rendered.text, *bars]), rendered.controls)


def render_view(view: View, style: Style) -> Rendered:
    """A modal (or Home tab): its title on a top rule, its blocks behind a bar (with the
    person's current input and the app's errors), its close and submit labels below."""
    inner = render_blocks(
        view.blocks,
        Style(max(style.width - 2, 10), style.color, style.names),
        state=view.state,
        errors=view.errors,
    )
    title = plain(view.title or ("Home" if view.type == "home" else "Modal"))
    top = f"┌─ {style.paint(_BOLD, title)} "
    lines = [top + "─" * max(style.width - visible_width(top), 3)]
    lines.extend(("│ " + line).rstrip(" ") for line in inner.text.split("\n"))
    if view.type == "modal":
        labels = [f"{_OPEN}{plain(view.close or 'Cancel')}{_SHUT}"]
        if view.submit:
            labels.append(style.paint(_GREEN, f"{_OPEN}{plain(view.submit)}{_SHUT}"))
        bottom = "└─ " + "  ".join(labels) + " "
        lines.append(bottom + "─" * max(style.width - visible_width(bottom), 3))
    return Rendered("\n".join(lines), inner.controls)


class _Renderer:
    def __init__(self, style: Style, state: StateValues, errors: Mapping[str, str]) -> None:
        self.style = style
        self.state = state
        self.errors = errors
        self.lines: list[str] = []
        self.controls: list[Control] = []
        self.previous: object = None

    def add(self, text: str) -> None:
        self.lines.extend(wrap(text, self.style.width).split("\n"))

    def block(self, block: Json) -> None:
        kind = block.get("type")
        style = self.style
        # A blank line sets each input (a question of a form) apart from its neighbours.
        if self.lines and "input" in (kind, self.previous):
            self.lines.append("")
        self.previous = kind
        if kind == "header":
            self.add(style.paint(_BOLD, text_of(block.get("text"), style)))
        elif kind == "section":
            self.section(block)
        elif kind == "context":
            parts = [
                f"[{element.get('alt_text', 'image')}]"
                if element.get("type") == "image"
                else text_of(element, style)
                for element in block.get("elements") or []
            ]
            self.add(style.paint(_DIM, "  ".join(p for p in parts if p)))
        elif kind == "divider":
            self.lines.append("─" * style.width)
        elif kind == "actions":
            self.actions(block)
        elif kind == "input":
            self.input(block)
        elif kind == "markdown":
            self.add(markdown(str(block.get("text", "")), style))
        elif kind == "rich_text":
            self.add(rich_text(block, style))
        elif kind == "image":
            title = text_of(block.get("title"), style)
            self.add(f"[image: {block.get('alt_text', '')}]" + (f" {title}" if title else ""))
        elif kind == "video":
            self.add(f"[video: {text_of(block.get('title'), style)}]")
        else:
            self.add(style.paint(_DIM, f"[{kind} block]"))

    def section(self, block: Json) -> None:
        style = self.style
        text = text_of(block.get("text"), style)
        if text:
            self.add(text)
        for field_ in block.get("fields") or []:
            self.add(text_of(field_, style))
        accessory = block.get("accessory")
        if not isinstance(accessory, Mapping):
            return
        if accessory.get("type") == "image":
            self.add(f"[image: {accessory.get('alt_text', '')}]")
            return
        label = strip_ansi(text_of(block.get("text"), Style(style.width, False, style.names)))
        label = label.split("\n", 1)[0]
        control = self.number(block, accessory, label=label, in_input=False, dispatches=True)
        self.element(control, accessory)

    def actions(self, block: Json) -> None:
        run: list[str] = []
        for element in block.get("elements") or []:
            control = self.number(block, element, label="", in_input=False, dispatches=True)
            if control.kind == "button":
                run.append(self.button(control))
                continue
            self.flush_buttons(run)
            self.element(control, element)
        self.flush_buttons(run)

    def input(self, block: Json) -> None:
        style = self.style
        element = block.get("element")
        label = text_of(block.get("label"), style)
        optional = block.get("optional") is True
        head = style.paint(_BOLD, label)
        self.add(head + (style.paint(_DIM, " (optional)") if optional else ""))
        if isinstance(element, Mapping):
            control = self.number(
                block,
                element,
                label=strip_ansi(label),
                in_input=True,
                dispatches=block.get("dispatch_action") is True,
                optional=optional,
            )
            self.element(control, element)
        hint = text_of(block.get("hint"), style)
        if hint:
            self.add(style.paint(_DIM, hint))
        error = self.errors.get(str(block.get("block_id", "")))
        if error:
            self.add(style.paint(_RED, f"⚠ {error}"))

    def number(
        self,
        block: Json,
        element: Json,
        *,
        label: str,
        in_input: bool,
        dispatches: bool,
        optional: bool = True,
    ) -> Control:
        element_type = str(element.get("type", ""))
        kind = _KINDS.get(element_type, "other")
        style = Style(self.style.width, False, self.style.names)
        if kind == "button":
            label = text_of(element.get("text"), style)
        elif not label:
            label = text_of(element.get("placeholder"), style) or element_type
        choices = tuple(
            Choice(n, str(option.get("value", "")), text_of(option.get("text"), style))
            for n, option in enumerate(_options(element), start=1)
        )
        url = element.get("url")
        confirm = element.get("confirm")
        control = Control(
            number=len(self.controls) + 1,
            kind=kind,
            type=element_type,
            block_id=str(block.get("block_id", "")),
            action_id=str(element.get("action_id", "")),
            label=label,
            options=choices,
            in_input=in_input,
            optional=optional,
            dispatches=dispatches,
            style=element.get("style") if isinstance(element.get("style"), str) else None,
            url=url if isinstance(url, str) else None,
            confirm=confirm if isinstance(confirm, Mapping) else None,
        )
        self.controls.append(control)
        return control

    def button(self, control: Control) -> str:
        colour = {"primary": _GREEN, "danger": _RED}.get(control.style or "")
        label = plain(control.label)
        shown = self.style.paint(colour, label) if colour else label
        link = " ↗" if control.url else ""
        return f"{self.style.paint(_BOLD, f'[{control.number}]')} {shown}{link}"

    def flush_buttons(self, run: list[str]) -> None:
        """Buttons side by side, as many to a line as fit; never one split across lines."""
        line = ""
        for item in run:
            if line and visible_width(line) + 2 + visible_width(item) > self.style.width:
                self.lines.append(line)
                line = ""
            line = f"{line}  {item}" if line else item
        if line:
            self.lines.append(line)
        run.clear()

    def element(self, control: Control, element: Json) -> None:
        style = self.style
        tag = style.paint(_BOLD, f"[{control.number}]")
        chosen = _chosen(element, self.state.get(control.block_id, {}).get(control.action_id))
        if control.kind == "button":
            self.add(self.button(control))
            return
        if control.kind == "text":
            if isinstance(chosen, str) and chosen:
                self.add(f"{tag} ✎ “{chosen}”")
            else:
                placeholder = text_of(element.get("placeholder"), style) or "type here"
                self.add(f"{tag} ✎ " + style.paint(_DIM, f"({placeholder})"))
            return
        if control.kind == "other":
            self.add(f"{tag} {control.type} " + style.paint(_DIM, "(not usable in the terminal)"))
            return
        many = control.kind == "many"
        overflow = control.type == "overflow"
        if control.type in _SELECTS:
            placeholder = text_of(element.get("placeholder"), style)
            head = f"▾ {placeholder or ('Choose any' if many else 'Choose one')}"
        elif overflow:
            head = "⋯"
        else:
            head = "choose any:" if many else "choose one:"
        self.add(f"{tag} " + style.paint(_DIM, head))
        picked = set(chosen) if isinstance(chosen, list) else {chosen}
        groups = element.get("option_groups")
        number = 0
        for group in groups if isinstance(groups, list) else [None]:
            options = group.get("options") if group else element.get("options")
            if group is not None:
                self.add("    " + style.paint(_DIM, text_of(group.get("label"), style) + ":"))
            for option in options or []:
                number += 1
                value = option.get("value")
                mark = "" if overflow else ("[x] " if many else "(•) ")
                if not overflow and value not in picked:
                    mark = "[ ] " if many else "( ) "
                label = text_of(option.get("text"), style)
                description = text_of(option.get("description"), style)
                about = style.paint(_DIM, f" — {description}") if description else ""
                self.add(f"    {number}) {mark}{label}{about}")


def _options(element: Json) -> list[Json]:
    options = list(element.get("options") or [])
    for group in element.get("option_groups") or []:
        options.extend(group.get("options") or [])
    return options


def _chosen(element: Json, entry: Json | None) -> Any:
    """The element's current value: from `state.values` when there, else its initial one
    (option values for selects, radios and checkboxes; text for inputs)."""
    if entry is not None:
        for key in ("selected_options", "selected_option", "value"):
            if key in entry:
                return _values(entry[key])
        return None
    for key in ("initial_options", "initial_option", "initial_value"):
        if key in element:
            return _values(element[key])
    return None


def _values(found: Any) -> Any:
    if isinstance(found, list):
        return [o.get("value") for o in found if isinstance(o, Mapping)]
    if isinstance(found, Mapping):
        return found.get("value")
    return found
