"""check_answer: the answer-encoding rules (DESIGN.md §1) every provider passes before returning."""

from __future__ import annotations

from enum import StrEnum

from pydantic import JsonValue

from .types import (
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionRequest,
    PlanReviewIntent,
    ToolApprovalIntent,
)


class AnswerRule(StrEnum):
    """Each rule an answer can break, named so a provider's failure says which."""

    ONE_PER_QUESTION = "one answer item per question"
    REQUEST_ORDER = "answers in request order, ids echoed"
    KNOWN_LABELS = "selected labels are offered labels, exactly"
    SINGLE_AT_MOST_ONE = "single-select: at most one label"
    SINGLE_CUSTOM_OVERRIDES = "single-select: custom overrides, selected is []"
    MULTI_UNIQUE = "multi-select: unique labels"
    MULTI_OFFER_ORDER = "multi-select: labels in offer order"
    OPTIONLESS_CUSTOM_ONLY = "optionless: custom only"
    CUSTOM_TRIMMED = "custom is trimmed"
    CUSTOM_NOT_BLANK = "custom is never blank"
    EDIT_ONLY_APPROVING = "updated_input only beside a review's approving label"
    EDIT_SAME_SHAPE = "updated_input keeps the input's field names and JSON types"


class AnswerContractError(ValueError):
    """An answer breaks one of the encoding rules."""

    def __init__(self, rule: AnswerRule, question_id: str | None, detail: str) -> None:
        where = f"question {question_id!r}: " if question_id is not None else ""
        super().__init__(f"answer breaks rule '{rule}': {where}{detail}")
        self.rule = rule
        self.question_id = question_id


def check_answer(request: AskUserQuestionRequest, answer: AskUserQuestionAnswer) -> None:
    """Raise `AnswerContractError` naming the first rule `answer` breaks for `request`."""
    if len(answer.answers) != len(request.questions):
        raise AnswerContractError(
            AnswerRule.ONE_PER_QUESTION,
            None,
            f"{len(request.questions)} questions but {len(answer.answers)} answer items",
        )
    for question, item in zip(request.questions, answer.answers, strict=True):
        if item.id != question.id:
            raise AnswerContractError(
                AnswerRule.REQUEST_ORDER, question.id, f"answer item has id {item.id!r} here"
            )
        _check_item(question, item.selected, item.custom)
        if item.updated_input is not None:
            _check_edit(question, item)


def _check_item(question: AskUserQuestionItem, selected: list[str], custom: str | None) -> None:
    def broken(rule: AnswerRule, detail: str) -> AnswerContractError:
        return AnswerContractError(rule, question.id, detail)

    if custom is not None:
        if not custom.strip():
            raise broken(AnswerRule.CUSTOM_NOT_BLANK, "custom is blank")
        if custom != custom.strip():
            raise broken(AnswerRule.CUSTOM_TRIMMED, f"custom {custom!r} is not trimmed")
    labels = question.labels
    if not labels:
        if selected:
            raise broken(AnswerRule.OPTIONLESS_CUSTOM_ONLY, f"selected {selected!r}, no options")
        return
    unknown = [label for label in selected if label not in labels]
    if unknown:
        raise broken(AnswerRule.KNOWN_LABELS, f"{unknown!r} not among {labels!r}")
    if question.multi_select:
        if len(set(selected)) != len(selected):
            raise broken(AnswerRule.MULTI_UNIQUE, f"selected {selected!r} repeats a label")
        if selected != sorted(selected, key=labels.index):
            raise broken(AnswerRule.MULTI_OFFER_ORDER, f"selected {selected!r} is out of order")
        return
    if len(selected) > 1:
        raise broken(AnswerRule.SINGLE_AT_MOST_ONE, f"selected {selected!r}")
    if custom is not None and selected:
        raise broken(AnswerRule.SINGLE_CUSTOM_OVERRIDES, f"selected {selected!r} beside custom")


def json_kind(value: JsonValue) -> str:
    """A JSON value's type, in words: text, number, true/false, null, object or list."""
    if isinstance(value, str):
        return "text"
    if isinstance(value, bool):  # before int: True is an int to Python, not to JSON
        return "true/false"
    if value is None:
        return "null"
    if isinstance(value, int | float):
        return "number"
    return "object" if isinstance(value, dict) else "list"


def _check_edit(question: AskUserQuestionItem, item: AskUserQuestionAnswerItem) -> None:
    """An edit goes only with the approval of a review, and keeps the reviewed input's shape:
    an agent must never get back a field it did not send, or one of another type."""
    edited = item.updated_input
    assert edited is not None
    intent = question.intent

    def broken(rule: AnswerRule, detail: str) -> AnswerContractError:
        return AnswerContractError(rule, question.id, detail)

    if intent is None or item.selected != [intent.label] or item.custom is not None:
        raise broken(AnswerRule.EDIT_ONLY_APPROVING, f"updated_input beside {item.selected!r}")
    if isinstance(intent, PlanReviewIntent):
        plan = edited.get("plan")
        if set(edited) != {"plan"} or not isinstance(plan, str) or not plan.strip():
            raise broken(AnswerRule.EDIT_SAME_SHAPE, 'a plan edit is {"plan": <non-blank text>}')
        return
    assert isinstance(intent, ToolApprovalIntent)
    original = intent.input or {}
    if set(edited) != set(original):
        raise broken(
            AnswerRule.EDIT_SAME_SHAPE, f"fields {sorted(edited)!r}, asked {sorted(original)!r}"
        )
    for name, value in edited.items():
        if json_kind(value) != json_kind(original[name]):
            raise broken(
                AnswerRule.EDIT_SAME_SHAPE,
                f"field {name!r} is {json_kind(value)}, asked {json_kind(original[name])}",
            )
