"""Whole messages: the thread root, and each part of an ask as it is first posted."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    MarkdownTextObject,
    PlainTextObject,
    SectionBlock,
)

from bot.block_ids import Action, BlockKind, PartRef
from bot.render.agent_text import code_span, literal_within, one_line
from bot.render.layout import AskLayout, takes_replies
from bot.render.question import REPLY_HINT_TEXT, form_blocks, one_click_blocks, reply_hint
from bot.render.text import cut_escaped

FALLBACK_TEXT_MAX = 300
AGENT_NAME_MAX = 80
AGENT_ID_MAX = 80


@dataclass(frozen=True)
class MessageContent:
    """What chat.postMessage / chat.update send: notification text and blocks."""

    text: str
    blocks: list[Block]

    def blocks_json(self) -> list[dict[str, Any]]:
        """The blocks as Slack JSON (slack_sdk validates each one here)."""
        return [block.to_dict() for block in self.blocks]


def agent_label(agent_name: str | None, agent_id: str | None) -> str:
    """How the agent is named in messages (mrkdwn): its name as literal text, then its id.

    Never bold and never formatted, so no name can pass for the bot's own words, and the id is
    always beside it (in code), so a name alone cannot pass for another agent's."""
    name = " ".join((agent_name or "").split())
    ident = " ".join((agent_id or "").split())
    if name and ident and name != ident:
        return f"{one_line(name, AGENT_NAME_MAX)} ({code_span(ident, AGENT_ID_MAX)})"
    if ident:
        return code_span(ident, AGENT_ID_MAX)
    return one_line(name, AGENT_NAME_MAX) if name else "An agent"


def thread_root(agent_name: str | None, agent_id: str | None) -> MessageContent:
    """The message that opens an agent session's thread."""
    name = agent_label(agent_name, agent_id)
    blocks: list[Block] = [
        SectionBlock(
            block_id="sq~root",
            text=MarkdownTextObject(
                verbatim=True,
                text=f":robot_face: Agent {name} needs answers from people. "
                "Its questions appear in this thread.",
            ),
        )
    ]
    # The notification keeps its short form; the message itself always shows the id.
    plain = one_line(agent_name or agent_id or "An agent", AGENT_NAME_MAX)
    return MessageContent(text=f"{plain} needs answers from people", blocks=blocks)


def ask_message(
    ask_id: str,
    layout: AskLayout,
    part_number: int,
    agent_name: str | None,
    *,
    agent_id: str | None = None,
) -> MessageContent:
    """One part of an ask, with its controls."""
    part = layout.parts[part_number]
    who = agent_label(agent_name, agent_id)
    first = part.questions[0].question
    # Notification text: the same words, the id without its code marks (a backtick in agent
    # text is never a real one, so only those marks go).
    text = cut_escaped(
        f"{who.replace('`', '')} asks: {literal_within(first.question, FALLBACK_TEXT_MAX)}",
        FALLBACK_TEXT_MAX,
    )
    if layout.one_click:
        return MessageContent(text, one_click_blocks(layout, ask_id, part.questions[0]))
    total = len(layout.questions)
    heading = f"{who} asks:" if total == 1 else f"{who} asks {total} questions"
    if len(layout.parts) > 1:
        heading += f" — part {part_number + 1} of {len(layout.parts)}"
    blocks: list[Block] = [
        SectionBlock(
            block_id=layout.aux_block_id(BlockKind.PART_HEADING, part_number),
            text=MarkdownTextObject(verbatim=True, text=heading),
        )
    ]
    for q in part.questions:
        blocks.extend(form_blocks(layout, q, ask_id, in_modal=False))
    lone = part.questions[0]
    if total == 1 and not first.options and takes_replies(first):
        blocks.append(reply_hint(layout, lone, REPLY_HINT_TEXT))
    ref = PartRef(ask_id, part_number).encode()
    blocks.append(
        ActionsBlock(
            block_id=layout.aux_block_id(BlockKind.SUBMIT, part_number),
            elements=[
                ButtonElement(
                    action_id=Action.SUBMIT,
                    text=PlainTextObject(text="Submit"),
                    value=ref,
                    style="primary",
                ),
                ButtonElement(
                    action_id=Action.FORM,
                    text=PlainTextObject(text="Answer in a form"),
                    value=ref,
                ),
            ],
        )
    )
    return MessageContent(text, blocks)
