"""Grants in words, with a Revoke button each: `/agent-questions grants` and the Home tab's
"Grants" section.

Pure: grants in, Block Kit out. Each grant reads as what it covers — the tool, each argument
pattern, whose calls (this session, this agent, everyone) —, who granted it when, and when it
expires. Tool names, fields, patterns and subjects come from agents' calls: each is shown as
inline code, escaped, so none can ping, link or pass for the bot's words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from slack_sdk.models.blocks import (
    Block,
    ButtonElement,
    ConfirmObject,
    ContextBlock,
    HeaderBlock,
    MarkdownTextObject,
    PlainTextObject,
    SectionBlock,
)

from bot.block_ids import Action
from bot.render.agent_text import code_span
from bot.render.decided import when
from bot.render.message import MessageContent
from bot.render.question import SECTION_TEXT_MAX
from bot.render.text import cut_escaped
from bot.review import REGEX_PREFIX
from bot.store import Grant

GRANTS_TITLE: Final = "Grants"
NO_GRANTS: Final = (
    '_No active grants you may revoke._ "Allow for this session" on a tool card makes one.'
)
GRANTS_INTRO: Final = (
    "Tool calls allowed without asking, that you may revoke (you may allow those tools)."
)
MESSAGE_GRANTS_MAX: Final = 50  # a message's blocks
FIELDS_SHOWN: Final = 5  # argument patterns per grant; the rest are counted
PATTERN_MAX: Final = 300
NAME_MAX: Final = 100
_ESCAPED: Final = re.compile(r"\\(.)", re.DOTALL)
_UNITS: Final = (("day", 86400), ("hour", 3600), ("minute", 60), ("second", 1))


def duration_words(seconds: float) -> str:
    """A duration as people say it: "8 hours", "30 minutes", "1 day and 2 hours"."""
    left = max(1, round(seconds))
    words = []
    for unit, size in _UNITS:
        count, left = divmod(left, size)
        if count:
            words.append(f"{count} {unit}{'' if count == 1 else 's'}")
    return " and ".join(words[:2])


def _pattern_words(pattern: str) -> str:
    """An argument pattern in words: an exact value ("is"), a regular expression, a glob."""
    if pattern.startswith(REGEX_PREFIX):
        body = pattern[len(REGEX_PREFIX) :]
        literal = _ESCAPED.sub(r"\1", body)
        if re.escape(literal) == body:
            return f"is exactly {code_span(literal, PATTERN_MAX)}"
        return f"matches the regular expression {code_span(body, PATTERN_MAX)}"
    return f"matches {code_span(pattern, PATTERN_MAX)}"


def covers_words(grant: Grant) -> str:
    """What a grant covers, in words: tool, argument patterns, and whose calls."""
    tool = code_span(grant.tool, NAME_MAX)
    fields = [
        f"{code_span(name, NAME_MAX)} {_pattern_words(pattern)}"
        for name, pattern in sorted(grant.args.items())[:FIELDS_SHOWN]
    ]
    if len(grant.args) > FIELDS_SHOWN:
        fields.append(f"{len(grant.args) - FIELDS_SHOWN} more fields")
    args = f" where {', '.join(fields)}" if fields else " with any input"
    subject = code_span(grant.subject or "", NAME_MAX)
    match grant.scope:
        case "session":
            whose = f"for this agent session only ({subject})"
        case "agent":
            whose = f"for the agent {subject}"
        case "everyone":
            whose = "for every agent"
    return f"*{tool}*{args}, {whose}"


def grant_text(grant: Grant) -> str:
    """One grant: what it covers, then who granted it when and when it expires."""
    expires = (
        f"expires {when(grant.expires_at)}" if grant.expires_at is not None else "never expires"
    )
    meta = f"Granted by <@{grant.granted_by}> {when(grant.created_at)} · {expires}"
    return cut_escaped(f"{covers_words(grant)}\n{meta} · grant `{grant.id}`", SECTION_TEXT_MAX)


def revoke_button(grant: Grant) -> ButtonElement:
    """Revoke, confirmed first: the grant's next covered call is asked in Slack again."""
    return ButtonElement(
        action_id=Action.REVOKE,
        text=PlainTextObject(text="Revoke"),
        value=grant.id,
        style="danger",
        confirm=ConfirmObject(
            title="Revoke this grant?",
            text=PlainTextObject(text="Its next call is asked in Slack again.", emoji=False),
            confirm="Revoke",
            deny="Keep it",
        ),
    )


def grant_blocks(
    grants: Sequence[Grant], *, max_blocks: int, notice: str | None = None
) -> list[Block]:
    """The "Grants" section in at most `max_blocks` blocks: a header, `notice` (what the last
    Revoke did), an intro, one section per grant with its Revoke button; a cut list says how
    many grants are not shown."""
    head: list[Block] = [
        HeaderBlock(block_id="sq~grants.title", text=PlainTextObject(text=GRANTS_TITLE))
    ]
    if notice is not None:
        head.append(_context("sq~grants.notice", notice))
    head.append(_context("sq~grants.intro", GRANTS_INTRO))
    room = max_blocks - len(head)
    if not grants:
        return [*head, _context("sq~grants.empty", NO_GRANTS)]
    shown = list(grants) if len(grants) <= room else list(grants[: room - 1])
    blocks: list[Block] = [
        *head,
        *(
            SectionBlock(
                block_id=f"sq~grants.{n}",
                text=MarkdownTextObject(verbatim=True, text=grant_text(grant)),
                accessory=revoke_button(grant),
            )
            for n, grant in enumerate(shown)
        ),
    ]
    hidden = len(grants) - len(shown)
    if hidden:
        what = "grant is" if hidden == 1 else "grants are"
        blocks.append(_context("sq~grants.more", f"…and {hidden} more {what} not shown."))
    return blocks


def grants_message(grants: Sequence[Grant], *, notice: str | None = None) -> MessageContent:
    """The `/agent-questions grants` answer, within a message's 50 blocks."""
    count = f"{len(grants)} active grant{'' if len(grants) == 1 else 's'} you may revoke"
    return MessageContent(
        text=f"Grants: {count}",
        blocks=grant_blocks(grants, max_blocks=MESSAGE_GRANTS_MAX, notice=notice),
    )


def _context(block_id: str, text: str) -> ContextBlock:
    return ContextBlock(block_id=block_id, elements=[MarkdownTextObject(verbatim=True, text=text)])
