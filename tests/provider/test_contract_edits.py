"""check_answer on an edited approval (`updated_input`, issue 25): only beside a review's
approving label, and keeping the input's field names and JSON types."""

from __future__ import annotations

import pytest
from pydantic import JsonValue

from provider import AnswerContractError, AnswerRule, check_answer
from provider.types import AskUserQuestionAnswer, AskUserQuestionRequest

TOOL = AskUserQuestionRequest.model_validate(
    {
        "questions": [
            {
                "id": "approve",
                "question": "Allow Bash?",
                "options": [{"label": "Allow"}, {"label": "Deny"}],
                "intent": {
                    "kind": "tool-approval",
                    "allow": "Allow",
                    "tool": "Bash",
                    "input": {"command": "ls", "timeout": 5},
                },
            }
        ]
    }
)


def answer(selected: list[str], edited: dict[str, JsonValue]) -> AskUserQuestionAnswer:
    return AskUserQuestionAnswer.model_validate(
        {"answers": [{"id": "approve", "selected": selected, "updated_input": edited}]}
    )


def test_an_edit_keeping_names_and_types_passes() -> None:
    check_answer(TOOL, answer(["Allow"], {"command": "ls -l", "timeout": 9}))


def test_an_edit_beside_deny_breaks_the_contract() -> None:
    with pytest.raises(AnswerContractError) as broken:
        check_answer(TOOL, answer(["Deny"], {"command": "ls -l", "timeout": 9}))
    assert broken.value.rule is AnswerRule.EDIT_ONLY_APPROVING


def test_an_edit_changing_a_type_breaks_the_contract() -> None:
    with pytest.raises(AnswerContractError) as broken:
        check_answer(TOOL, answer(["Allow"], {"command": "ls", "timeout": "9"}))
    assert str(broken.value) == (
        "answer breaks rule 'updated_input keeps the input's field names and JSON types': "
        "question 'approve': field 'timeout' is text, asked number"
    )


def test_an_edit_adding_a_field_breaks_the_contract() -> None:
    with pytest.raises(AnswerContractError) as broken:
        check_answer(TOOL, answer(["Allow"], {"command": "ls", "timeout": 5, "sudo": True}))
    assert broken.value.rule is AnswerRule.EDIT_SAME_SHAPE
