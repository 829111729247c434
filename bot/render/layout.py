"""How an ask is laid out in Slack: which element each question gets, and how it is split.

Pure decisions, made once per ask from the request alone, so a restarted bot lays out a stored
ask exactly as it did before. A request Slack cannot show is refused here, before anything is
posted, never discovered as an `invalid_blocks`.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from enum import StrEnum
from itertools import count

from bot.block_ids import BlockKind
from provider import AskUserQuestionItem, AskUserQuestionRequest, ToolApprovalIntent

# Slack's Block Kit limits (docs.slack.dev/reference/block-kit).
BLOCK_ID_MAX = 255
ACTIONS_ELEMENTS_MAX = 25
MENU_OPTIONS_MAX = 100  # static_select / multi_static_select
LIST_OPTIONS_MAX = 10  # radio_buttons / checkboxes
MESSAGE_BLOCKS_MAX = 50
MODAL_BLOCKS_MAX = 100

# Display limits past which a form shows a heading with "View all" (docs: Block Kit reference).
OPTION_TEXT_MAX = 75
OPTION_DESCRIPTION_MAX = 75
INPUT_LABEL_MAX = 2000
DETAIL_PREVIEW = 600

# A message part holds its questions plus a heading block and the Submit row.
PART_OVERHEAD_BLOCKS = 2
# Beyond this many messages an ask floods its thread; the agent should split it.
PARTS_MAX = 20
# A plan review's row: Approve, the declines, Request changes, Discuss, View plan.
PLAN_OPTIONS_MAX = ACTIONS_ELEMENTS_MAX - 3
# A tool approval's row: its options, "View all to allow" and "Other…".
TOOL_OPTIONS_MAX = ACTIONS_ELEMENTS_MAX - 2


class Element(StrEnum):
    """The element a question is answered with."""

    BUTTONS = "buttons"  # lone single-select: one click answers
    PICK_MENU = "pick_menu"  # lone single-select with many options: one pick answers
    RADIO = "radio_buttons"
    SELECT = "static_select"
    CHECKBOXES = "checkboxes"
    MULTI_SELECT = "multi_static_select"
    TEXT = "plain_text_input"
    PLAN = "plan_review"  # a lone plan-review question: the plan, Approve and the declines
    TOOL = "tool_approval"  # a lone tool-approval question with its input: every field, Allow/Deny


# The elements whose options Slack shows without their descriptions.
_UNDESCRIBED = frozenset({Element.BUTTONS, Element.PICK_MENU, Element.SELECT, Element.MULTI_SELECT})


def needs_details(question: AskUserQuestionItem) -> bool:
    """Whether the preview cuts something only the details view shows in full."""
    return (
        len(question.detail or "") > DETAIL_PREVIEW
        or len(question.question) > INPUT_LABEL_MAX
        or any(
            len(o.label) > OPTION_TEXT_MAX or len(o.description or "") > OPTION_DESCRIPTION_MAX
            for o in question.options or []
        )
    )


def takes_replies(question: AskUserQuestionItem) -> bool:
    """Whether a thread reply may answer `question` asked alone: a text question, or a
    single choice named by its label or number. Never a review: its Approve/Allow must be
    the button, where the policy's confirm dialog and quorum apply."""
    return question.intent is None and not question.multi_select


def has_heading(question: AskUserQuestionItem) -> bool:
    """Whether a form shows a heading block above the question's input."""
    return bool(question.header or question.detail) or needs_details(question)


@dataclass(frozen=True, slots=True)
class QuestionLayout:
    """One question, where it sits in the request, and how it is answered."""

    index: int
    question: AskUserQuestionItem
    element: Element
    skippable: bool

    @property
    def has_options(self) -> bool:
        """Whether the question offers options (and so an "Other" answer)."""
        return bool(self.question.options)

    @property
    def lists_descriptions(self) -> bool:
        """Whether the heading lists the options' descriptions: buttons and menus cannot show
        them (only radio buttons and checkboxes do)."""
        return self.element in _UNDESCRIBED and any(
            o.description for o in self.question.options or []
        )

    @property
    def block_count(self) -> int:
        """Blocks this question takes in a form: heading, option notes, choice, Other, Skip."""
        heading = int(has_heading(self.question))
        notes = int(self.lists_descriptions)
        return heading + notes + 1 + int(self.has_options) + int(self.skippable)


@dataclass(frozen=True, slots=True)
class Part:
    """The questions one message (and its form) holds."""

    number: int
    questions: tuple[QuestionLayout, ...]


@dataclass(frozen=True, slots=True)
class AskLayout:
    """The whole ask: a one-click question, or form parts answered with Submit."""

    parts: tuple[Part, ...]
    aux_prefix: str

    @property
    def one_click(self) -> bool:
        """Whether the ask is a lone single-select answered by one click (a pick)."""
        first = self.parts[0].questions[0]
        return first.element in (Element.BUTTONS, Element.PICK_MENU, Element.TOOL)

    @property
    def plan_review(self) -> bool:
        """Whether the ask is shown as a plan review."""
        return self.parts[0].questions[0].element is Element.PLAN

    @property
    def tool_approval(self) -> bool:
        """Whether the ask is shown as a tool approval (the tool's whole input, Allow/Deny)."""
        return self.parts[0].questions[0].element is Element.TOOL

    @property
    def questions(self) -> list[QuestionLayout]:
        """Every question, in request order."""
        return [q for part in self.parts for q in part.questions]

    def aux_block_id(self, kind: BlockKind, index: int) -> str:
        """The block id of a helper block: `index` counts what `kind` names (see BlockKind)."""
        return f"{self.aux_prefix}{kind}.{index}"


class Unshowable(ValueError):
    """The request cannot be shown in Slack; the message says why."""


def lay_out(request: AskUserQuestionRequest) -> AskLayout:
    """Decide the layout of `request`, or raise `Unshowable` saying what Slack cannot hold."""
    for question in request.questions:
        _check_showable(question)
    batch = len(request.questions) > 1
    layouts = [
        QuestionLayout(i, q, _element(q, batch), skippable=batch)
        for i, q in enumerate(request.questions)
    ]
    parts = _split(layouts)
    if len(parts) > PARTS_MAX:
        raise Unshowable(
            f"the {len(request.questions)} questions need {len(parts)} Slack messages; "
            f"at most {PARTS_MAX} are posted for one ask — split the request"
        )
    return AskLayout(parts=tuple(parts), aux_prefix=_aux_prefix(request))


def _check_showable(question: AskUserQuestionItem) -> None:
    if len(question.id) > BLOCK_ID_MAX:
        raise Unshowable(
            f"question id {question.id[:40]!r}… is {len(question.id)} characters; "
            f"Slack block ids hold at most {BLOCK_ID_MAX}"
        )
    if len(question.labels) > MENU_OPTIONS_MAX:
        raise Unshowable(
            f"question {question.id} has {len(question.labels)} options; "
            f"Slack menus hold at most {MENU_OPTIONS_MAX}"
        )


def _element(question: AskUserQuestionItem, batch: bool) -> Element:
    count_ = len(question.labels)
    if (
        question.intent is not None
        and question.intent.kind == "plan-review"
        and not batch
        and not question.multi_select
        and 0 < count_ <= PLAN_OPTIONS_MAX
    ):
        # What the rich view cannot express falls back to the generic rendering below.
        return Element.PLAN
    if (
        isinstance(question.intent, ToolApprovalIntent)
        and question.intent.input is not None
        and not batch
        and not question.multi_select
        and 0 < count_ <= TOOL_OPTIONS_MAX
    ):
        # Without its input the card has nothing to show: the generic question below.
        return Element.TOOL
    if count_ == 0:
        return Element.TEXT
    if question.multi_select:
        return Element.CHECKBOXES if count_ <= LIST_OPTIONS_MAX else Element.MULTI_SELECT
    if not batch:
        # One row holds the option buttons plus "Other…".
        return Element.BUTTONS if count_ < ACTIONS_ELEMENTS_MAX else Element.PICK_MENU
    return Element.RADIO if count_ <= LIST_OPTIONS_MAX else Element.SELECT


def _split(layouts: list[QuestionLayout]) -> list[Part]:
    budget = MESSAGE_BLOCKS_MAX - PART_OVERHEAD_BLOCKS
    parts: list[list[QuestionLayout]] = [[]]
    used = 0
    for layout in layouts:
        if parts[-1] and used + layout.block_count > budget:
            parts.append([])
            used = 0
        parts[-1].append(layout)
        used += layout.block_count
    return [Part(number, tuple(qs)) for number, qs in enumerate(parts)]


def _aux_prefix(request: AskUserQuestionRequest) -> str:
    # Helper blocks need ids no question id can take, so derive a prefix none starts with.
    ids = [q.id for q in request.questions]
    for n in count():
        prefix = f"sq{n or ''}~"
        if not any(i.startswith(prefix) for i in ids):
            return sys.intern(prefix)  # one string for every ask pending with this prefix
    raise AssertionError("unreachable")  # pragma: no cover
