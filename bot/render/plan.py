"""A plan under review, shown faithfully and safely: a Markdown preview for the message, the
whole plan as mrkdwn pages for a modal, and what changed between two revisions.

Pure functions, no I/O. Two renderings, because the surfaces differ:

- A message shows the plan in Slack's `markdown` block, which renders standard Markdown but
  exists only in messages and holds at most 12,000 characters across all such blocks of a
  payload. The plan goes in as written, with every Slack `<…>` token broken (`neutralize`);
  a longer plan is cut at a line end, never inside a code block without closing it.
- A modal cannot hold `markdown` blocks, so the whole plan is converted to mrkdwn
  (`markdown_to_mrkdwn`) and cut into `section` blocks of at most 3,000 characters, paginated.

The conversion escapes all agent text (`&`, `<`, `>`), code included, so nothing the agent
wrote can ping, mention or disguise a link; the only `<…>` it emits are links of the form
`<https://…>` that show their own URL.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from dataclasses import dataclass, field

from slack_sdk.models.blocks import Block, MarkdownBlock, MarkdownTextObject, SectionBlock

from .text import escape

MARKDOWN_BLOCKS_MAX = 12_000  # cumulative text of all markdown blocks in one payload
SECTION_TEXT_MAX = 3000
MODAL_BLOCKS_MAX = 100
PREVIEW_BUDGET_MIN = 300

ZWSP = "\u200b"
FENCE = "```"
RULE = "─" * 20
EMPTY_PLAN = "_The plan is empty._"
CONTINUES = "_… (the plan continues)_"
CODE_CONTINUES = "_… (this code block and the plan continue)_"


@dataclass(frozen=True)
class PlanPreview:
    """The start of a plan for a message: `complete` is False when only part of it is shown."""

    blocks: list[Block]
    shown_chars: int
    total_chars: int
    complete: bool


@dataclass(frozen=True)
class PlanDiff:
    """Lines added and removed between two revisions, and the unified diff (context 2)."""

    added: int
    removed: int
    unified: str


# --- the message preview: Markdown as written, Slack tokens broken ----------------------------

# `<` (or an entity spelling it) right before what would make a Slack token: a special mention
# `<!…>`, a user `<@…>`, a channel `<#…>`, or a link `<scheme:…>`.
_TOKEN_START = re.compile(
    r"(?:<|&lt;|&#0*60;|&#[xX]0*3[cC];)(?=[!@#]|[A-Za-z][A-Za-z0-9+.\-]*:)",
)


def neutralize(markdown: str) -> str:
    """`markdown` with a zero-width space after every `<` that could start a Slack token.

    How the `markdown` block treats `<!channel>`, `<@U…>` or `<url|text>` is not documented, so
    every `<` followed by `!`, `@`, `#` or a URL scheme is broken: it reads the same, but can
    never ping, mention or link. The entity spellings `&lt;`, `&#60;` and `&#x3c;` are broken too,
    in case Slack decodes them before it looks for tokens. Everything else is left byte for byte.
    """
    return _TOKEN_START.sub(lambda m: m.group() + ZWSP, markdown)


# `[text](url)` or `![alt](url)`, with an optional title: the markdown block shows only `text`.
_MARKDOWN_LINK = re.compile(r"!?\[([^\[\]\n]*)\]\(\s*<?([^\s()<>]+)>?(?:\s+\"[^\"\n]*\")?\s*\)")
_FENCE_LINE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")


def reveal_links(markdown: str) -> str:
    """Markdown links written out as `text (url)`, so no link text can hide where it goes.

    Agent text is untrusted: `[your bank](https://evil)` must show its address. Code blocks and
    code spans are left alone.
    """
    out: list[str] = []
    fence: str | None = None
    for line in markdown.splitlines(keepends=True):
        opened = _FENCE_LINE.match(line)
        if fence is not None:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = None
            out.append(line)
            continue
        if opened:
            fence = opened.group(1)
            out.append(line)
            continue
        pieces = line.split("`")
        # Even pieces are outside code spans (an unmatched backtick leaves the rest as text).
        for i in range(0, len(pieces), 2):
            pieces[i] = _MARKDOWN_LINK.sub(lambda m: f"{m.group(1)} ({m.group(2)})", pieces[i])
        out.append("`".join(pieces))
    return "".join(out)


def plan_preview(markdown: str, *, budget: int = 11_000) -> PlanPreview:
    """The plan in one `markdown` block of at most `budget` characters.

    A longer plan is cut at the end of a line — preferably at the end of a paragraph, list
    item or other block — and ends with a short note; `complete` is then False so the caller
    can offer the whole plan. A cut never falls inside a code block: it moves before the block,
    or, when that would leave less than half the budget, the block is closed and the note says so.
    """
    if not PREVIEW_BUDGET_MIN <= budget <= MARKDOWN_BLOCKS_MAX:
        raise ValueError(
            f"budget must be between {PREVIEW_BUDGET_MIN} and {MARKDOWN_BLOCKS_MAX} characters"
        )
    total = len(markdown)
    if not markdown.strip():
        return PlanPreview([MarkdownBlock(text=EMPTY_PLAN)], 0, total, True)
    whole = neutralize(reveal_links(markdown))
    if len(whole) <= budget:
        return PlanPreview([MarkdownBlock(text=whole)], total, total, True)
    limit = budget - len(CODE_CONTINUES) - 8
    while True:
        pos, close = _preview_cut(markdown, limit)
        shown = markdown[:pos].rstrip()
        text = neutralize(reveal_links(shown))
        text += f"\n{close}\n\n{CODE_CONTINUES}" if close is not None else f"\n\n{CONTINUES}"
        if len(text) <= budget:
            return PlanPreview([MarkdownBlock(text=text)], len(shown), total, False)
        # Neutralizing lengthened the text: cut again, at least the excess earlier. The limit
        # falls every time, and a tiny limit gives a tiny text, so this ends.
        limit = min(limit, pos) - (len(text) - budget)


@dataclass(frozen=True)
class _Line:
    """One line of the plan, seen as a place to cut after it."""

    end: int  # offset of the line's end (its newline, or the end of the plan)
    block: bool  # a paragraph, list item or other block ends here
    close: str | None  # inside a code block: the line that closes it; None outside
    code: bool = False  # a line of code (not the fence that opens the block)


@dataclass(frozen=True)
class _Fence:
    char: str
    length: int
    depth: int  # block quotes around it
    indent: int  # columns before the fence, inside those quotes
    close: str  # a line that closes it, for cutting inside it


def _preview_lines(markdown: str) -> list[_Line]:
    lines = markdown.split("\n")
    out: list[_Line] = []
    fence: _Fence | None = None
    under_heading = False
    pos = 0
    for index, line in enumerate(lines):
        end = pos + len(line)
        pos = end + 1
        if fence is not None:
            depth, body = _strip_quotes(line, fence.depth)
            if depth < fence.depth:
                fence = None  # its block quote ended, and the code block with it
            elif _closes(fence, body):
                fence = None
                out.append(_Line(end, True, None))
                under_heading = False
                continue
            else:
                out.append(_Line(end, False, fence.close, code=True))
                continue
        fence = _open_fence(line)
        if fence is not None:
            out.append(_Line(end, False, fence.close))
            under_heading = False
            continue
        # A block ends here, unless this is a heading (or the blank after one): a preview
        # should not end on a heading with nothing under it.
        body = _strip_quotes(line)[1].strip()
        heading = bool(_HEADING.match(body))
        following = lines[index + 1] if index + 1 < len(lines) else ""
        if body:
            block = not heading and _starts_block(following)
            under_heading = heading
        else:
            block = not under_heading
        out.append(_Line(end, block, None))
    return out


def _starts_block(line: str) -> bool:
    stripped = line.strip()
    return (
        not stripped
        or stripped.startswith(">")
        or bool(_HEADING.match(stripped) or _ITEM.match(stripped) or _FENCE_OPEN.match(stripped))
    )


def _preview_cut(markdown: str, limit: int) -> tuple[int, str | None]:
    """Where to cut `markdown` to at most `limit` characters, and the fence line to close with."""
    lines = _preview_lines(markdown)
    fits = [
        line
        for line in lines
        if line.end <= limit - (len(line.close) + 1 if line.close is not None else 0)
    ]
    text_starts = len(markdown) - len(markdown.lstrip())
    outside = [line for line in fits if line.close is None and line.end > text_starts]
    inside = [line for line in fits if line.code]
    best = outside[-1] if outside else None
    if inside and (best is None or (inside[-1].end > best.end and best.end < limit // 2)):
        return inside[-1].end, inside[-1].close
    if best is not None:
        blocks = [line for line in outside if line.block]
        if blocks and blocks[-1].end >= limit * 3 // 4:
            return blocks[-1].end, None
        return best.end, None
    # No line end fits (the first lines are too long): cut between words in the first line
    # that does not fit (or the last line), closing its code block if it is in one.
    start = 0
    for line in lines:
        room = limit - (len(line.close) + 1 if line.close is not None else 0)
        if line.end > room or line is lines[-1]:
            return _word_cut(markdown, start, min(room, line.end)), line.close
        start = line.end + 1
    raise AssertionError("unreachable: a plan has at least one line")


def _word_cut(text: str, start: int, end: int) -> int:
    """A cut in `text[start:end]` at its last space; failing that, not inside an entity."""
    space = max(text.rfind(" ", start + 1, end + 1), text.rfind("\t", start + 1, end + 1))
    if space > start:
        return space
    amp = text.rfind("&", max(start + 1, end - 9), end)
    if amp > start and ";" not in text[amp:end]:
        return amp
    return max(end, start + 1)


# --- Markdown to mrkdwn -------------------------------------------------------------------------

_QUOTE_MARK = re.compile(r" {0,3}> ?")
_FENCE_OPEN = re.compile(r"(`{3,}|~{3,})(.*)$")
_HEADING = re.compile(r"(#{1,6})(?:[ \t]+|$)(.*?)(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"(?:=+|-+)[ \t]*$")
_RULE = re.compile(r"(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$")
_ITEM = re.compile(r"([-*+]|\d{1,9}[.)])(?:([ \t]+)(.*)|$)")
_TASK = re.compile(r"\[([ xX])\][ \t]+")
_TABLE_DELIMITER = re.compile(r"\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")
INDENT = "    "


def _strip_quotes(line: str, most: int = 1_000) -> tuple[int, str]:
    """How many block-quote markers start `line` (up to `most`), and the line without them."""
    depth = 0
    while depth < most:
        mark = _QUOTE_MARK.match(line)
        if mark is None:
            break
        line = line[mark.end() :]
        depth += 1
    return depth, line


def _indent(text: str) -> int:
    """Columns of leading whitespace, tabs counted to the next multiple of four."""
    expanded = text[: len(text) - len(text.lstrip())].expandtabs(4)
    return len(expanded)


def _open_fence(line: str) -> _Fence | None:
    depth, body = _strip_quotes(line)
    stripped = body.lstrip()
    opening = _FENCE_OPEN.match(stripped)
    if opening is None or (opening.group(1)[0] == "`" and "`" in opening.group(2)):
        return None
    marks = opening.group(1)
    prefix = line[: len(line) - len(stripped)]
    return _Fence(marks[0], len(marks), depth, _indent(body), prefix + marks)


def _closes(fence: _Fence, body: str) -> bool:
    stripped = body.strip()
    return len(stripped) >= fence.length and stripped == fence.char * len(stripped)


def markdown_to_mrkdwn(markdown: str) -> str:
    """The plan as Slack mrkdwn, every piece of agent text escaped.

    Headings become bold lines, `**b**`/`__b__` → `*b*`, `*i*`/`_i_` → `_i_`, `~~s~~` → `~s~`;
    lists keep their numbers and nesting (`- ` → `• `, four spaces a level); block quotes stay
    quotes; code (inline and fenced, also indented) is kept as code with no conversion inside;
    `[text](url)` → `text (<url>)`, images → `alt (<url>)`; tables become a preformatted block and
    horizontal rules a line. Only http(s) and mailto URLs become links; any other target is
    shown as plain text.
    """
    lines = markdown.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return _Converter(lines).run()


@dataclass
class _Paragraph:
    lines: list[str]
    lead: str  # before its first line: list marker and indentation
    hang: str  # before its other lines
    in_list: bool


@dataclass(frozen=True)
class _Item:
    marker: int  # column of the list marker
    hang: str  # what aligns text under the item's first line


class _Converter:
    """Markdown lines to mrkdwn lines, one block at a time."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.out: list[str] = []
        self.paragraph: _Paragraph | None = None
        self.items: list[_Item] = []
        self.depth = 0

    def run(self) -> str:
        i = 0
        while i < len(self.lines):
            i = self.line(i)
        self.flush()
        while self.out and not self.out[-1].strip():
            self.out.pop()
        return "\n".join(self.out)

    def line(self, i: int) -> int:
        """Handle line `i` (and any lines that belong with it); the index of the next line."""
        depth, body = _strip_quotes(self.lines[i])
        if depth != self.depth:
            self.flush()
            self.items.clear()
            self.depth = depth
        stripped = body.strip()
        content = body.lstrip()  # trailing spaces may be a hard line break
        indent = _indent(body)
        if not stripped:
            self.flush()
            self.blank()
            return i + 1
        fence = _open_fence(self.lines[i])
        if fence is not None and (indent < 4 or self.items):
            self.flush()
            return self.fenced_code(i + 1, fence)
        if indent >= 4 and self.paragraph is None and not self.items:
            return self.indented_code(i)
        heading = _HEADING.match(stripped) if indent < 4 else None
        if heading is not None:
            self.flush()
            self.items.clear()
            self.heading(heading.group(2))
            return i + 1
        paragraph = self.paragraph
        if paragraph is not None and not paragraph.in_list and _SETEXT.match(stripped):
            self.paragraph = None
            self.heading(" ".join(part.strip() for part in paragraph.lines))
            return i + 1
        if _RULE.match(stripped):
            self.flush()
            self.items.clear()
            self.emit(RULE)
            return i + 1
        if "|" in stripped and self.table_follows(i):
            self.flush()
            return self.table(i)
        item = _ITEM.match(content)
        if item is not None and (paragraph is None or paragraph.in_list or _interrupts(item)):
            self.flush()
            self.list_item(indent, item)
            return i + 1
        if self.paragraph is not None:
            self.paragraph.lines.append(content)
            return i + 1
        self.start_paragraph(indent, content)
        return i + 1

    # blocks ---------------------------------------------------------------------------------

    def heading(self, source: str) -> None:
        text = _inline(source, bold=True).strip()
        if text:
            self.emit(f"*{text}*")

    def list_item(self, indent: int, item: re.Match[str]) -> None:
        while self.items and indent <= self.items[-1].marker:
            self.items.pop()
        marker = item.group(1)
        bullet = "•" if marker in "-*+" else marker
        level = INDENT * len(self.items)
        text = item.group(3) or ""
        task = _TASK.match(text)
        if task is not None:
            text = ("☐ " if task.group(1) == " " else "☑ ") + text[task.end() :]
        hang = level + " " * (len(bullet) + 1)
        self.items.append(_Item(indent, hang))
        self.paragraph = _Paragraph([text], f"{level}{bullet} ", hang, True)

    def start_paragraph(self, indent: int, text: str) -> None:
        while self.items and indent <= self.items[-1].marker:
            self.items.pop()
        hang = self.items[-1].hang if self.items else ""
        self.paragraph = _Paragraph([text], hang, hang, bool(self.items))

    def fenced_code(self, i: int, fence: _Fence) -> int:
        code: list[str] = []
        while i < len(self.lines):
            depth, body = _strip_quotes(self.lines[i], fence.depth)
            if depth < fence.depth:
                break
            i += 1
            if _closes(fence, body):
                break
            spaces = len(body) - len(body.lstrip(" "))
            code.append(body[min(spaces, fence.indent) :])
        self.code(code)
        return i

    def indented_code(self, i: int) -> int:
        code: list[str] = []
        while i < len(self.lines):
            depth, body = _strip_quotes(self.lines[i], self.depth)
            if depth < self.depth or (body.strip() and _indent(body) < 4):
                break
            code.append(_dedent(body, 4))
            i += 1
        while code and not code[-1].strip():
            code.pop()
            i -= 1
        self.code(code)
        return i

    def table_follows(self, i: int) -> bool:
        if i + 1 >= len(self.lines):
            return False
        depth, following = _strip_quotes(self.lines[i + 1], self.depth)
        row = following.strip()
        return depth == self.depth and "|" in row and bool(_TABLE_DELIMITER.match(row))

    def table(self, i: int) -> int:
        rows: list[str] = []
        while i < len(self.lines):
            depth, body = _strip_quotes(self.lines[i], self.depth)
            row = body.strip()
            if depth < self.depth or not row or "|" not in row or _open_fence(body):
                break
            rows.append(row)
            i += 1
        self.code(rows)
        return i

    # output ---------------------------------------------------------------------------------

    def code(self, lines: list[str]) -> None:
        """A preformatted block: escaped, otherwise as written. Code leaves a block quote."""
        if not any(line.strip() for line in lines):
            return
        self.out.append(FENCE)
        self.out.extend(_break_ticks(escape(line.rstrip("\n"))) for line in lines)
        self.out.append(FENCE)

    def flush(self) -> None:
        paragraph = self.paragraph
        if paragraph is None:
            return
        self.paragraph = None
        text = _inline(_join(paragraph.lines)).strip()
        if not text:
            return
        for number, line in enumerate(text.split("\n")):
            self.emit((paragraph.hang if number else paragraph.lead) + line.strip())

    def emit(self, line: str) -> None:
        if self.depth:
            line = "> " + "&gt; " * (self.depth - 1) + line
        self.out.append(line.rstrip())

    def blank(self) -> None:
        if self.out and self.out[-1]:
            self.out.append("")


def _interrupts(item: re.Match[str]) -> bool:
    """Whether a list item may start in the middle of a paragraph (CommonMark: a bullet with
    text, or an ordered item numbered 1), so "in version\n2024. It" stays one paragraph."""
    marker, text = item.group(1), item.group(3) or ""
    return bool(text.strip()) and (marker in "-*+" or int(marker[:-1]) == 1)


def _dedent(line: str, columns: int) -> str:
    """`line` without `columns` columns of its leading whitespace (tabs stop every four)."""
    lead = line[: len(line) - len(line.lstrip())]
    return lead.expandtabs(4)[columns:] + line[len(lead) :]


def _join(lines: list[str]) -> str:
    """A paragraph's lines as one text: soft breaks become spaces, hard breaks newlines."""
    parts: list[str] = []
    for number, line in enumerate(lines):
        last = number == len(lines) - 1
        if last:
            parts.append(line.rstrip())
        elif line.endswith("  "):
            parts.append(line.rstrip() + "\n")
        elif line.endswith("\\") and (len(line) - len(line.rstrip("\\"))) % 2 == 1:
            parts.append(line[:-1] + "\n")
        else:
            parts.append(line.rstrip() + " ")
    return "".join(parts)


def _break_ticks(escaped: str) -> str:
    """Three backticks would open or close a mrkdwn code block: keep them apart."""
    return re.sub(r"`{3,}", lambda m: ZWSP.join(m.group()), escaped)


def _text(raw: str) -> str:
    return _break_ticks(escape(raw))


# --- inline Markdown ----------------------------------------------------------------------------

_SAFE_URL = re.compile(r"(?:https?://|mailto:)[^\s<>|`]+", re.IGNORECASE)
_AUTOLINK = re.compile(r"<([A-Za-z][A-Za-z0-9+.\-]{1,31}:[^\s<>]*)>")
_BARE_URL = re.compile(r"https?://[^\s<>|`\"]+", re.IGNORECASE)
_ASCII_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
LINK_REACH = 4096  # a link longer than this (label and URL) stays text
LINK_LOOK_AHEAD_PER_CHAR = 8
EMPHASIS_RUNS_MAX = 2000  # beyond this, a paragraph keeps its asterisks (matching is quadratic)
_MARKS = {2: "*", 1: "_"}


def _url(destination: str) -> str:
    """A link Slack shows as its own URL, or the destination as plain text if it is not http(s)."""
    if _SAFE_URL.fullmatch(destination):
        return f"<{destination.replace('&', '&amp;')}>"
    return _text(destination)


@dataclass
class _Run:
    """A run of `*`, `_` or `~` that may open or close emphasis."""

    char: str
    length: int
    can_open: bool
    can_close: bool
    left: int
    opens: list[int] = field(default_factory=list)  # matches it opens, outermost first
    closes: list[int] = field(default_factory=list)  # matches it closes, innermost first
    active: bool = True


def _inline(source: str, *, bold: bool = False, nesting: int = 0) -> str:
    """One paragraph's inline Markdown as mrkdwn (`bold`: already inside bold, as in headings).

    `nesting` counts the link labels around `source`: a label holds no links (as in CommonMark)
    and an image's alt text no images, so labels never nest deeper than two.
    """
    nodes: list[str | _Run] = []  # finished mrkdwn, or a delimiter run
    pending: list[str] = []
    # Looking ahead for `](url)` costs time; a paragraph of unclosed brackets must not make
    # that quadratic. Past this budget the brackets that are left stay text.
    look_ahead = LINK_LOOK_AHEAD_PER_CHAR * len(source) + LINK_REACH

    def text() -> None:
        if pending:
            nodes.append(_text("".join(pending)))
            pending.clear()

    i, n = 0, len(source)
    while i < n:
        char = source[i]
        if char == "\\" and i + 1 < n and source[i + 1] in _ASCII_PUNCTUATION:
            pending.append(source[i + 1])
            i += 2
            continue
        if char == "`":
            span = _code_span(source, i)
            text()
            nodes.append(span[0])
            i = span[1]
            continue
        image = char == "!" and source.startswith("[", i + 1)
        if ((image and nesting < 2) or (char == "[" and nesting == 0)) and look_ahead > 0:
            start = i + 1 if image else i
            link, scanned = _link(source, start, min(len(source), start + LINK_REACH))
            look_ahead -= scanned - start
            if link is not None:
                label, destination, i = link
                text()
                nodes.append(_link_text(label, destination, bold=bold, nesting=nesting + 1))
                continue
        if char == "<":
            auto = _AUTOLINK.match(source, i)
            if auto is not None:
                text()
                url = _url(auto.group(1))
                nodes.append(url if url.startswith("<") else _text(auto.group()))
                i = auto.end()
                continue
        if char in "hH" and (i == 0 or not (source[i - 1].isalnum() or source[i - 1] in "/@<")):
            bare = _BARE_URL.match(source, i)
            if bare is not None:
                url = _trim_url(bare.group())
                text()
                nodes.append(_url(url))
                i += len(url)
                continue
        if char in "*_~":
            end = i
            while end < n and source[end] == char:
                end += 1
            text()
            nodes.append(_delimiter_run(source, i, end))
            i = end
            continue
        pending.append(char)
        i += 1
    text()
    runs = [node for node in nodes if isinstance(node, _Run)]
    styles = _match_emphasis(runs) if len(runs) <= EMPHASIS_RUNS_MAX else {}
    return _break_ticks(_emit(nodes, styles, bold=bold))  # code spans side by side: "`a``b`"


def _code_span(source: str, i: int) -> tuple[str, int]:
    """The code span starting at `i` as mrkdwn and its end; unmatched backticks stay literal."""
    n = len(source)
    start = i
    while start < n and source[start] == "`":
        start += 1
    ticks = start - i
    search = start
    while True:
        found = source.find("`", search)
        if found < 0:
            return _text(source[i:start]), start
        end = found
        while end < n and source[end] == "`":
            end += 1
        if end - found == ticks:
            break
        search = end
    content = source[start:found].replace("\n", " ")
    if len(content) > 2 and content[0] == " " and content[-1] == " " and content.strip():
        content = content[1:-1]
    if "`" in content or not content.strip():
        return _text(source[i:end]), end  # mrkdwn cannot show this as code: show it as written
    return f"`{escape(content)}`", end


def _link(source: str, i: int, n: int) -> tuple[tuple[str, str, int] | None, int]:
    """`[label](destination "title")` at `i`, ending before `n`: its label, destination and end
    (or None), and how far it looked."""
    depth = 0
    j = i
    while j < n:
        char = source[j]
        if char == "\\":
            j += 2
            continue
        if char == "`":
            j = _code_span(source, j)[1]
            continue
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
            if depth == 0:
                break
        j += 1
    if j + 1 >= n or source[j + 1] != "(":
        return None, min(j, n)
    label = source[i + 1 : j]
    k = _skip_spaces(source, j + 2)
    if source.startswith("<", k, n):
        close = source.find(">", k, n)
        if close < 0 or "\n" in source[k:close] or "<" in source[k + 1 : close]:
            return None, n if close < 0 else close
        destination = source[k + 1 : close]
        k = close + 1
    else:
        start, parens = k, 0
        while k < n and not source[k].isspace():
            char = source[k]
            if char == "\\" and k + 1 < n:
                k += 2
                continue
            if char == "(":
                parens += 1
            elif char == ")":
                if parens == 0:
                    break
                parens -= 1
            k += 1
        destination = source[start:k]
    after = _skip_spaces(source, k)
    if after < n and source[after] in "\"'(" and after > k:
        closer = ")" if source[after] == "(" else source[after]
        end = source.find(closer, after + 1, n)
        if end < 0:
            return None, n
        k = _skip_spaces(source, end + 1)
    else:
        k = after
    if not source.startswith(")", k, n):
        return None, min(k, n)
    return (label, re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", destination), k + 1), k + 1


def _skip_spaces(source: str, i: int) -> int:
    while i < len(source) and source[i] in " \t\n":
        i += 1
    return i


def _link_text(label: str, destination: str, *, bold: bool, nesting: int) -> str:
    """A link or image as `text (<url>)`: the URL is always shown, never hidden behind text."""
    url = _url(destination) if destination else ""
    shown = _inline(label, bold=bold, nesting=nesting).strip()
    if not url:
        return shown
    if not shown or label.strip() == destination:
        return url
    return f"{shown} ({url})"


def _trim_url(url: str) -> str:
    """A bare URL without the punctuation that ends its sentence or closes its parenthesis."""
    while url and url[-1] in ".,:;!?'*_~)":
        if url[-1] == ")" and url.count("(") >= url.count(")"):
            break
        url = url[:-1]
    return url


def _kind(char: str) -> str:
    if char.isspace():
        return "space"
    if unicodedata.category(char)[0] in "PS":
        return "punctuation"
    return "other"


def _delimiter_run(source: str, start: int, end: int) -> _Run:
    """A delimiter run with CommonMark's flanking rules deciding whether it opens or closes."""
    char = source[start]
    before = _kind(source[start - 1]) if start > 0 else "space"
    after = _kind(source[end]) if end < len(source) else "space"
    left = after != "space" and (after != "punctuation" or before != "other")
    right = before != "space" and (before != "punctuation" or after != "other")
    if char == "_":
        can_open = left and (not right or before == "punctuation")
        can_close = right and (not left or after == "punctuation")
    else:
        can_open, can_close = left, right
    return _Run(char, end - start, can_open, can_close, end - start)


def _match_emphasis(runs: list[_Run]) -> dict[int, str]:
    """Pair openers with closers (CommonMark's "process emphasis"); the mark of each match."""
    styles: dict[int, str] = {}
    bottoms: dict[tuple[str, bool, int], int] = {}
    for index, closer in enumerate(runs):
        if not closer.can_close:
            continue
        while closer.left > 0 and closer.active:
            key = (closer.char, closer.can_open, closer.length % 3)
            at = index - 1
            while at > bottoms.get(key, -1):
                opener = runs[at]
                if opener.active and opener.left > 0 and opener.can_open and _pairs(opener, closer):
                    break
                at -= 1
            else:
                bottoms[key] = index - 1
                break
            opener = runs[at]
            if closer.char == "~":
                used, mark = closer.length, "~"
            else:
                used = 2 if opener.left >= 2 and closer.left >= 2 else 1
                mark = _MARKS[used]
            match = len(styles)
            styles[match] = mark
            opener.left -= used
            closer.left -= used
            opener.opens.insert(0, match)
            closer.closes.append(match)
            for inner in runs[at + 1 : index]:
                inner.active = False
    return styles


def _pairs(opener: _Run, closer: _Run) -> bool:
    if opener.char != closer.char:
        return False
    if closer.char == "~":
        return opener.length == closer.length <= 2
    both = opener.length + closer.length
    odd = (opener.can_close or closer.can_open) and both % 3 == 0
    return not odd or (opener.length % 3 == 0 and closer.length % 3 == 0)


def _emit(nodes: list[str | _Run], styles: dict[int, str], *, bold: bool) -> str:
    """The nodes as mrkdwn; emphasis nested inside the same emphasis is dropped (mrkdwn can't)."""
    active = {"*": int(bold), "_": 0, "~": 0}
    hidden: set[int] = set()
    out: list[str] = []
    for node in nodes:
        if isinstance(node, str):
            out.append(node)
            continue
        for match in node.closes:
            mark = styles[match]
            active[mark] -= 1
            if match not in hidden:
                out.append(mark)
        out.append(node.char * node.left)
        for match in node.opens:
            mark = styles[match]
            if active[mark]:
                hidden.add(match)
            else:
                out.append(mark)
            active[mark] += 1
    return "".join(out)


# --- the modal: the whole plan as mrkdwn sections, paginated ------------------------------------


def plan_pages(markdown: str, *, per_page: int = 90) -> list[list[Block]]:
    """The whole plan as mrkdwn `section` blocks (≤ 3,000 characters each), `per_page` a page.

    Sections are cut at line ends (a line longer than a section is cut between words); a code
    block cut between two sections is closed at the end of one and reopened in the next.
    Block ids are `sq~plan.<n>`, numbered across pages.
    """
    if not 1 <= per_page <= MODAL_BLOCKS_MAX:
        raise ValueError(f"per_page must be between 1 and {MODAL_BLOCKS_MAX}")
    pieces = _sections(markdown_to_mrkdwn(markdown)) or [EMPTY_PLAN]
    blocks: list[Block] = [
        SectionBlock(block_id=f"sq~plan.{n}", text=MarkdownTextObject(verbatim=True, text=piece))
        for n, piece in enumerate(pieces)
    ]
    return [blocks[start : start + per_page] for start in range(0, len(blocks), per_page)]


def _sections(mrkdwn: str) -> list[str]:
    """`mrkdwn` in pieces of at most 3,000 characters, code blocks balanced in each."""
    sections = _Sections()
    for line in mrkdwn.split("\n"):
        if sections.add(line):
            continue
        sections.end()
        while not sections.add(line):
            room = sections.room()
            if room < SECTION_TEXT_MAX // 4:
                sections.flush()  # start the long line in a fresh section instead
                continue
            cut = _line_cut(line, room)
            sections.add(line[:cut].rstrip())
            sections.flush()
            line = line[cut:].lstrip()
    sections.flush()
    return sections.pieces


_HEADING_LINE = re.compile(r"(?:> (?:&gt; )*)?\*[^*\n]+\*")  # what a heading becomes


class _Sections:
    """Packs mrkdwn lines into section texts; an open code block is closed and reopened."""

    RESERVE = len(FENCE) + 1  # room to close an open code block
    BACKTRACK = 1000  # a section may end this much early, at a blank line outside code

    def __init__(self) -> None:
        self.pieces: list[str] = []
        self.lines: list[str] = []
        self.code: list[bool] = []  # inside a code block after each line
        self.size = 0  # len("\n".join(self.lines))

    @property
    def in_code(self) -> bool:
        return self.code[-1] if self.code else False

    def room(self) -> int:
        """Characters left for one more line."""
        used = self.size + (1 if self.lines else 0) + (self.RESERVE if self.in_code else 0)
        return SECTION_TEXT_MAX - used

    def add(self, line: str) -> bool:
        """Add `line` if it fits (with room left to close a code block it leaves open)."""
        code_after = self.in_code != (line == FENCE)
        grown = self.size + (1 if self.lines else 0) + len(line)
        if grown + (self.RESERVE if code_after else 0) > SECTION_TEXT_MAX:
            return False
        self.lines.append(line)
        self.code.append(code_after)
        self.size = grown
        return True

    def end(self) -> None:
        """End the section at its last paragraph break (not one under a heading), if near the end."""
        tail_size = 0
        for at in range(len(self.lines) - 1, 0, -1):
            if tail_size > self.BACKTRACK:
                break
            if (
                not self.lines[at]
                and not self.code[at]
                and not _HEADING_LINE.fullmatch(self.lines[at - 1])
            ):
                tail = self.lines[at + 1 :]
                del self.lines[at:], self.code[at:]
                self.flush()
                for line in tail:
                    self.add(line)
                return
            tail_size += len(self.lines[at]) + 1
        self.flush()

    def flush(self) -> None:
        """End the section here, closing a code block that goes on into the next one."""
        in_code = self.in_code
        if in_code:
            if self.lines[-1] == FENCE:
                self.lines.pop()  # a fence with nothing after it yet: it opens the next section
            else:
                self.lines.append(FENCE)
        text = "\n".join(self.lines).strip("\n")
        if text.strip() and text != FENCE:
            self.pieces.append(text)
        self.lines = [FENCE] if in_code else []
        self.code = [True] if in_code else []
        self.size = len(FENCE) if in_code else 0


def _line_cut(line: str, room: int) -> int:
    """Where to cut a line too long for `room`: at a space, else not inside `&…;` or `<…>`."""
    space = line.rfind(" ", 1, room + 1)
    if space > 0 and line[:space].strip():
        return space
    cut = room
    amp = line.rfind("&", max(1, cut - 5), cut)
    if amp > 0 and ";" not in line[amp:cut]:
        cut = amp
    opening = line.rfind("<", 1, cut)
    if opening > 0 and ">" not in line[opening:cut]:
        cut = opening
    return max(cut, 1)


# --- revisions -----------------------------------------------------------------------------------


def plan_diff(old: str, new: str) -> PlanDiff:
    """What changed from `old` to `new`: lines added and removed, and the unified diff."""
    lines = list(
        difflib.unified_diff(
            old.splitlines(), new.splitlines(), "previous plan", "this plan", n=2, lineterm=""
        )
    )
    body = [line for line in lines[2:] if not line.startswith("@@")]
    added = sum(1 for line in body if line.startswith("+"))
    removed = sum(1 for line in body if line.startswith("-"))
    return PlanDiff(added, removed, "\n".join(lines))
