"""Markdown, as agents write it, read by a CommonMark parser (`markdown-it-py`) and shown safely.

Pure functions, no I/O. Two ways out, both driven by the parser's token stream, so every link
form CommonMark knows (inline, with any title, reference, autolink, image) is judged as Slack's
`markdown` block would judge it:

- `markdown_to_mrkdwn`: the whole text as Slack mrkdwn, for surfaces without `markdown` blocks.
  All agent text is escaped (`&`, `<`, `>`), code included, so nothing converted can ping,
  mention or disguise a link; the only `<…>` emitted are links `<https://…>` that show their URL.
- `reveal_links`: the Markdown as written, except that every link, image and link reference
  definition is written out as text followed by its address, and raw HTML is made inert text.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from markdown_it import MarkdownIt, rules_block, rules_inline
from markdown_it.ruler import RuleOptionsType
from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

from bot.render.text import escape

ZWSP = "\u200b"
FENCE = "```"
RULE = "─" * 20
INDENT = "    "


class _Parser(MarkdownIt):
    """CommonMark with tables and `~~strike~~`; raw HTML is parsed so it can be shown inert.

    Every destination is kept as written (no percent-encoding, no scheme filter): what we show
    is the address the text really carries, and the callers decide what may be a live link.
    """

    def __init__(self) -> None:
        super().__init__("commonmark", {"html": True})
        self.enable(["table", "strikethrough"])
        for name, rule in _LINK_RULES.items():
            self.inline.ruler.at(name, _recorded(name, rule))
        alt: RuleOptionsType = {"alt": []}  # as the parser registers it
        self.block.ruler.at("reference", _recorded_definition, alt)
        self.core.ruler.at("inline", _inline_with_spans)

    def validateLink(self, url: str) -> bool:
        return True

    def normalizeLink(self, url: str) -> str:
        return url

    def normalizeLinkText(self, link: str) -> str:
        return link


@functools.cache
def parser() -> MarkdownIt:
    """The one Markdown parser (built once: building it costs more than parsing a plan)."""
    return _Parser()


def blocks(markdown: str) -> list[Token]:
    """`markdown`'s block tokens, their inline content left unparsed (which costs the most)."""
    return parser().parse(normalized(markdown), {_BLOCKS_ONLY: True})


def normalized(markdown: str) -> str:
    """`markdown` with the line ends and NULs the parser would rewrite already rewritten."""
    return markdown.replace("\r\n", "\n").replace("\r", "\n").replace("\0", "\ufffd")


# --- recording where links sit, for `reveal_links` ----------------------------------------------

_SPANS = "sq_spans"  # env key: the spans found in the inline text being parsed
_SPANS_BY_TOKEN = "sq_spans_by_token"  # env key: asked for spans, per inline token index
_DEFINITIONS = "sq_definitions"  # env key: offsets of link reference definitions
_BUDGET = "sq_look_ahead"  # env key: characters links may still look ahead in this text
_UNSURE = "sq_unsure"  # env key: a bound may have hidden a link
_LAST_CLOSE = "sq_last_close"  # env key: where the text's last `]` is
_SOURCE = "sq_source"  # env key: the inline text being parsed
_BLOCKS_ONLY = "sq_blocks_only"  # env key: leave inline content unparsed
_BOUNDED = ("link", "image")
LINK_REACH = 4096  # a link longer than this (label and address) stays text
LINK_LOOK_AHEAD_PER_CHAR = 8
_LINK_RULES = {
    "link": rules_inline.link,
    "image": rules_inline.image,
    "autolink": rules_inline.autolink,
    "html_inline": rules_inline.html_inline,
}


@dataclass(frozen=True)
class _Span:
    """A link, image, autolink or raw HTML in an inline text, as offsets into that text."""

    kind: str
    start: int
    end: int
    label_end: int  # the `]` closing a link's or image's label; -1 otherwise
    address: str


def _recorded(name: str, rule: Callable[[StateInline, bool], bool]) -> Any:
    """`rule`, noting each span it parses when the parse was asked for spans."""

    def recording(state: StateInline, silent: bool) -> bool:
        start, count = state.pos, len(state.tokens)
        if not (_bounded(rule, state, silent) if name in _BOUNDED else rule(state, silent)):
            return False
        spans: list[_Span] | None = state.env.get(_SPANS)
        # Only the token's own text: an image's alt text is parsed apart (and holds no links).
        if spans is not None and not silent and state.src is state.env.get(_SOURCE):
            spans.append(_span(name, state, start, state.tokens[count:]))
        return True

    return recording


def _bounded(rule: Callable[[StateInline, bool], bool], state: StateInline, silent: bool) -> bool:
    """`rule` (a link or an image) looking at most `LINK_REACH` characters ahead, and only
    while the text's look-ahead budget lasts: the parser looks ahead from every `[`, so a
    paragraph of brackets would otherwise cost time quadratic in its length. Where a bound
    may have hidden a link CommonMark would see, the parse is marked `_UNSURE`.
    """
    if state.src[state.pos] not in "[!":
        return False
    end = state.posMax
    budget: int = state.env.get(_BUDGET, LINK_REACH)
    window = min(LINK_REACH, budget, end - state.pos)
    if state.src.find("]", state.pos, state.pos + window) < 0:
        if state.env.get(_LAST_CLOSE, end) >= state.pos + window:
            state.env[_UNSURE] = True
        return False
    state.env[_BUDGET] = budget - window
    state.posMax = state.pos + window
    try:
        found = rule(state, silent)
    finally:
        state.posMax = end
    if not found and window < end - state.pos:
        state.env[_UNSURE] = True
    return found


def _span(name: str, state: StateInline, start: int, pushed: list[Token]) -> _Span:
    if name == "html_inline":
        return _Span(name, start, state.pos, -1, "")
    opener = next(t for t in pushed if t.type in ("link_open", "image"))
    address = str(opener.attrs.get("href", opener.attrs.get("src", "")))
    if name == "autolink":
        return _Span(name, start, state.pos, -1, address)
    label_start = start + 1 if name == "image" else start
    label_end = state.md.helpers.parseLinkLabel(state, label_start, name == "link")
    return _Span(name, start, state.pos, label_end, address)


def _recorded_definition(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """The parser's reference rule, noting where each definition starts when asked to."""
    if not rules_block.reference(state, start, end, silent):
        return False
    definitions: list[int] | None = state.env.get(_DEFINITIONS)
    if definitions is not None and not silent:
        definitions.append(state.bMarks[start] + state.tShift[start])
    return True


def _inline_with_spans(state: StateCore) -> None:
    """The parser's own inline step, collecting each inline token's spans when asked to."""
    if state.env.get(_BLOCKS_ONLY):
        return
    collect: dict[int, list[_Span]] | None = state.env.get(_SPANS_BY_TOKEN)
    for index, token in enumerate(state.tokens):
        if token.type == "inline":
            token.children = token.children or []
            if collect is not None:
                state.env[_SPANS] = collect.setdefault(index, [])
            state.env[_BUDGET] = LINK_LOOK_AHEAD_PER_CHAR * len(token.content) + LINK_REACH
            state.env[_LAST_CLOSE] = token.content.rfind("]")
            state.env[_SOURCE] = token.content
            state.md.inline.parse(token.content, state.md, state.env, token.children)
    state.env.pop(_SPANS, None)


# --- the mrkdwn conversion --------------------------------------------------------------------

_SAFE_URL = re.compile(r"(?:https?://|mailto:)[^\s<>|`]+", re.IGNORECASE)
_BARE_URL = re.compile(r"(?<![^\W_]|[/@<])https?://[^\s<>|`\"]+", re.IGNORECASE)
_TASK = re.compile(r"\[([ xX])\][ \t]+")
_QUOTE_MARKS = re.compile(r"^(?: {0,3}> ?)*")
_MARKS = {"strong": "*", "em": "_", "s": "~"}


def markdown_to_mrkdwn(markdown: str) -> str:
    """The plan as Slack mrkdwn, every piece of agent text escaped.

    Headings become bold lines, `**b**`/`__b__` → `*b*`, `*i*`/`_i_` → `_i_`, `~~s~~` → `~s~`;
    lists keep their numbers and nesting (`- ` → `• `, four spaces a level); block quotes stay
    quotes; code (inline and fenced, also indented) is kept as code with no conversion inside;
    every link and image, whatever its form, → `text (<url>)`; raw HTML is shown as text; tables
    become a preformatted block and horizontal rules a line. Only http(s) and mailto URLs become
    links; any other target is shown as plain text. Blank lines stand where the source has them.
    """
    source = normalized(markdown)
    return _Mrkdwn(source.split("\n")).run(parser().parse(source))


@dataclass
class _Item:
    lead: str | None  # the marker line's start, until its first line is written
    hang: str  # what aligns the item's other lines under its text


@dataclass
class _Mrkdwn:
    """Block tokens to mrkdwn lines."""

    source: list[str]
    out: list[str] = field(default_factory=list)
    items: list[_Item] = field(default_factory=list)
    lists: int = 0  # lists around this block, for indentation
    depth: int = 0  # block quotes
    last_line: int = 0  # the source line after the last block written

    def run(self, tokens: list[Token]) -> str:
        for at, token in enumerate(tokens):
            self.block(token, tokens, at)
        while self.out and not self.out[-1].strip():
            self.out.pop()
        return "\n".join(self.out)

    def block(self, token: Token, tokens: list[Token], at: int) -> None:
        kind = token.type
        if kind == "blockquote_open":
            self.depth += 1
        elif kind == "blockquote_close":
            self.depth -= 1
        elif kind in ("bullet_list_open", "ordered_list_open"):
            self.lists += 1
        elif kind in ("bullet_list_close", "ordered_list_close"):
            self.lists -= 1
        elif kind == "list_item_open":
            bullet = "•" if token.markup in "-*+" else f"{token.info}{token.markup}"
            level = INDENT * (self.lists - 1)
            self.items.append(_Item(f"{level}{bullet} ", level + " " * (len(bullet) + 1)))
        elif kind == "list_item_close":
            self.items.pop()
        elif kind == "inline" and tokens[at - 1].type == "heading_open":
            self.gap(tokens[at - 1])
            text = _inline(token.children or [], bold=True).strip()
            self.lines([f"*{text}*"] if text else [])
        elif kind == "inline" and tokens[at - 1].type == "paragraph_open":
            self.gap(tokens[at - 1])
            self.lines(self.task(_inline(token.children or [])).strip().split("\n"))
        elif kind in ("fence", "code_block"):
            self.gap(token)
            self.code(token.content.rstrip("\n").split("\n"))
        elif kind == "html_block":
            self.gap(token)
            self.lines(_text(token.content.rstrip("\n")).split("\n"))
        elif kind == "hr":
            self.gap(token)
            self.lines([RULE])
        elif kind == "table_open":
            self.gap(token)
            self.code(_table(tokens[at:], self.source))

    def task(self, text: str) -> str:
        """A task list item's `[ ]` / `[x]` as a box."""
        item = self.items[-1] if self.items else None
        task = _TASK.match(text) if item is not None and item.lead is not None else None
        if task is None:
            return text
        return ("☐ " if task.group(1) == " " else "☑ ") + text[task.end() :]

    def gap(self, token: Token) -> None:
        """A blank line where the source leaves one between two blocks."""
        start, end = token.map or (self.last_line, self.last_line)
        if start > self.last_line and self.out and self.out[-1]:
            self.out.append("")
        self.last_line = max(self.last_line, end)

    def lines(self, lines: list[str]) -> None:
        if not "".join(lines).strip():
            return
        for line in lines:
            self.emit(self.indent() + line.strip())

    def indent(self) -> str:
        if not self.items:
            return ""
        item = self.items[-1]
        lead, item.lead = item.lead, None
        return lead if lead is not None else item.hang

    def code(self, lines: list[str]) -> None:
        """A preformatted block: escaped, otherwise as written. Code leaves quotes and lists."""
        if not any(line.strip() for line in lines):
            return
        lead = self.items[-1].lead if self.items else None
        if lead is not None:
            self.emit(self.indent().rstrip())
        self.out.append(FENCE)
        self.out.extend(_break_ticks(escape(line)) for line in lines)
        self.out.append(FENCE)

    def emit(self, line: str) -> None:
        if self.depth:
            line = "> " + "&gt; " * (self.depth - 1) + line
        self.out.append(line.rstrip())


def _table(tokens: list[Token], source: list[str]) -> list[str]:
    """A table's rows as written, each cell's inline Markdown as plain text (not yet escaped)."""
    rows: list[str] = []
    cells: list[str] = []
    for token in tokens:
        if token.type == "inline":
            cells.append(_plain(token.children or []))
        elif token.type == "tr_close":
            rows.append("| " + " | ".join(cells) + " |")
            cells = []
            if len(rows) == 1 and tokens[0].map is not None:
                delimiter = source[tokens[0].map[0] + 1]
                rows.append(_QUOTE_MARKS.sub("", delimiter, count=1).strip())
        elif token.type == "table_close":
            break
    return rows


def _inline(tokens: list[Token], *, bold: bool = False) -> str:
    """Inline tokens as mrkdwn (`bold`: already inside bold, as in headings).

    Emphasis inside the same emphasis is dropped (mrkdwn cannot nest it); a link or image is
    its text followed by its address, so no text can hide where it goes.
    """
    active = {"*": int(bold), "_": 0, "~": 0}
    shown: list[bool] = []  # for each open emphasis, whether its mark was written
    out: list[str] = []
    labels: list[tuple[list[str], Token, int]] = []  # open links: output before, link, index
    for index, token in enumerate(tokens):
        kind = token.type
        if kind in ("text", "text_special"):
            out.append(_text(token.content))
        elif kind == "code_inline":
            out.append(_code(token))
        elif kind == "softbreak":
            out.append(" ")
        elif kind == "hardbreak":
            out.append("\n")
        elif kind == "html_inline":
            out.append(_text(token.content))
        elif kind == "image":
            label = _inline(token.children or [], bold=bool(active["*"]))
            words = "".join(t.content for t in token.children or [] if t.type == "text")
            out.append(_linked(label, words, str(token.attrs["src"])))
        elif kind == "link_open":
            labels.append((out, token, index))
            out = []
        elif kind == "link_close":
            label, (out, opener, begin) = "".join(out), labels.pop()
            words = "".join(t.content for t in tokens[begin + 1 : index] if t.type == "text")
            out.append(_linked(label, words, str(opener.attrs["href"]), auto=opener.info == "auto"))
        elif kind.endswith("_open") and kind[:-5] in _MARKS:
            mark = _MARKS[kind[:-5]]
            shown.append(not active[mark])
            out.append(mark if not active[mark] else "")
            active[mark] += 1
        elif kind.endswith("_close") and kind[:-6] in _MARKS:
            mark = _MARKS[kind[:-6]]
            active[mark] -= 1
            out.append(mark if shown.pop() else "")
    return _break_ticks("".join(out))  # code spans side by side: "`a``b`"


def _linked(label: str, words: str, address: str, *, auto: bool = False) -> str:
    """A link or image as `text (<url>)`: the URL is always shown, never hidden behind text."""
    url = _url(address)
    shown = label.strip()
    if auto and not url.startswith("<"):
        return _text(f"<{address}>")
    if not address:
        return shown
    if not shown or auto or words.strip() == address:
        return url
    return f"{shown} ({url})"


def _plain(tokens: list[Token]) -> str:
    """Inline tokens as plain text: the words, code as written, links as `text (address)`."""
    out: list[str] = []
    addresses: list[str] = []
    for token in tokens:
        if token.type in ("text", "text_special", "html_inline"):
            out.append(token.content)
        elif token.type == "code_inline":
            out.append(token.markup + token.content + token.markup)
        elif token.type in ("softbreak", "hardbreak"):
            out.append(" ")
        elif token.type == "image":
            out.append(f"{_plain(token.children or [])} ({token.attrs['src']})")
        elif token.type == "link_open":
            addresses.append(str(token.attrs["href"]))
        elif token.type == "link_close":
            out.append(f" ({addresses.pop()})")
    return "".join(out)


def _code(token: Token) -> str:
    content = token.content
    if "`" in content or not content.strip():
        return _text(token.markup + content + token.markup)  # mrkdwn cannot show this as code
    return f"`{escape(content)}`"


def _url(address: str) -> str:
    """A link Slack shows as its own URL, or the address as plain text if it is not http(s)."""
    if _SAFE_URL.fullmatch(address):
        return f"<{address.replace('&', '&amp;')}>"
    return _break_ticks(escape(address))


def _text(raw: str) -> str:
    """Agent text escaped, its bare web addresses as links that show themselves."""
    out: list[str] = []
    at = 0
    for bare in _BARE_URL.finditer(raw):
        url = _trim_url(bare.group())
        out.append(_break_ticks(escape(raw[at : bare.start()])))
        out.append(_url(url))
        at = bare.start() + len(url)
    out.append(_break_ticks(escape(raw[at:])))
    return "".join(out)


def _trim_url(url: str) -> str:
    """A bare URL without the punctuation that ends its sentence or closes its parenthesis."""
    while url and url[-1] in ".,:;!?'*_~)":
        if url[-1] == ")" and url.count("(") >= url.count(")"):
            break
        url = url[:-1]
    return url


def _break_ticks(escaped: str) -> str:
    """Three backticks would open or close a mrkdwn code block: keep them apart."""
    return re.sub(r"`{3,}", lambda m: ZWSP.join(m.group()), escaped)


# --- the Markdown preview: links written out -----------------------------------------------------

REVEAL_ROUNDS = 8
_ENTITY_START = re.compile(r"&(?=#?[A-Za-z0-9]+;)")
_MARKDOWN_PUNCTUATION = re.compile(r"[\\`*_\[\]<>~|]")


class _Unsure(Exception):
    """A link could not be traced back to the source with certainty."""


def reveal_links(markdown: str) -> str:
    """Markdown with every link written out as `text (address)`, so no text hides its address.

    Agent text is untrusted: `[your bank](https://evil)`, in any form CommonMark knows, must show
    its address. An autolink becomes its bare address, a link reference definition visible text,
    raw HTML inert text (a zero-width space after its `<`). Code is left alone. Writing a link
    out can uncover another (raw HTML that held Markdown), so this repeats until the parser finds
    none. Should that not settle, or a link not be traced back to the text with certainty (the
    parser's look-ahead was bounded), every `[` is escaped and every `<` broken instead.
    """
    text = normalized(markdown)
    try:
        for _ in range(REVEAL_ROUNDS):
            edits = _reveal_edits(text)
            if not edits:
                return text
            text = _apply(text, edits)
    except _Unsure:
        pass
    return _inert(text)


# A `[` after an even number of backslashes (none included) opens a bracket; after an odd
# number it is escaped already. Escaping it blindly would turn `\[` into `\\[`: an escaped
# backslash, then a live bracket.
_LIVE_BRACKET = re.compile(r"(?<!\\)((?:\\\\)*)\[")


def _inert(text: str) -> str:
    """`text` with every live `[` escaped and every `<` broken: no link, image or HTML is left."""
    return _LIVE_BRACKET.sub(r"\1\\[", text).replace("<", "<" + ZWSP)


Edit = tuple[int, int, str]  # replace text[start:end] with this


def _reveal_edits(text: str) -> list[Edit]:
    spans_by_token: dict[int, list[_Span]] = {}
    definitions: list[int] = []
    env: dict[str, Any] = {_SPANS_BY_TOKEN: spans_by_token, _DEFINITIONS: definitions}
    tokens = parser().parse(text, env)
    if env.get(_UNSURE):
        raise _Unsure
    starts = _line_starts(text)
    if not all(text.startswith("[", at) for at in definitions):
        raise _Unsure
    edits: list[Edit] = [(at, at, "\\") for at in definitions]
    for index, token in enumerate(tokens):
        if token.type == "html_block" and token.map is not None:
            block = slice(starts[token.map[0]], starts[token.map[1]] - 1)
            edits += [(at + 1, at + 1, ZWSP) for at in _find_all(text, "<", block)]
        spans = spans_by_token.get(index)
        if spans:
            place = _placer(text, starts, token, tokens[index - 1])
            for span in spans:
                edits += _span_edits(text, span, place)
    return edits


def _span_edits(text: str, span: _Span, place: Callable[[int], int]) -> list[Edit]:
    start, end = place(span.start), place(span.end - 1) + 1
    if span.kind == "html_inline":
        return [(start + 1, start + 1, ZWSP)]
    if span.kind == "autolink":
        return [(start, end, _literal(span.address))]
    opening = 2 if span.kind == "image" else 1
    label_end = place(span.label_end)
    if text[label_end] != "]":
        raise _Unsure
    return [(start, start + opening, ""), (label_end, end, f" ({_literal(span.address)})")]


def _placer(text: str, starts: list[int], inline: Token, opener: Token) -> Callable[[int], int]:
    """Where an offset into `inline`'s content sits in `text`.

    A paragraph's content is its lines without container marks and indentation, stripped at
    both ends: each line of it ends where its source line ends (the last where that line ends
    without trailing space). A heading or table cell is found in its line.
    """
    content = inline.content
    first = (inline.map or opener.map or [0, 0])[0]
    if opener.type in ("heading_open", "th_open", "td_open") and "\n" not in content:
        line = text[starts[first] : starts[first + 1] - 1]
        found = line.rfind(content) if opener.type == "heading_open" else line.find(content)
        if found < 0:
            raise _Unsure
        anchors = [starts[first] + found]
    else:
        anchors = []
        lines = content.split("\n")
        for number, part in enumerate(lines):
            source = text[starts[first + number] : starts[first + number + 1] - 1]
            if number == len(lines) - 1:
                source = source.rstrip()
            anchors.append(starts[first + number] + len(source) - len(part))
    line_of = _line_starts(content)

    def place(offset: int) -> int:
        number = next(n for n in range(len(line_of) - 2, -1, -1) if line_of[n] <= offset)
        at = anchors[number] + offset - line_of[number]
        if text[at : at + 1] != content[offset : offset + 1]:
            raise _Unsure
        return at

    return place


def _line_starts(text: str) -> list[int]:
    """Where each line of `text` starts, and one past its end (as if it ended in a newline)."""
    return [0, *(m.end() for m in re.finditer("\n", text)), len(text) + 1]


def _find_all(text: str, char: str, within: slice) -> list[int]:
    return [at for at in range(within.start, within.stop) if text[at] == char]


def _apply(text: str, edits: list[Edit]) -> str:
    out: list[str] = []
    at = 0
    for start, end, replacement in sorted(edits):
        if start < at:
            raise _Unsure
        out += [text[at:start], replacement]
        at = end
    out.append(text[at:])
    return "".join(out)


def _literal(address: str) -> str:
    """An address as Markdown text that shows exactly it (nothing in it is formatting)."""
    return _ENTITY_START.sub(r"\\&", _MARKDOWN_PUNCTUATION.sub(lambda m: "\\" + m.group(), address))
