"""Review that teaches: "Was this the right call?" on a decided ask, and what people said.

Pure. A decided message ends with a section asking the question (its "Add a note" button
opens `note_modal`) and Slack's feedback buttons (👍 / 👎, a `context_actions` block). The
team view shows each decided ask's tally and latest note (`feedback_summary`) and offers the
same three choices in an overflow menu (`feedback_menu`): `context_actions` is a message
block, and one accessory keeps each ask to one block of the Home tab's 100.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Final

from slack_sdk.models.blocks import (
    ButtonElement,
    ContextActionsBlock,
    FeedbackButtonObject,
    FeedbackButtonsElement,
    InputBlock,
    MarkdownTextObject,
    Option,
    OverflowMenuElement,
    PlainTextInputElement,
    PlainTextObject,
    SectionBlock,
)
from slack_sdk.models.views import View

from bot.block_ids import (
    FEEDBACK_NOTE,
    FEEDBACK_RIGHT,
    FEEDBACK_WRONG,
    Action,
    AskRef,
    BlockKind,
    Callback,
    FeedbackRef,
    ViewMeta,
)
from bot.render.agent_text import one_line
from bot.render.layout import MESSAGE_BLOCKS_MAX, AskLayout
from bot.render.message import MessageContent
from bot.store import Feedback, FeedbackVerdict

QUESTION: Final = "Was this the right call?"
NOTE_MAX: Final = 500  # a short note: the team view shows its first NOTE_SHOWN characters
NOTE_SHOWN: Final = 150
NOTE_BLOCK: Final = "sq~note"
FEEDBACK_BLOCKS: Final = 2
RIGHT_WORDS: Final = "👍 Right call"
WRONG_WORDS: Final = "👎 Wrong call"
NOTE_WORDS: Final = "Add a note"


def with_feedback(content: MessageContent, layout: AskLayout, ask_id: str) -> MessageContent:
    """`content` (a decided message) with the question and the feedback buttons last;
    unchanged when its blocks leave no room for them (Slack's 50)."""
    if len(content.blocks) + FEEDBACK_BLOCKS > MESSAGE_BLOCKS_MAX:
        return content
    ask = AskRef(ask_id).encode()
    question = SectionBlock(
        block_id=layout.aux_block_id(BlockKind.NOTE, 0),
        text=MarkdownTextObject(text=f"_{QUESTION}_", verbatim=True),
        accessory=ButtonElement(action_id=Action.NOTE, text=NOTE_WORDS, value=ask),
    )
    buttons = ContextActionsBlock(
        block_id=layout.aux_block_id(BlockKind.FEEDBACK, 0),
        elements=[
            FeedbackButtonsElement(
                action_id=Action.FEEDBACK,
                positive_button=FeedbackButtonObject(
                    text="👍",
                    accessibility_label="Yes, this was the right call",
                    value=FeedbackRef(ask_id, FEEDBACK_RIGHT).encode(),
                ),
                negative_button=FeedbackButtonObject(
                    text="👎",
                    accessibility_label="No, this was the wrong call",
                    value=FeedbackRef(ask_id, FEEDBACK_WRONG).encode(),
                ),
            )
        ],
    )
    return replace(content, blocks=[*content.blocks, question, buttons])


def feedback_menu(ask_id: str) -> OverflowMenuElement:
    """The team view's way to the same feedback: 👍, 👎, or a note."""
    return OverflowMenuElement(
        action_id=Action.FEEDBACK_MENU,
        options=[
            Option(text=RIGHT_WORDS, value=FeedbackRef(ask_id, FEEDBACK_RIGHT).encode()),
            Option(text=WRONG_WORDS, value=FeedbackRef(ask_id, FEEDBACK_WRONG).encode()),
            Option(text=NOTE_WORDS, value=FeedbackRef(ask_id, FEEDBACK_NOTE).encode()),
        ],
    )


def feedback_summary(given: Sequence[Feedback]) -> str | None:
    """One line for the team view: "👍 2 · 👎 1 — “should have asked security”" (the
    latest note; `given` oldest first); None when nobody gave any."""
    if not given:
        return None
    right = sum(1 for f in given if f.verdict is FeedbackVerdict.RIGHT)
    wrong = sum(1 for f in given if f.verdict is FeedbackVerdict.WRONG)
    line = f"👍 {right} · 👎 {wrong}"
    notes = [f.note for f in given if f.note]
    if notes:
        line += f" — “{one_line(notes[-1], NOTE_SHOWN)}”"
    return line


def note_modal(ask_id: str, question: str, earlier: str | None) -> View:
    """The "Add a note" modal: one short text, prefilled with the person's earlier note."""
    return View(
        type="modal",
        callback_id=Callback.NOTE,
        title=PlainTextObject(text=NOTE_WORDS),
        submit=PlainTextObject(text="Save"),
        close=PlainTextObject(text="Cancel"),
        private_metadata=ViewMeta(ask=ask_id).model_dump_json(exclude_none=True),
        blocks=[
            SectionBlock(
                block_id="sq~note.about",
                text=MarkdownTextObject(
                    text=f"{QUESTION}\n*{one_line(question, 300)}*", verbatim=True
                ),
            ),
            InputBlock(
                block_id=NOTE_BLOCK,
                label=PlainTextObject(text="Your note"),
                element=PlainTextInputElement(
                    action_id=Action.INPUT,
                    multiline=True,
                    max_length=NOTE_MAX,
                    initial_value=earlier,
                    placeholder=PlainTextObject(text="e.g. should have asked security"),
                ),
            ),
        ],
    )
