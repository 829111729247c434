"""The `markdown` block's standard markdown as HTML: headings, lists, quotes, code, rules,
tables (GitHub's pipe tables, which Slack's block renders), paragraphs, and inline emphasis,
code and links.

Pure and escaping, like `mrkdwn`: markdown's raw HTML is not supported here (Slack's block
does not render it either), so `<script>` in a plan is text on the page.
"""

from __future__ import annotations

import html
import re
from typing import Final

from slack_emulator.playground.mrkdwn import SAFE_SCHEMES

_HELD_BASE: Final = 0xF0000
_HELD: Final = re.compile("[\U000f0000-\U000ffffd]")
_FENCE: Final = re.compile(r"^\s*(```|~~~)")
_HEADING: Final = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_BULLET: Final = re.compile(r"^(\s*)[-*+]\s+(.*)$")
_NUMBERED: Final = re.compile(r"^(\s*)(\d{1,9})[.)]\s+(.*)$")
_RULE: Final = re.compile(r"^\s*([-*_])(\s*\1){2,}\s*$")
_QUOTE: Final = re.compile(r"^\s*>\s?(.*)$")
_TABLE_RULE: Final = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")
_CELL_SPLIT: Final = re.compile(r"(?<!\\)\|")
_INLINE_CODE: Final = re.compile(r"`([^`]+)`")
_LINK: Final = re.compile(r"\[([^\]\n]+)\]\(([^)\s]+)\)")
_AUTOLINK: Final = re.compile(r"<((?:https?://|mailto:)[^<>\s]+)>")
_STRONG: Final = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_EM: Final = re.compile(r"(?<![\w*])([*_])(?=\S)([^*_\n]+?)(?<=\S)\1(?![\w*])")
_STRIKE: Final = re.compile(r"~~(?=\S)(.+?)(?<=\S)~~")


def markdown(text: str) -> str:
    """Markdown text as HTML."""
    lines = _HELD.sub("", text).split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        fence = _FENCE.match(line)
        if fence:
            language = line.strip()[3:].strip()
            body: list[str] = []
            i += 1
            while i < len(lines) and not lines[i].strip().startswith(fence[1]):
                body.append(lines[i])
                i += 1
            i += 1
            label = f' data-language="{html.escape(language)}"' if language else ""
            out.append(
                f'<pre class="md-pre"{label}><code>{html.escape(chr(10).join(body))}</code></pre>'
            )
            continue
        if not line.strip():
            i += 1
            continue
        heading = _HEADING.match(line)
        if heading:
            level = len(heading[1])
            out.append(f'<h{level} class="md-h">{inline(heading[2])}</h{level}>')
            i += 1
            continue
        if _is_table(lines, i):
            rows: list[list[str]] = []
            while i < len(lines) and "|" in lines[i] and lines[i].strip():
                rows.append(_cells(lines[i]))
                i += 1
            out.append(_table(rows[0], rows[1], rows[2:]))
            continue
        if _RULE.match(line):
            out.append('<hr class="md-hr">')
            i += 1
            continue
        if _QUOTE.match(line):
            quoted: list[str] = []
            while i < len(lines) and (match := _QUOTE.match(lines[i])):
                quoted.append(match[1])
                i += 1
            out.append(
                f'<blockquote class="md-quote">{markdown(chr(10).join(quoted))}</blockquote>'
            )
            continue
        if _BULLET.match(line) or _NUMBERED.match(line):
            ordered = _NUMBERED.match(line) is not None
            items: list[str] = []
            while i < len(lines):
                item = _NUMBERED.match(lines[i]) if ordered else _BULLET.match(lines[i])
                if item is not None:
                    items.append(item[item.lastindex or 0])
                elif lines[i].startswith((" ", "\t")) and lines[i].strip() and items:
                    items[-1] += " " + lines[i].strip()  # a continuation of the item
                else:
                    break
                i += 1
            tag = "ol" if ordered else "ul"
            start = ""
            first = _NUMBERED.match(line)
            if first is not None and first[2] != "1":
                start = f' start="{int(first[2])}"'
            body_html = "".join(f"<li>{inline(item)}</li>" for item in items)
            out.append(f'<{tag} class="md-list"{start}>{body_html}</{tag}>')
            continue
        paragraph: list[str] = []
        while (
            i < len(lines)
            and lines[i].strip()
            and not _starts_block(lines[i])
            and not _is_table(lines, i)
        ):
            paragraph.append(lines[i].strip())
            i += 1
        out.append(f'<p class="md-p">{inline(" ".join(paragraph))}</p>')
    return "".join(out)


def _starts_block(line: str) -> bool:
    return any(
        pattern.match(line) for pattern in (_FENCE, _HEADING, _RULE, _QUOTE, _BULLET, _NUMBERED)
    )


def _is_table(lines: list[str], i: int) -> bool:
    """Whether a pipe table starts at line `i`: a row of cells over a `---|---` rule with as
    many columns."""
    if i + 1 >= len(lines) or "|" not in lines[i] or not _TABLE_RULE.match(lines[i + 1]):
        return False
    return "|" in lines[i + 1] and len(_cells(lines[i])) == len(_cells(lines[i + 1]))


def _cells(row: str) -> list[str]:
    """A table row's cells, trimmed; `\\|` is a pipe inside a cell."""
    inner = row.strip().removeprefix("|")
    if inner.endswith("|") and not inner.endswith("\\|"):
        inner = inner[:-1]
    return [cell.strip().replace("\\|", "|") for cell in _CELL_SPLIT.split(inner)]


def _table(header: list[str], rule: list[str], body: list[list[str]]) -> str:
    """A pipe table as an HTML table; each column aligned as its rule says (`:--`, `:-:`, `--:`)."""
    aligns = [
        "center"
        if cell.startswith(":") and cell.endswith(":")
        else "right"
        if cell.endswith(":")
        else "left"
        for cell in rule
    ]

    def row(cells: list[str], tag: str) -> str:
        # A short row is padded and a long one cut to the header's width, as GitHub does.
        padded = (cells + [""] * len(aligns))[: len(aligns)]
        return (
            "<tr>"
            + "".join(
                f'<{tag} style="text-align:{align}">{inline(cell)}</{tag}>'
                for cell, align in zip(padded, aligns, strict=True)
            )
            + "</tr>"
        )

    rows = "".join(row(cells, "td") for cells in body)
    return (
        '<div class="md-table-wrap"><table class="md-table">'
        f"<thead>{row(header, 'th')}</thead><tbody>{rows}</tbody></table></div>"
    )


def inline(text: str) -> str:
    """One line of markdown's inline syntax as HTML."""
    text = _HELD.sub("", text)
    held: list[str] = []

    def hold(markup: str) -> str:
        held.append(markup)
        return chr(_HELD_BASE + len(held) - 1)

    # Links first, so a label is rendered whole (by this same function) before anything is held.
    text = _LINK.sub(lambda m: hold(_link(m[2], inline(m[1]))), text)
    text = _AUTOLINK.sub(lambda m: hold(_link(m[1], html.escape(m[1]))), text)
    text = _INLINE_CODE.sub(lambda m: hold(f"<code>{html.escape(m[1])}</code>"), text)
    text = html.escape(text)
    text = _STRONG.sub(lambda m: f"<strong>{m[2]}</strong>", text)
    text = _EM.sub(lambda m: f"<em>{m[2]}</em>", text)
    text = _STRIKE.sub(lambda m: f"<s>{m[1]}</s>", text)
    return _HELD.sub(lambda m: held[ord(m[0]) - _HELD_BASE], text)


def _link(url: str, label_html: str) -> str:
    if not url.startswith(SAFE_SCHEMES):
        return label_html
    return (
        f'<a class="sk-link" href="{html.escape(url)}" target="_blank" '
        f'rel="noopener noreferrer">{label_html}</a>'
    )
