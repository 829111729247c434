"""The relay's OpenAPI document states the rules the relay enforces, and its error codes."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import jsonschema

from bot.render.layout import BLOCK_ID_MAX, MENU_OPTIONS_MAX
from bot.service import openapi
from bot.service.openapi import openapi_document
from provider.relay_wire import STATUS_OF_CODE


def schema(name: str) -> dict[str, Any]:
    schemas: dict[str, Any] = openapi_document()["components"]["schemas"]
    return dict(schemas[name]["properties"])


def operations() -> list[tuple[str, dict[str, Any]]]:
    return [
        (f"{method.upper()} {path}", operation)
        for path, methods in openapi_document()["paths"].items()
        for method, operation in methods.items()
    ]


def test_an_ask_needs_at_least_one_question() -> None:
    questions = schema("CreateAsk")["questions"]
    assert questions["minItems"] == 1
    assert "else EMPTY_QUESTIONS" in questions["description"]


def test_an_approve_label_must_name_an_option() -> None:
    approve = schema("PlanReviewIntent")["approve"]
    assert approve["description"] == (
        "The label of the option that approves: it must name one of the question's options, "
        "and the question must carry the plan in `detail` (else BAD_INTENT)."
    )


def test_slacks_limits_are_stated_with_their_422() -> None:
    item = schema("AskUserQuestionItem")
    assert item["id"]["maxLength"] == BLOCK_ID_MAX
    assert item["options"]["anyOf"][0]["maxItems"] == MENU_OPTIONS_MAX
    for described in (item["id"], item["options"], schema("CreateAsk")["questions"]):
        assert "else 422 ASK_FAILED" in described["description"]


def test_each_error_response_lists_codes_the_relay_answers_with_that_status() -> None:
    for name, operation in operations():
        for status, response in operation["responses"].items():
            codes = response.get("x-error-codes", [])
            assert [STATUS_OF_CODE[code] for code in codes] == [int(status)] * len(codes), name
            assert all(code in response["description"] for code in codes), name
            if int(status) >= 400:
                assert codes, f"{name} {status} names no error code"


def test_every_error_code_the_relay_answers_is_documented() -> None:
    documented = {
        code
        for _, operation in operations()
        for response in operation["responses"].values()
        for code in response.get("x-error-codes", [])
    }
    assert documented == set(STATUS_OF_CODE)


def test_creating_an_ask_documents_every_status_it_answers() -> None:
    responses = dict(operations())["POST /v1/asks"]["responses"]
    assert sorted(responses) == [
        "200",
        "201",
        "400",
        "401",
        "403",
        "409",
        "413",
        "422",
        "429",
        "503",
    ]
    assert responses["400"]["x-error-codes"] == [
        "EMPTY_QUESTIONS",
        "CALLER_NOT_LIVE",
        "DELEGATED_CALLER",
        "INVALID_BODY",
    ]
    assert responses["422"]["x-error-codes"] == ["BAD_INTENT", "ASK_FAILED", "NOT_UNIQUE"]


def test_the_document_and_the_relay_server_do_not_import_each_other() -> None:
    # The wire contract (provider.relay_wire) holds the status table both read.
    path = Path(openapi.__file__)
    imported = {
        node.module
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ImportFrom) and node.module
    }
    assert "bot.service.relay" not in imported


def valid_by_the_document(body: object) -> bool:
    document = openapi_document()
    schema = {"$ref": "#/components/schemas/CreateAsk", "components": document["components"]}
    valid: bool = jsonschema.Draft202012Validator(schema).is_valid(body)
    return valid


def test_an_intent_without_its_kind_is_invalid_by_the_document_as_the_relay_refuses_it() -> None:
    question = {"id": "go", "question": "Ship?", "detail": "plan", "options": [{"label": "Yes"}]}
    untagged = {"questions": [{**question, "intent": {"approve": "Yes"}}]}
    tagged = {"questions": [{**question, "intent": {"kind": "plan-review", "approve": "Yes"}}]}
    assert (valid_by_the_document(untagged), valid_by_the_document(tagged)) == (False, True)
