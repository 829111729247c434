"""Blocks that show one question and take its answer, in a message or in a modal."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    CheckboxesElement,
    ContextBlock,
    InputBlock,
    MarkdownTextObject,
    Option,
    PlainTextInputElement,
    PlainTextObject,
    RadioButtonsElement,
    SectionBlock,
    StaticMultiSelectElement,
    StaticSelectElement,
)

from bot.block_ids import SKIP_VALUE, Action, AskRef, BlockKind, OptionRef, QuestionRef
from bot.render.agent_text import detail_mrkdwn, literal_within, one_line
from bot.render.layout import (
    DETAIL_PREVIEW,
    INPUT_LABEL_MAX,
    OPTION_DESCRIPTION_MAX,
    OPTION_TEXT_MAX,
    AskLayout,
    Element,
    QuestionLayout,
    has_heading,
    needs_details,
    takes_replies,
)
from bot.render.text import cut_escaped, truncate
from provider import AskUserQuestionItem

BUTTON_TEXT_MAX = 75
SECTION_TEXT_MAX = 3000
TEXT_INPUT_MAX = 3000
HEADER_MAX = 300
QUESTION_PREVIEW_MAX = 1500

OTHER_BUTTON = "Other…"
CUT_NOTE = "_Part of this question is cut short here; *View all* shows it in full._"


@dataclass(frozen=True)
class Prefill:
    """What a person already put in a message's form, carried into its modal (by question
    id): the options ticked, the text typed (under Other, or the text input), Skip ticked."""

    chosen: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    typed: Mapping[str, str] = field(default_factory=dict)
    skipped: frozenset[str] = frozenset()


NO_PREFILL: Final = Prefill()

REPLY_HINT_CHOICE = "Or reply in this thread with an option's name or number."
REPLY_HINT_TEXT = "Or reply in this thread with your answer."


def option_notes(layout: AskLayout, q: QuestionLayout) -> ContextBlock:
    """Each described option's label and description, a line each (agent text, literal):
    buttons and menus show labels only, so the descriptions are listed under the question."""
    lines = "\n".join(
        f"{one_line(o.label, OPTION_TEXT_MAX)}: {one_line(o.description, OPTION_DESCRIPTION_MAX)}"
        for o in q.question.options or []
        if o.description
    )
    return ContextBlock(
        block_id=layout.aux_block_id(BlockKind.OPTION_NOTES, q.index),
        elements=[MarkdownTextObject(verbatim=True, text=cut_escaped(lines, SECTION_TEXT_MAX))],
    )


def reply_hint(layout: AskLayout, q: QuestionLayout, text: str) -> ContextBlock:
    """The bot's line saying a thread reply answers this question too."""
    return ContextBlock(
        block_id=layout.aux_block_id(BlockKind.REPLY_HINT, q.index),
        elements=[MarkdownTextObject(verbatim=True, text=text)],
    )


def heading_text(question: AskUserQuestionItem, *, with_question: bool) -> str:
    """mrkdwn for the header, the question (when asked), and a preview of the detail.

    All of it agent text, shown literally (`bot.render.agent_text`); the detail is quoted
    line by line outside its code fences, which stay whole code blocks."""
    lines: list[str] = []
    if question.header:
        lines.append(f"*{one_line(question.header, HEADER_MAX)}*")
    if with_question:
        lines.append(literal_within(question.question, QUESTION_PREVIEW_MAX))
    if question.detail:
        room = SECTION_TEXT_MAX - sum(len(line) + 1 for line in lines)
        preview = detail_mrkdwn(
            truncate(question.detail, DETAIL_PREVIEW), min(room, 2 * DETAIL_PREVIEW)
        )
        lines.append(preview or ">")  # a detail of blank lines: an empty quote
    return "\n".join(lines)


def options(question: AskUserQuestionItem, *, ask_id: str | None = None) -> list[Option]:
    """Option objects valued by index (or `ask/index` when a pick alone must name the ask)."""
    return [
        Option(
            value=OptionRef(ask_id, i).encode() if ask_id else str(i),
            text=PlainTextObject(text=truncate(o.label, OPTION_TEXT_MAX), emoji=False),
            description=(
                PlainTextObject(text=truncate(o.description, OPTION_DESCRIPTION_MAX), emoji=False)
                if o.description
                else None
            ),
        )
        for i, o in enumerate(question.options or [])
    ]


def one_click_blocks(layout: AskLayout, ask_id: str, q: QuestionLayout) -> list[Block]:
    """A lone single-select: the question, then option buttons (or a menu) and "Other…"."""
    question = q.question
    section = SectionBlock(
        block_id=layout.aux_block_id(BlockKind.HEADING, q.index),
        text=MarkdownTextObject(verbatim=True, text=heading_text(question, with_question=True)),
        accessory=_details_button(ask_id, 0) if needs_details(question) else None,
    )
    choices: list[ButtonElement | StaticSelectElement]
    if q.element is Element.BUTTONS:
        choices = [
            ButtonElement(
                action_id=f"{Action.PICK}.{i}",
                text=PlainTextObject(text=truncate(label, BUTTON_TEXT_MAX), emoji=False),
                value=OptionRef(ask_id, i).encode(),
            )
            for i, label in enumerate(question.labels)
        ]
    else:
        choices = [
            StaticSelectElement(
                action_id=Action.PICK,
                placeholder=PlainTextObject(text="Choose an answer"),
                options=options(question, ask_id=ask_id),
            )
        ]
    other = ButtonElement(
        action_id=Action.OTHER,
        text=PlainTextObject(text=OTHER_BUTTON),
        value=AskRef(ask_id).encode(),
    )
    blocks: list[Block] = [section]
    if q.lists_descriptions:
        blocks.append(option_notes(layout, q))
    blocks.append(ActionsBlock(block_id=question.id, elements=[*choices, other]))
    if takes_replies(question):
        blocks.append(reply_hint(layout, q, REPLY_HINT_CHOICE))
    return blocks


def form_blocks(
    layout: AskLayout,
    q: QuestionLayout,
    ask_id: str,
    *,
    in_modal: bool,
    prefill: Prefill = NO_PREFILL,
) -> list[Block]:
    """A question in a form: heading (if any), its input, "Other" and "Skip" inputs, holding
    what `prefill` says was already put in."""
    question = q.question
    typed = prefill.typed.get(question.id) or None
    blocks: list[Block] = []
    if has_heading(question):
        text = heading_text(question, with_question=False)
        blocks.append(
            SectionBlock(
                block_id=layout.aux_block_id(BlockKind.HEADING, q.index),
                text=MarkdownTextObject(verbatim=True, text=text or CUT_NOTE),
                accessory=(_details_button(ask_id, q.index) if needs_details(question) else None),
            )
        )
    if q.lists_descriptions:
        blocks.append(option_notes(layout, q))
    blocks.append(
        InputBlock(
            block_id=question.id,
            label=PlainTextObject(text=truncate(question.question, INPUT_LABEL_MAX), emoji=False),
            element=_input_element(q, prefill.chosen.get(question.id, ()), typed),
            # Slack enforces required inputs only in modals, where Other and Skip must be able
            # to stand in for the question's own input; we check every answer ourselves. Such
            # an input reads "(optional)", so its hint says what an answer needs.
            optional=in_modal and (q.has_options or q.skippable),
            hint=_hint(q) if in_modal else None,
        )
    )
    if q.has_options:
        blocks.append(
            InputBlock(
                block_id=layout.aux_block_id(BlockKind.OTHER, q.index),
                label=PlainTextObject(text="Other answer"),
                element=PlainTextInputElement(
                    action_id=Action.INPUT,
                    placeholder=PlainTextObject(text="Or type your own answer"),
                    max_length=TEXT_INPUT_MAX,
                    initial_value=typed,
                ),
                optional=True,
            )
        )
    if q.skippable:
        skip = Option(value=SKIP_VALUE, text=PlainTextObject(text="Skip this question"))
        blocks.append(
            InputBlock(
                block_id=layout.aux_block_id(BlockKind.SKIP, q.index),
                label=PlainTextObject(text="Not for you?"),
                element=CheckboxesElement(
                    action_id=Action.INPUT,
                    options=[skip],
                    initial_options=[skip] if question.id in prefill.skipped else None,
                ),
                optional=True,
            )
        )
    return blocks


def _needs(q: QuestionLayout) -> str | None:
    """What a modal input Slack shows as "(optional)" needs after all (None: Slack enforces it)."""
    if q.has_options:
        other = "choose an answer or type one under Other"
        return f"Required: {other}, or skip it." if q.skippable else f"Required: {other}."
    return "Required: type an answer, or skip it." if q.skippable else None


def _hint(q: QuestionLayout) -> PlainTextObject | None:
    needs = _needs(q)
    return PlainTextObject(text=needs) if needs else None


def _input_element(
    q: QuestionLayout, chosen: tuple[int, ...] = (), typed: str | None = None
) -> (
    RadioButtonsElement
    | StaticSelectElement
    | CheckboxesElement
    | StaticMultiSelectElement
    | PlainTextInputElement
):
    all_options = options(q.question)
    picked = [all_options[i] for i in chosen if i < len(all_options)] or None
    first = picked[0] if picked else None
    match q.element:
        case Element.RADIO:
            return RadioButtonsElement(
                action_id=Action.INPUT, options=all_options, initial_option=first
            )
        case Element.SELECT:
            return StaticSelectElement(
                action_id=Action.INPUT,
                placeholder=PlainTextObject(text="Choose an answer"),
                options=all_options,
                initial_option=first,
            )
        case Element.CHECKBOXES:
            return CheckboxesElement(
                action_id=Action.INPUT, options=all_options, initial_options=picked
            )
        case Element.MULTI_SELECT:
            return StaticMultiSelectElement(
                action_id=Action.INPUT,
                placeholder=PlainTextObject(text="Choose answers"),
                options=all_options,
                initial_options=picked,
            )
        case Element.TEXT:
            return PlainTextInputElement(
                action_id=Action.INPUT,
                multiline=True,
                placeholder=PlainTextObject(text="Type your answer"),
                max_length=TEXT_INPUT_MAX,
                initial_value=typed,
            )
        case _:
            raise ValueError(f"{q.element} is not a form element")


def _details_button(ask_id: str, number: int) -> ButtonElement:
    return ButtonElement(
        action_id=Action.DETAILS,
        text=PlainTextObject(text="View all"),
        value=QuestionRef(ask_id, number).encode(),
    )
