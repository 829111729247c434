"""The wire vocabulary: both spellings in, the seam's spelling out, bad input named."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ValidationError

from provider import (
    AskUserQuestionAnswer,
    AskUserQuestionItem,
    AskUserQuestionRequest,
    PlanReviewIntent,
)


def error_locations(error: ValidationError) -> list[str]:
    return [".".join(str(part) for part in e["loc"]) for e in error.errors()]


def test_camel_case_multi_select_is_accepted() -> None:
    item = AskUserQuestionItem.model_validate({"id": "q", "question": "?", "multiSelect": True})
    assert item.multi_select is True


def test_snake_case_multi_select_is_accepted() -> None:
    item = AskUserQuestionItem.model_validate({"id": "q", "question": "?", "multi_select": True})
    assert item.multi_select is True


def test_an_item_is_written_in_the_seams_wire_spelling() -> None:
    item = AskUserQuestionItem.model_validate(
        {
            "id": "plan",
            "question": "Approve?",
            "detail": "# Plan",
            "header": "Deploy",
            "options": [{"label": "Approve", "description": "go"}, {"label": "Decline"}],
            "multi_select": False,
            "intent": {"kind": "plan-review", "approve": "Approve"},
        }
    )
    assert item.to_wire() == {
        "id": "plan",
        "question": "Approve?",
        "detail": "# Plan",
        "header": "Deploy",
        "options": [{"label": "Approve", "description": "go"}, {"label": "Decline"}],
        "multiSelect": False,
        "intent": {"kind": "plan-review", "approve": "Approve"},
    }


def test_an_intent_parses_as_plan_review() -> None:
    item = AskUserQuestionItem.model_validate(
        {"id": "p", "question": "?", "intent": {"kind": "plan-review", "approve": "Yes"}}
    )
    assert item.intent == PlanReviewIntent(approve="Yes")


def test_an_unknown_intent_kind_is_rejected_naming_intent() -> None:
    with pytest.raises(ValidationError) as caught:
        AskUserQuestionItem.model_validate(
            {"id": "p", "question": "?", "intent": {"kind": "vote", "approve": "Yes"}}
        )
    assert error_locations(caught.value) == ["intent"]
    assert "'vote'" in str(caught.value)


def test_a_missing_field_is_rejected_naming_it() -> None:
    with pytest.raises(ValidationError) as caught:
        AskUserQuestionRequest.model_validate({"questions": [{"id": "q"}]})
    assert error_locations(caught.value) == ["questions.0.question"]
    assert caught.value.errors()[0]["type"] == "missing"


def test_a_non_string_field_is_rejected_not_converted() -> None:
    with pytest.raises(ValidationError) as caught:
        AskUserQuestionRequest.model_validate({"questions": [{"id": 7, "question": "?"}]})
    assert error_locations(caught.value) == ["questions.0.id"]
    assert caught.value.errors()[0]["type"] == "string_type"


def test_a_non_string_label_is_rejected_naming_it() -> None:
    with pytest.raises(ValidationError) as caught:
        AskUserQuestionItem.model_validate({"id": "q", "question": "?", "options": [{"label": 1}]})
    assert error_locations(caught.value) == ["options.0.label"]


def test_duplicate_question_ids_are_rejected_naming_the_repeated_id() -> None:
    with pytest.raises(ValidationError) as caught:
        AskUserQuestionRequest.model_validate(
            {"questions": [{"id": "q", "question": "a"}, {"id": "q", "question": "b"}]}
        )
    assert error_locations(caught.value) == ["questions.1.id"]
    assert "duplicate question id 'q'" in str(caught.value)


def test_duplicate_labels_in_one_question_are_rejected_naming_options() -> None:
    with pytest.raises(ValidationError) as caught:
        AskUserQuestionItem.model_validate(
            {"id": "q", "question": "?", "options": [{"label": "A"}, {"label": "A"}]}
        )
    assert error_locations(caught.value) == ["options"]
    assert "duplicate option label 'A'" in str(caught.value)


def test_the_same_label_in_two_questions_is_fine() -> None:
    request = AskUserQuestionRequest.model_validate(
        {
            "questions": [
                {"id": "a", "question": "?", "options": [{"label": "Yes"}]},
                {"id": "b", "question": "?", "options": [{"label": "Yes"}]},
            ]
        }
    )
    assert [q.labels for q in request.questions] == [["Yes"], ["Yes"]]


def test_an_empty_id_is_rejected() -> None:
    with pytest.raises(ValidationError) as caught:
        AskUserQuestionItem.model_validate({"id": "", "question": "?"})
    assert error_locations(caught.value) == ["id"]


def test_an_unknown_key_is_rejected_naming_it() -> None:
    with pytest.raises(ValidationError) as caught:
        AskUserQuestionItem.model_validate({"id": "q", "question": "?", "recommended": "A"})
    assert error_locations(caught.value) == ["recommended"]


def test_a_request_is_parsed_from_wire_json() -> None:
    request = AskUserQuestionRequest.model_validate_json(
        '{"questions":[{"id":"q","question":"Pick","options":[{"label":"A"}],"multiSelect":true}]}'
    )
    assert request.to_wire() == {
        "questions": [
            {"id": "q", "question": "Pick", "options": [{"label": "A"}], "multiSelect": True}
        ]
    }


def test_an_answer_omits_absent_custom_on_the_wire() -> None:
    answer = AskUserQuestionAnswer.model_validate(
        {"answers": [{"id": "a", "selected": ["X"]}, {"id": "b", "selected": [], "custom": "t"}]}
    )
    assert answer.to_wire() == {
        "answers": [{"id": "a", "selected": ["X"]}, {"id": "b", "selected": [], "custom": "t"}]
    }


LONE = "a\udfffb"  # a lone surrogate: Python holds it, UTF-8 cannot encode it


@pytest.mark.parametrize(
    ("model", "data", "field"),
    [
        pytest.param(
            AskUserQuestionRequest,
            {
                "questions": [
                    {"id": "6", "question": "a", "options": [{"label": "a", "description": LONE}]}
                ]
            },
            "questions.0.options.0.description",
            id="option description",
        ),
        pytest.param(
            AskUserQuestionItem,
            {"id": "q", "question": "?", "options": [{"label": LONE}]},
            "options.0.label",
            id="option label",
        ),
        pytest.param(AskUserQuestionItem, {"id": LONE, "question": "?"}, "id", id="question id"),
        pytest.param(AskUserQuestionItem, {"id": "q", "question": LONE}, "question", id="question"),
        pytest.param(
            AskUserQuestionItem, {"id": "q", "question": "?", "header": LONE}, "header", id="header"
        ),
        pytest.param(
            AskUserQuestionItem, {"id": "q", "question": "?", "detail": LONE}, "detail", id="detail"
        ),
        pytest.param(PlanReviewIntent, {"approve": LONE}, "approve", id="approve label"),
        pytest.param(
            AskUserQuestionAnswer,
            {"answers": [{"id": "q", "selected": [LONE]}]},
            "answers.0.selected.0",
            id="selected label",
        ),
        pytest.param(
            AskUserQuestionAnswer,
            {"answers": [{"id": "q", "custom": LONE}]},
            "answers.0.custom",
            id="custom answer",
        ),
    ],
)
def test_a_string_utf8_cannot_encode_is_refused_naming_its_field(
    model: type[BaseModel], data: dict[str, object], field: str
) -> None:
    with pytest.raises(ValidationError) as caught:
        model.model_validate(data)
    assert [(e["loc"], e["msg"]) for e in caught.value.errors()] == [
        (
            tuple(int(p) if p.isdigit() else p for p in field.split(".")),
            "Value error, contains U+DFFF at index 1, a lone surrogate that UTF-8 cannot encode",
        )
    ]


def test_a_surrogate_pair_is_one_character_and_accepted() -> None:
    item = AskUserQuestionItem.model_validate_json('{"id": "q", "question": "\\ud83d\\ude00?"}')
    assert item.question == "\U0001f600?"
