"""Grants and saved rules in words, with a Revoke button each: `/agent-questions grants` and
the Home tab's "Grants" section.

Pure: grants and rules saved with "Always allow" in, Block Kit out. A rule's Revoke carries
`rule:<name>` (`RULE_REVOKE_PREFIX`), a grant's its id, so one action tells them apart. Each grant reads as what it covers — the tool, each argument
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

from bot.block_ids import RULE_REVOKE_PREFIX, Action
from bot.render.agent_text import code_span
from bot.render.decided import when
from bot.render.message import MessageContent
from bot.render.question import SECTION_TEXT_MAX
from bot.render.text import cut_escaped
from bot.review import REGEX_PREFIX
from bot.store import Grant, StoredRule

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


def covers_words(grant: Grant | StoredRule) -> str:
    """What a grant (or saved rule) covers, in words: tool, argument patterns, whose calls."""
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


def rule_text(rule: StoredRule) -> str:
    """One saved rule: its name and what it covers, then who saved it when and its expiry."""
    expires = f"expires {when(rule.expires_at)}" if rule.expires_at is not None else "never expires"
    name = code_span(rule.name, NAME_MAX)
    meta = f"Saved by <@{rule.created_by}> {when(rule.created_at)} · {expires}"
    return cut_escaped(f"Rule {name}: {covers_words(rule)}\n{meta}", SECTION_TEXT_MAX)


def rule_revoke_button(rule: StoredRule) -> ButtonElement:
    """Revoke, confirmed first: the rule's next matching call is asked in Slack again."""
    return ButtonElement(
        action_id=Action.REVOKE,
        text=PlainTextObject(text="Revoke"),
        value=f"{RULE_REVOKE_PREFIX}{rule.name}",
        style="danger",
        confirm=ConfirmObject(
            title="Revoke this rule?",
            text=PlainTextObject(text="Its next matching call is asked in Slack.", emoji=False),
            confirm="Revoke",
            deny="Keep it",
        ),
    )


def grant_blocks(
    grants: Sequence[Grant],
    *,
    max_blocks: int,
    notice: str | None = None,
    rules: Sequence[StoredRule] = (),
) -> list[Block]:
    """The "Grants" section in at most `max_blocks` blocks: a header, `notice` (what the last
    Revoke did), an intro, one section per grant, then per saved rule, with its Revoke button;
    a cut list says how many are not shown."""
    head: list[Block] = [
        HeaderBlock(block_id="sq~grants.title", text=PlainTextObject(text=GRANTS_TITLE))
    ]
    if notice is not None:
        head.append(_context("sq~grants.notice", notice))
    head.append(_context("sq~grants.intro", GRANTS_INTRO))
    room = max_blocks - len(head)
    if not grants and not rules:
        return [*head, _context("sq~grants.empty", NO_GRANTS)]
    listed = [
        *(
            SectionBlock(
                block_id=f"sq~grants.{n}",
                text=MarkdownTextObject(verbatim=True, text=grant_text(grant)),
                accessory=revoke_button(grant),
            )
            for n, grant in enumerate(grants)
        ),
        *(
            SectionBlock(
                block_id=f"sq~rules.{n}",
                text=MarkdownTextObject(verbatim=True, text=rule_text(rule)),
                accessory=rule_revoke_button(rule),
            )
            for n, rule in enumerate(rules)
        ),
    ]
    shown = listed if len(listed) <= room else listed[: room - 1]
    blocks: list[Block] = [*head, *shown]
    hidden_grants = max(0, len(grants) - len(shown))
    hidden_rules = len(listed) - len(shown) - hidden_grants
    if hidden_grants or hidden_rules:
        blocks.append(_context("sq~grants.more", _not_shown(hidden_grants, hidden_rules)))
    return blocks


def _not_shown(grants: int, rules: int) -> str:
    """ "…and 3 more grants are not shown", naming saved rules only when some are cut."""
    parts = [f"{grants} more grant{'' if grants == 1 else 's'}"] if grants else []
    if rules:
        parts.append(f"{rules} more saved rule{'' if rules == 1 else 's'}")
    verb = "is" if grants + rules == 1 else "are"
    return f"…and {' and '.join(parts)} {verb} not shown."


def grants_message(
    grants: Sequence[Grant], *, notice: str | None = None, rules: Sequence[StoredRule] = ()
) -> MessageContent:
    """The `/agent-questions grants` answer, within a message's 50 blocks."""
    count = f"{len(grants)} active grant{'' if len(grants) == 1 else 's'}"
    if rules:
        count += f" and {len(rules)} saved rule{'' if len(rules) == 1 else 's'}"
    return MessageContent(
        text=f"Grants: {count} you may revoke",
        blocks=grant_blocks(grants, max_blocks=MESSAGE_GRANTS_MAX, notice=notice, rules=rules),
    )


def _context(block_id: str, text: str) -> ContextBlock:
    return ContextBlock(block_id=block_id, elements=[MarkdownTextObject(verbatim=True, text=text)])
