"""Markdown, as agents write it, read line by line and converted to Slack's mrkdwn.

Pure functions, no I/O. All agent text is escaped (`&`, `<`, `>`), code included, so nothing
converted can ping, mention or disguise a link; the only `<…>` emitted are links of the form
`<https://…>` that show their own URL.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from .text import escape

ZWSP = "\u200b"
FENCE = "```"
RULE = "─" * 20


@dataclass(frozen=True)
class Fence:
    """An open code fence: how to close it, and where it sits."""

    char: str
    length: int
    depth: int  # block quotes around it
    indent: int  # columns before the fence, inside those quotes
    close: str  # a line that closes it, for cutting inside it


_QUOTE_MARK = re.compile(r" {0,3}> ?")
FENCE_OPEN = re.compile(r"(`{3,}|~{3,})(.*)$")
HEADING = re.compile(r"(#{1,6})(?:[ \t]+|$)(.*?)(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"(?:=+|-+)[ \t]*$")
_RULE = re.compile(r"(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$")
ITEM = re.compile(r"([-*+]|\d{1,9}[.)])(?:([ \t]+)(.*)|$)")
_TASK = re.compile(r"\[([ xX])\][ \t]+")
_TABLE_DELIMITER = re.compile(r"\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")
INDENT = "    "


def strip_quotes(line: str, most: int = 1_000) -> tuple[int, str]:
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


def open_fence(line: str) -> Fence | None:
    depth, body = strip_quotes(line)
    stripped = body.lstrip()
    opening = FENCE_OPEN.match(stripped)
    if opening is None or (opening.group(1)[0] == "`" and "`" in opening.group(2)):
        return None
    marks = opening.group(1)
    prefix = line[: len(line) - len(stripped)]
    return Fence(marks[0], len(marks), depth, _indent(body), prefix + marks)


def closes_fence(fence: Fence, body: str) -> bool:
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
        depth, body = strip_quotes(self.lines[i])
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
        fence = open_fence(self.lines[i])
        if fence is not None and (indent < 4 or self.items):
            self.flush()
            return self.fenced_code(i + 1, fence)
        if indent >= 4 and self.paragraph is None and not self.items:
            return self.indented_code(i)
        heading = HEADING.match(stripped) if indent < 4 else None
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
        item = ITEM.match(content)
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

    def fenced_code(self, i: int, fence: Fence) -> int:
        code: list[str] = []
        while i < len(self.lines):
            depth, body = strip_quotes(self.lines[i], fence.depth)
            if depth < fence.depth:
                break
            i += 1
            if closes_fence(fence, body):
                break
            spaces = len(body) - len(body.lstrip(" "))
            code.append(body[min(spaces, fence.indent) :])
        self.code(code)
        return i

    def indented_code(self, i: int) -> int:
        code: list[str] = []
        while i < len(self.lines):
            depth, body = strip_quotes(self.lines[i], self.depth)
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
        depth, following = strip_quotes(self.lines[i + 1], self.depth)
        row = following.strip()
        return depth == self.depth and "|" in row and bool(_TABLE_DELIMITER.match(row))

    def table(self, i: int) -> int:
        rows: list[str] = []
        while i < len(self.lines):
            depth, body = strip_quotes(self.lines[i], self.depth)
            row = body.strip()
            if depth < self.depth or not row or "|" not in row or open_fence(body):
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
