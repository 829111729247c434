"""The line a rule's or a grant's decision leaves in its session's thread, and its words.

Pure: the settled ask (and the grant that decided it, when one did) in, one context line
out — no buttons, no mention, nothing that asks for attention: the team reads what ran
without being pinged for it. The granter is named by their Slack name in plain text
("@alice", looked up with `users.info`; their id when Slack cannot tell), not `<@…>`: a
mention would notify them at every call their grant allows. The tool's name and input are
the agent's text, shown literally (`bot.render.agent_text`).
"""

from __future__ import annotations

import json
from typing import Final

from pydantic import JsonValue
from slack_sdk.models.blocks import ContextBlock, MarkdownTextObject

from bot.render.agent_text import code_span, one_line
from bot.render.decided import when
from bot.render.message import MessageContent
from bot.render.text import escape
from bot.review import AutoDecider, auto_decider
from bot.store import AskRecord, Grant
from provider import ToolApprovalIntent

LINE_BLOCK_ID: Final = "sq~auto"
TOOL_MAX: Final = 60
INPUT_MAX: Final = 80
REASON_MAX: Final = 200
NAME_MAX: Final = 80
# The input field that says best what a call does, first found first (Claude Code's tools).
SUMMARY_FIELDS: Final = (
    "command",
    "file_path",
    "notebook_path",
    "path",
    "url",
    "pattern",
    "query",
    "prompt",
)
SCOPE_WORDS: Final = {
    "session": "for this session",
    "agent": "for this agent",
    "everyone": "for everyone",
}


def call_summary(intent: ToolApprovalIntent) -> str:
    """The call on one line: the tool's name, then the first line of its telling field
    (else of its input as JSON) as inline code, cut to fit."""
    tool = _tool_name(intent.tool) if intent.tool else "a tool"
    given: dict[str, JsonValue] = intent.input or {}
    value = next((given[k] for k in SUMMARY_FIELDS if isinstance(given.get(k), str)), None)
    if not isinstance(value, str):
        if not given:
            return tool
        value = ", ".join(f"{name}={_short(v)}" for name, v in given.items())
    lines = value.strip().splitlines() or [""]
    first = lines[0] + (" …" if len(lines) > 1 else "")
    return f"{tool} {code_span(first, INPUT_MAX)}" if first.strip() else tool


def _tool_name(tool: str) -> str:
    """The tool's name as it reads: literal, or as inline code when literal text would
    change how it looks (`mcp__db__query`'s underscores are not formatting)."""
    shown = one_line(tool, TOOL_MAX)
    return shown if shown == escape(" ".join(tool.split())) else code_span(tool, TOOL_MAX)


def _short(value: JsonValue) -> str:
    return value if isinstance(value, str) else _json(value)


def _json(value: JsonValue) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def decided_words(decider: AutoDecider, grant: Grant | None, granter: str | None = None) -> str:
    """Who decided, as the thread line says it: "rule `git-read-only`", "@alice's grant for
    this session (until <date>)" (`granter`: the granter's Slack name; None: their id)."""
    if decider.kind == "rule":
        return f"rule {code_span(decider.name, 70)}"
    if grant is None:
        return f"grant {code_span(decider.name, 30)}"  # revoked and purged since
    until = f" (until {when(grant.expires_at)})" if grant.expires_at is not None else ""
    # A name is the person's own text: shown literally, so it can neither mention nor format.
    who = f"@{one_line(granter, NAME_MAX)}" if granter else escape(grant.granted_by)
    return f"{who}'s grant {SCOPE_WORDS[grant.scope]}{until}"


def automatic_line(
    record: AskRecord, grant: Grant | None = None, granter: str | None = None
) -> MessageContent | None:
    """The thread line of an ask a rule or grant decided: "✅ auto-allowed by …: Bash `…`"
    or "❌ auto-denied by rule `…`: <reason> · Bash `…`". None for any other ask."""
    decider = auto_decider(record.decided_by)
    if decider is None or record.answer is None or len(record.questions) != 1:
        return None
    intent = record.questions[0].intent
    if not isinstance(intent, ToolApprovalIntent):
        return None
    call = call_summary(intent)
    who = decided_words(decider, grant, granter)
    [item] = record.answer.answers
    if item.selected == [intent.allow]:
        line = f"✅ auto-allowed by {who}: {call}"
    else:
        reason = one_line(item.custom, REASON_MAX) if item.custom else "denied"
        line = f"❌ auto-denied by {who}: {reason} · {call}"
    # Every piece is cut to its share: the line stays far below a context text's 3,000.
    block = ContextBlock(
        block_id=LINE_BLOCK_ID, elements=[MarkdownTextObject(verbatim=True, text=line)]
    )
    return MessageContent(text=line, blocks=[block])
