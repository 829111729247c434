"""check_answer: every encoding rule, once kept and once broken."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from provider import (
    AnswerContractError,
    AnswerRule,
    AskUserQuestionAnswer,
    AskUserQuestionRequest,
    check_answer,
)

REQUEST = AskUserQuestionRequest.model_validate(
    {
        "questions": [
            {
                "id": "db",
                "question": "Database?",
                "options": [{"label": "Postgres (Recommended)"}, {"label": "SQLite"}],
            },
            {
                "id": "langs",
                "question": "Languages?",
                "multi_select": True,
                "options": [{"label": "Go"}, {"label": "Rust"}, {"label": "Zig"}],
            },
            {"id": "name", "question": "Name?"},
        ]
    }
)


def answer(*items: Mapping[str, object]) -> AskUserQuestionAnswer:
    return AskUserQuestionAnswer.model_validate({"answers": list(items)})


DB = {"id": "db", "selected": ["SQLite"]}
LANGS = {"id": "langs", "selected": ["Go"]}
NAME = {"id": "name", "selected": [], "custom": "svc"}


def broken_rule(*items: Mapping[str, object]) -> AnswerRule:
    with pytest.raises(AnswerContractError) as caught:
        check_answer(REQUEST, answer(*items))
    return caught.value.rule


def test_one_item_per_question_in_order_passes() -> None:
    check_answer(REQUEST, answer(DB, LANGS, NAME))


def test_a_missing_item_breaks_one_per_question() -> None:
    assert broken_rule(DB, LANGS) is AnswerRule.ONE_PER_QUESTION


def test_items_out_of_request_order_break_request_order() -> None:
    assert broken_rule(LANGS, DB, NAME) is AnswerRule.REQUEST_ORDER


def test_a_label_returned_exactly_as_offered_passes() -> None:
    check_answer(REQUEST, answer({"id": "db", "selected": ["Postgres (Recommended)"]}, LANGS, NAME))


def test_a_label_not_offered_breaks_known_labels() -> None:
    assert broken_rule({"id": "db", "selected": ["Postgres"]}, LANGS, NAME) is (
        AnswerRule.KNOWN_LABELS
    )


def test_single_select_with_one_label_passes() -> None:
    check_answer(REQUEST, answer(DB, LANGS, NAME))


def test_single_select_with_two_labels_breaks_at_most_one() -> None:
    assert broken_rule(
        {"id": "db", "selected": ["Postgres (Recommended)", "SQLite"]}, LANGS, NAME
    ) is (AnswerRule.SINGLE_AT_MOST_ONE)


def test_single_select_custom_with_empty_selected_passes() -> None:
    check_answer(REQUEST, answer({"id": "db", "selected": [], "custom": "MySQL"}, LANGS, NAME))


def test_single_select_custom_beside_a_label_breaks_custom_overrides() -> None:
    assert broken_rule({"id": "db", "selected": ["SQLite"], "custom": "MySQL"}, LANGS, NAME) is (
        AnswerRule.SINGLE_CUSTOM_OVERRIDES
    )


def test_multi_select_unique_labels_in_offer_order_with_custom_passes() -> None:
    check_answer(
        REQUEST, answer(DB, {"id": "langs", "selected": ["Go", "Zig"], "custom": "C"}, NAME)
    )


def test_multi_select_repeated_label_breaks_unique() -> None:
    assert broken_rule(DB, {"id": "langs", "selected": ["Go", "Go"]}, NAME) is (
        AnswerRule.MULTI_UNIQUE
    )


def test_multi_select_labels_out_of_offer_order_break_offer_order() -> None:
    assert broken_rule(DB, {"id": "langs", "selected": ["Zig", "Go"]}, NAME) is (
        AnswerRule.MULTI_OFFER_ORDER
    )


def test_optionless_custom_only_passes() -> None:
    check_answer(REQUEST, answer(DB, LANGS, NAME))


def test_optionless_with_selected_breaks_custom_only() -> None:
    assert broken_rule(DB, LANGS, {"id": "name", "selected": ["svc"]}) is (
        AnswerRule.OPTIONLESS_CUSTOM_ONLY
    )


def test_a_skipped_question_in_a_batch_passes() -> None:
    check_answer(
        REQUEST, answer({"id": "db", "selected": []}, LANGS, {"id": "name", "selected": []})
    )


def test_custom_with_inner_newlines_passes() -> None:
    check_answer(REQUEST, answer(DB, LANGS, {"id": "name", "selected": [], "custom": "a\n\nb"}))


def test_untrimmed_custom_breaks_trimmed() -> None:
    assert broken_rule(DB, LANGS, {"id": "name", "selected": [], "custom": " svc\n"}) is (
        AnswerRule.CUSTOM_TRIMMED
    )


def test_blank_custom_breaks_not_blank() -> None:
    assert broken_rule(DB, LANGS, {"id": "name", "selected": [], "custom": "  "}) is (
        AnswerRule.CUSTOM_NOT_BLANK
    )


def test_the_error_says_which_rule_and_question() -> None:
    with pytest.raises(AnswerContractError) as caught:
        check_answer(REQUEST, answer(DB, {"id": "langs", "selected": ["Zig", "Go"]}, NAME))
    assert str(caught.value) == (
        "answer breaks rule 'multi-select: labels in offer order': "
        "question 'langs': selected ['Zig', 'Go'] is out of order"
    )
    assert caught.value.question_id == "langs"
