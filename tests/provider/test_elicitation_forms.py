"""MCP requested schemas as seam questions, and answers back as form content."""

from __future__ import annotations

from typing import Any

import pytest

from provider import AskUserQuestionAnswer
from provider.elicitation_forms import ElicitationForm, FormError


def form(properties: dict[str, Any], required: list[str] | None = None) -> ElicitationForm:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required is not None:
        schema["required"] = required
    return ElicitationForm.from_schema("Deploy settings?", schema, asker="deployer")


def answered(*items: dict[str, Any]) -> AskUserQuestionAnswer:
    return AskUserQuestionAnswer.model_validate({"answers": list(items)})


ENV = {
    "type": "string",
    "title": "Environment",
    "description": "Where it runs",
    "oneOf": [{"const": "stg", "title": "Staging"}, {"const": "prd", "title": "Production"}],
}


def test_each_property_is_a_question_whose_id_is_the_property_name() -> None:
    questions = form({"env": ENV, "replicas": {"type": "integer"}}).questions()
    assert [q.to_wire() for q in questions] == [
        {
            "id": "env",
            "question": "Environment",
            "header": "deployer: Deploy settings?",
            "detail": "Where it runs",
            "options": [{"label": "Staging"}, {"label": "Production"}],
            "multiSelect": False,
        },
        {
            "id": "replicas",
            "question": "replicas",
            "detail": "Answer with a whole number.",
            "multiSelect": False,
        },
    ]


def test_one_of_titles_map_back_to_their_const() -> None:
    content, problems = form({"env": ENV}).read(answered({"id": "env", "selected": ["Production"]}))
    assert (content, problems) == ({"env": "prd"}, {})


def test_a_plain_enum_offers_its_values_and_legacy_enum_names_label_them() -> None:
    plain = form({"size": {"type": "string", "enum": ["s", "m"]}}).questions()[0]
    named = form({"size": {"type": "string", "enum": ["s", "m"], "enumNames": ["Small", "Medium"]}})
    assert plain.labels == ["s", "m"]
    assert named.questions()[0].labels == ["Small", "Medium"]
    assert named.read(answered({"id": "size", "selected": ["Medium"]})) == ({"size": "m"}, {})


def test_an_array_enum_is_multi_select_and_answers_a_list_in_schema_order() -> None:
    regions = form(
        {
            "regions": {
                "type": "array",
                "items": {
                    "anyOf": [{"const": "eu", "title": "Europe"}, {"const": "us", "title": "US"}]
                },
            }
        }
    )
    assert regions.questions()[0].multi_select is True
    got = regions.read(answered({"id": "regions", "selected": ["Europe", "US"]}))
    assert got == ({"regions": ["eu", "us"]}, {})


def test_typed_other_text_counts_only_when_it_names_a_choice() -> None:
    env = form({"env": ENV})
    assert env.read(answered({"id": "env", "custom": "production"})) == ({"env": "prd"}, {})
    assert env.read(answered({"id": "env", "custom": "qa"})) == (
        {},
        {"env": "“qa” is not one of the choices (“Staging”, “Production”)"},
    )


def test_a_boolean_is_yes_or_no() -> None:
    confirm = form({"go": {"type": "boolean"}})
    assert confirm.questions()[0].labels == ["Yes", "No"]
    assert confirm.read(answered({"id": "go", "selected": ["Yes"]})) == ({"go": True}, {})


@pytest.mark.parametrize(
    ("kind", "typed", "expected"),
    [("integer", "3", 3), ("number", "2.5", 2.5), ("number", "7", 7), ("integer", "4.0", 4)],
)
def test_typed_numbers_become_numbers(kind: str, typed: str, expected: float) -> None:
    field = form({"n": {"type": kind}})
    assert field.read(answered({"id": "n", "custom": typed})) == ({"n": expected}, {})


@pytest.mark.parametrize(
    ("schema", "typed", "problem"),
    [
        ({"type": "integer"}, "a few", "“a few” is not a whole number"),
        ({"type": "integer"}, "2.5", "“2.5” is not a whole number"),
        ({"type": "number"}, "nan", "“nan” is not a number"),
        ({"type": "integer", "minimum": 1}, "0", "0 is less than 1"),
        ({"type": "number", "maximum": 9.5}, "10", "10 is more than 9.5"),
        ({"type": "string", "format": "email"}, "ana", "“ana” is not an email address"),
        (
            {"type": "string", "format": "date"},
            "tomorrow",
            "“tomorrow” is not a date such as 2026-12-31",
        ),
        ({"type": "string", "maxLength": 3}, "abcd", "the answer is longer than 3 characters"),
    ],
)
def test_an_answer_the_schema_refuses_is_a_problem_that_says_why(
    schema: dict[str, Any], typed: str, problem: str
) -> None:
    assert form({"f": schema}).read(answered({"id": "f", "custom": typed})) == ({}, {"f": problem})


def test_a_skipped_optional_field_is_left_out_and_a_required_one_is_a_problem() -> None:
    fields = form({"a": {"type": "string"}, "b": {"type": "string"}}, required=["b"])
    got = fields.read(answered({"id": "a", "selected": []}, {"id": "b", "selected": []}))
    assert got == ({}, {"b": "an answer is required"})


def test_re_asking_shows_only_the_refused_fields_with_the_reason() -> None:
    questions = form({"env": ENV, "n": {"type": "integer"}}).questions(
        {"n": "“x” is not a whole number"}
    )
    assert [(q.id, q.header, q.detail) for q in questions] == [
        (
            "n",
            "deployer: Deploy settings?",
            "Not accepted: “x” is not a whole number\n\nAnswer with a whole number.",
        )
    ]


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        (None, "the elicitation has no requested schema to ask about"),
        (
            {"type": "object", "properties": {}},
            "the requested schema has no properties to ask about",
        ),
        (
            {"type": "object", "properties": {"o": {"type": "object"}}},
            "property 'o' has type 'object'; a form may hold strings, numbers, integers, booleans and enums",
        ),
        (
            {"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string"}}}},
            "property 'a' is an array without an enum of choices",
        ),
        (
            {"type": "object", "properties": {"e": {"type": "string", "enum": ["x", "x"]}}},
            "property 'e' has blank or repeated choice titles: ['x', 'x']",
        ),
    ],
)
def test_a_schema_that_cannot_be_shown_is_a_form_error_naming_the_part(
    schema: dict[str, Any] | None, message: str
) -> None:
    with pytest.raises(FormError) as caught:
        ElicitationForm.from_schema("m", schema)
    assert str(caught.value) == message
