"""Modals: a form holding one part of an ask, the "Other" answer, and the full details."""

from __future__ import annotations

from slack_sdk.models.blocks import (
    Block,
    ContextBlock,
    InputBlock,
    MarkdownTextObject,
    PlainTextInputElement,
    PlainTextObject,
    SectionBlock,
)
from slack_sdk.models.views import View

from bot.block_ids import Action, BlockKind, Callback, ViewMeta
from bot.render.agent_text import detail_mrkdwn, fenced_chunks, literal, one_line
from bot.render.layout import INPUT_LABEL_MAX, MODAL_BLOCKS_MAX, AskLayout
from bot.render.message import agent_label
from bot.render.question import (
    NO_PREFILL,
    SECTION_TEXT_MAX,
    TEXT_INPUT_MAX,
    Prefill,
    form_blocks,
)
from bot.render.text import truncate
from provider import AskUserQuestionItem


def form_modal(
    ask_id: str,
    layout: AskLayout,
    part_number: int,
    agent_name: str | None,
    channel: str,
    *,
    agent_id: str | None = None,
    prefill: Prefill = NO_PREFILL,
) -> View:
    """The questions of one part as a modal; closing it ends the ask as closed (`notify_on_close`)."""
    part = layout.parts[part_number]
    blocks: list[Block] = [
        ContextBlock(
            block_id=layout.aux_block_id(BlockKind.MODAL_CONTEXT, part_number),
            elements=[
                MarkdownTextObject(
                    verbatim=True,
                    text=f"{agent_label(agent_name, agent_id)} is waiting for this answer. "
                    "Closing this form tells the agent the question was dismissed.",
                )
            ],
        )
    ]
    for q in part.questions:
        blocks.extend(form_blocks(layout, q, ask_id, in_modal=True, prefill=prefill))
    return View(
        type="modal",
        callback_id=Callback.FORM,
        title=PlainTextObject(text="Answer the agent"),
        submit=PlainTextObject(text="Submit"),
        close=PlainTextObject(text="Cancel"),
        private_metadata=ViewMeta(ask=ask_id, part=part_number, channel=channel).model_dump_json(
            exclude_none=True
        ),
        notify_on_close=True,
        blocks=blocks,
    )


def other_modal(ask_id: str, index: int, question: AskUserQuestionItem) -> View:
    """A free-text answer to a one-click question."""
    return View(
        type="modal",
        callback_id=Callback.OTHER,
        title=PlainTextObject(text="Your own answer"),
        submit=PlainTextObject(text="Send"),
        close=PlainTextObject(text="Back"),
        private_metadata=ViewMeta(ask=ask_id, question=index).model_dump_json(exclude_none=True),
        blocks=[
            InputBlock(
                block_id=question.id,
                label=PlainTextObject(
                    text=truncate(question.question, INPUT_LABEL_MAX), emoji=False
                ),
                element=PlainTextInputElement(
                    action_id=Action.INPUT,
                    multiline=True,
                    placeholder=PlainTextObject(text="Type your answer"),
                    max_length=TEXT_INPUT_MAX,
                ),
            )
        ],
    )


def details_modal(questions: list[AskUserQuestionItem]) -> View:
    """Everything the message preview cut: full question, detail and options, shown literally
    (the detail's code blocks as code, its other lines quoted, as in the message)."""
    texts: list[str] = []
    for question in questions:
        parts = []
        if question.header:
            parts.append(f"*{one_line(question.header, SECTION_TEXT_MAX // 2)}*")
        parts.append(literal(question.question))
        if question.detail:
            parts.append(detail_mrkdwn(question.detail))
        for option in question.options or []:
            line = f"• *{one_line(option.label, SECTION_TEXT_MAX // 2)}*"
            if option.description:
                line += f" — {literal(option.description)}"
            parts.append(line)
        texts.append("\n\n".join(parts))
    sections = [piece for text in texts for piece in fenced_chunks(text, SECTION_TEXT_MAX)]
    blocks: list[Block] = [
        SectionBlock(block_id=f"sq~d.{i}", text=MarkdownTextObject(verbatim=True, text=piece))
        for i, piece in enumerate(sections[: MODAL_BLOCKS_MAX - 1])
    ]
    if len(sections) > MODAL_BLOCKS_MAX - 1:
        hidden = sum(len(piece) for piece in sections[MODAL_BLOCKS_MAX - 1 :])
        blocks.append(
            ContextBlock(
                block_id="sq~d.more",
                elements=[
                    MarkdownTextObject(
                        verbatim=True, text=f"_{hidden} more characters are not shown._"
                    )
                ],
            )
        )
    return View(
        type="modal",
        callback_id=Callback.DETAILS,
        title=PlainTextObject(text="Question details"),
        close=PlainTextObject(text="Close"),
        blocks=blocks,
    )
