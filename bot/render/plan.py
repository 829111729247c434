"""A plan under review, shown faithfully and safely: a Markdown preview for the message, the
whole plan as mrkdwn pages for a modal, and what changed between two revisions.

Pure functions, no I/O. Two renderings, because the surfaces differ:

- A message shows the plan in Slack's `markdown` block, which renders standard Markdown but
  exists only in messages and holds at most 12,000 characters across all such blocks of a
  payload. The plan goes in as written, except that every link CommonMark sees is written out
  as `text (address)` and raw HTML made inert (`reveal_links`), and every Slack `<…>` token,
  in any entity spelling, is broken (`neutralize`). A longer plan is cut at a line end, never
  inside a code block without closing it; where blocks and code sit is the parser's judgement.
- A modal cannot hold `markdown` blocks, so the whole plan is converted to mrkdwn
  (`markdown_to_mrkdwn`) and cut into `section` blocks of at most 3,000 characters, paginated.

The conversion escapes all agent text (`&`, `<`, `>`), code included, so nothing the agent
wrote can ping, mention or disguise a link; the only `<…>` it emits are links of the form
`<https://…>` that show their own URL.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from slack_sdk.models.blocks import Block, MarkdownBlock, MarkdownTextObject, SectionBlock

from bot.render.markdown import FENCE, ZWSP, blocks, markdown_to_mrkdwn, normalized, reveal_links

__all__ = [
    "CODE_CONTINUES",
    "CONTINUES",
    "EMPTY_PLAN",
    "PlanDiff",
    "PlanPreview",
    "neutralize",
    "plan_diff",
    "plan_pages",
    "plan_preview",
    "reveal_links",
]

MARKDOWN_BLOCKS_MAX = 12_000  # cumulative text of all markdown blocks in one payload
SECTION_TEXT_MAX = 3000
MODAL_BLOCKS_MAX = 100
PREVIEW_BUDGET_MIN = 300

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

# `<` (or an entity spelling it, in any case, with or without its `;`, or itself escaped as
# `&amp;…`) right before what would make a Slack token: a special mention `<!…>`, a user `<@…>`,
# a channel `<#…>`, a link `<scheme:…>`, or an entity or escape that could spell one of these.
_TOKEN_START = re.compile(
    r"(?:<|&(?:amp;)*(?:lt;?|#0*60;|#x0*3c;))(?=[!@#\\]|&[#A-Za-z]|[A-Za-z][A-Za-z0-9+.\-]*(?::|&[#A-Za-z]))",
    re.IGNORECASE,
)


def neutralize(markdown: str) -> str:
    """`markdown` with a zero-width space after every `<` that could start a Slack token.

    How the `markdown` block treats `<!channel>`, `<@U…>` or `<url|text>` is not documented, so
    every `<` followed by `!`, `@`, `#` or a URL scheme is broken: it reads the same, but can
    never ping, mention or link. Every entity spelling of `<` (`&lt;`, `&LT;`, `&lt`, `&#60;`,
    `&#x3C;`, `&amp;lt;`…) is broken too, in case Slack decodes them before it looks for tokens,
    and so is a `<` before an entity or escape. Everything else is left byte for byte.
    """
    return _TOKEN_START.sub(lambda m: m.group() + ZWSP, markdown)


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
    markdown = normalized(markdown)
    total = len(markdown)
    if not markdown.strip():
        return PlanPreview([MarkdownBlock(text=EMPTY_PLAN)], 0, total, True)
    # Writing links out rarely shortens a plan much: one far over budget is not tried whole.
    whole = neutralize(reveal_links(markdown)) if total <= 2 * budget else None
    if whole is not None and len(whole) <= budget:
        return PlanPreview([MarkdownBlock(text=whole)], total, total, True)
    limit = budget - len(CODE_CONTINUES) - 8
    lines = _preview_lines(markdown)
    while True:
        pos, close = _preview_cut(markdown, lines, limit)
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


def _preview_lines(markdown: str) -> list[_Line]:
    """Each line of the plan as a place to cut, judged by the parser's blocks."""
    lines = markdown.split("\n")
    close: dict[int, str] = {}  # a line in a code block: how to close the block after it
    code: set[int] = set()
    ends: set[int] = set()  # the last line of a block other than a heading
    headings: set[int] = set()
    for token in blocks(markdown):
        if token.map is None:
            continue
        first, last = token.map[0], token.map[1] - 1
        if token.type == "heading_open":
            headings.update(range(first, last + 1))
        elif token.type in ("paragraph_open", "code_block", "hr", "table_open", "html_block"):
            ends.add(last)
        elif token.type == "fence":
            opening = lines[first]
            prefix = re.sub(r"[^\s>]", " ", opening[: opening.find(token.markup)])
            closed = last > first and _closes(lines[last], token.markup)
            inside = range(first + 1, last if closed else last + 1)
            close.update(dict.fromkeys([first, *inside], prefix + token.markup))
            code.update(inside)
            ends.add(last)
    out: list[_Line] = []
    pos = 0
    under_heading = False
    for index, line in enumerate(lines):
        pos += len(line)
        if line.strip() or index in close:
            under_heading = index in headings
            block = index in ends and index not in close
        else:
            block = not under_heading
        out.append(_Line(pos, block, close.get(index), code=index in code))
        pos += 1
    return out


def _closes(line: str, fence: str) -> bool:
    """Whether `line` closes a code block opened by `fence` (inside any quote marks)."""
    body = re.sub(r"^[\s>]*", "", line).rstrip()
    return len(body) >= len(fence) and body == fence[0] * len(body)


def _preview_cut(markdown: str, lines: list[_Line], limit: int) -> tuple[int, str | None]:
    """Where to cut `markdown` (made of `lines`) to at most `limit` characters, and the fence
    line to close with."""
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
