"""Whole messages: the thread root, and each part of an ask as it is first posted."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    ContextBlock,
    MarkdownTextObject,
    PlainTextObject,
    SectionBlock,
)

from bot.block_ids import Action, BlockKind, PartRef
from bot.render.layout import AskLayout
from bot.render.question import form_blocks, one_click_blocks
from bot.render.text import escaped_within

FALLBACK_TEXT_MAX = 300


@dataclass(frozen=True)
class MessageContent:
    """What chat.postMessage / chat.update send: notification text and blocks."""

    text: str
    blocks: list[Block]

    def blocks_json(self) -> list[dict[str, Any]]:
        """The blocks as Slack JSON (slack_sdk validates each one here)."""
        return [block.to_dict() for block in self.blocks]


def agent_label(agent_name: str | None, agent_id: str | None) -> str:
    """How the agent is named in messages (escaped mrkdwn)."""
    return escaped_within(agent_name or agent_id or "An agent", 80)


def thread_root(agent_name: str | None, agent_id: str | None) -> MessageContent:
    """The message that opens an agent session's thread."""
    name = agent_label(agent_name, agent_id)
    blocks: list[Block] = [
        SectionBlock(
            block_id="sq~root",
            text=MarkdownTextObject(
                verbatim=True,
                text=f":robot_face: *{name}* needs answers from people. "
                "Its questions appear in this thread.",
            ),
        )
    ]
    if agent_id and agent_name:
        blocks.append(
            ContextBlock(
                block_id="sq~root.id",
                elements=[
                    MarkdownTextObject(
                        verbatim=True, text=f"agent id `{escaped_within(agent_id, 200)}`"
                    )
                ],
            )
        )
    return MessageContent(text=f"{name} needs answers from people", blocks=blocks)


def ask_message(
    ask_id: str, layout: AskLayout, part_number: int, agent_name: str | None
) -> MessageContent:
    """One part of an ask, with its controls."""
    part = layout.parts[part_number]
    who = agent_label(agent_name, None)
    first = part.questions[0].question
    text = escaped_within(f"{agent_name or 'An agent'} asks: {first.question}", FALLBACK_TEXT_MAX)
    if layout.one_click:
        return MessageContent(text, one_click_blocks(layout, ask_id, part.questions[0]))
    total = len(layout.questions)
    heading = f"*{who}* asks:" if total == 1 else f"*{who}* asks {total} questions"
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
