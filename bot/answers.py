"""Answers from what people did in Slack: pure functions over payload state and the layout."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.block_ids import SKIP_VALUE, BlockKind, parse_number
from bot.payloads import ElementState, StateValues
from bot.render import AskLayout, QuestionLayout
from bot.render.question import Prefill
from bot.render.text import unescape
from provider import AskUserQuestionAnswerItem, AskUserQuestionItem

MISSING = "Choose an answer, type one under Other, or skip this question."
MISSING_TEXT = "Type an answer, or skip this question."
MISSING_LONE = "Choose an answer or type your own."
MISSING_LONE_TEXT = "Type an answer."
SKIP_AND_ANSWER = "You chose Skip and also answered; keep one."


@dataclass(frozen=True)
class FormResult:
    """Answers for a part's questions, or errors keyed by the question's block id."""

    answers: list[AskUserQuestionAnswerItem] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)


def pick(question: AskUserQuestionItem, index: int) -> AskUserQuestionAnswerItem:
    """The answer for a one-click pick of option `index`."""
    if not 0 <= index < len(question.labels):
        raise ValueError(f"question {question.id} has no option {index}")
    return AskUserQuestionAnswerItem(id=question.id, selected=[question.labels[index]])


def typed(question: AskUserQuestionItem, text: str) -> AskUserQuestionAnswerItem | None:
    """A free-text answer (trimmed; None when blank)."""
    custom = text.strip()
    return AskUserQuestionAnswerItem(id=question.id, custom=custom) if custom else None


def replied(question: AskUserQuestionItem, text: str) -> AskUserQuestionAnswerItem | None:
    """The answer a thread reply gives `question`: the typed text for a text question; for a
    single choice, the option the reply names (its label in any case, or its number as the
    options are listed, from 1). None when the reply names nothing it could answer."""
    said = text.strip()
    if not question.options:
        return typed(question, said)
    labels = question.labels
    if said.isdecimal() and 1 <= int(said) <= len(labels):
        return pick(question, int(said) - 1)
    named = [i for i, label in enumerate(labels) if label.casefold() == said.casefold()]
    return pick(question, named[0]) if len(named) == 1 else None


def how_to_reply(question: AskUserQuestionItem) -> str:
    """What a reply the bot could not use is told (plain text: labels are the agent's)."""
    listed = ", ".join(f"{n} {label}" for n, label in enumerate(question.labels, start=1))
    return (
        f"That reply does not answer “{question.question}”. Reply with one option's name or "
        f"number ({listed}), or use the buttons."
    )


def reply_text(text: str) -> str:
    """What a person typed in a thread reply, from Slack's escaped message text."""
    return unescape(text).strip()


def read_form(layout: AskLayout, part_number: int, values: StateValues) -> FormResult:
    """Read one part's answers from `state.values`, by block id (never by position)."""
    answers: list[AskUserQuestionAnswerItem] = []
    errors: dict[str, str] = {}
    for q in layout.parts[part_number].questions:
        result = _read_question(layout, q, values)
        if isinstance(result, str):
            errors[q.question.id] = result
        else:
            answers.append(result)
    return FormResult(answers=[] if errors else answers, errors=errors)


def prefill(layout: AskLayout, part_number: int, values: StateValues) -> Prefill:
    """What a message's form part holds (`state.values`), for its modal to start from."""
    chosen: dict[str, tuple[int, ...]] = {}
    typed: dict[str, str] = {}
    skipped: set[str] = set()
    for q in layout.parts[part_number].questions:
        qid = q.question.id
        chosen[qid] = tuple(_chosen(values.get(qid, {}), len(q.question.labels)))
        text_block = layout.aux_block_id(BlockKind.OTHER, q.index) if q.has_options else qid
        typed[qid] = _text(values.get(text_block, {}))
        if SKIP_VALUE in _values(values.get(layout.aux_block_id(BlockKind.SKIP, q.index), {})):
            skipped.add(qid)
    return Prefill(chosen=chosen, typed=typed, skipped=frozenset(skipped))


def _read_question(
    layout: AskLayout, q: QuestionLayout, values: StateValues
) -> AskUserQuestionAnswerItem | str:
    question = q.question
    chosen = _chosen(values.get(question.id, {}), len(question.labels))
    other = (
        _text(values.get(layout.aux_block_id(BlockKind.OTHER, q.index), {}))
        if q.has_options
        else ""
    )
    if not q.has_options:
        other = _text(values.get(question.id, {}))
    skipped = q.skippable and SKIP_VALUE in _values(
        values.get(layout.aux_block_id(BlockKind.SKIP, q.index), {})
    )
    answered = bool(chosen or other)
    if skipped and answered:
        return SKIP_AND_ANSWER
    if skipped:
        return AskUserQuestionAnswerItem(id=question.id)
    if not answered:
        if q.has_options:
            return MISSING if q.skippable else MISSING_LONE
        return MISSING_TEXT if q.skippable else MISSING_LONE_TEXT
    custom = other or None
    if custom is not None and not question.multi_select:
        return AskUserQuestionAnswerItem(id=question.id, custom=custom)  # custom overrides
    labels = [question.labels[i] for i in sorted(set(chosen))]
    return AskUserQuestionAnswerItem(id=question.id, selected=labels, custom=custom)


def _values(block: dict[str, ElementState]) -> list[str]:
    found: list[str] = []
    for state in block.values():
        if state.selected_option is not None:
            found.append(state.selected_option.value)
        found.extend(option.value for option in state.selected_options or [])
    return found


def _chosen(block: dict[str, ElementState], option_count: int) -> list[int]:
    # Values are option indexes we wrote; anything else is not ours and is ignored.
    numbers = (parse_number(value) for value in _values(block))
    return [n for n in numbers if n is not None and n < option_count]


def _text(block: dict[str, ElementState]) -> str:
    for state in block.values():
        if state.value is not None:
            return state.value.strip()
    return ""
