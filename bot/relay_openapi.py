"""The relay's OpenAPI 3.1 document, built from the same pydantic models the relay uses."""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic.json_schema import models_json_schema

from provider.relay_wire import AskList, AskView, CreateAsk, Problem

REF = "#/components/schemas/{model}"


def _ref(name: str) -> dict[str, str]:
    return {"$ref": REF.format(model=name)}


def _json(name: str, description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": _ref(name)}}}


@cache
def openapi_document() -> dict[str, Any]:
    """The relay API, described for client generators and humans."""
    _, schemas = models_json_schema(
        [
            (CreateAsk, "validation"),
            (AskView, "serialization"),
            (AskList, "serialization"),
            (Problem, "serialization"),
        ],
        ref_template=REF,
    )
    problems = {
        "400": _json("Problem", "Invalid body or query; `fields` names each problem"),
        "401": _json("Problem", "Missing or wrong bearer token"),
    }
    ask_id = {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "slack-questions relay",
            "version": "1",
            "description": "Ask people in Slack from any process; answers come back typed.",
        },
        "components": {
            "schemas": schemas["$defs"],
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
        "security": [{"bearer": []}],
        "paths": {
            "/v1/asks": {
                "post": {
                    "summary": "Ask (idempotent with idempotency_key)",
                    "requestBody": {
                        "required": True,
                        "content": {"application/json": {"schema": _ref("CreateAsk")}},
                    },
                    "responses": {
                        "201": _json("AskView", "Stored; it is posted to Slack next"),
                        "200": _json("AskView", "This idempotency key already made this ask"),
                        **problems,
                        "413": _json("Problem", "Body too large"),
                        "422": _json("Problem", "Slack cannot show this request (ASK_FAILED)"),
                    },
                },
                "get": {
                    "summary": "List asks, newest first",
                    "parameters": [
                        {
                            "name": "state",
                            "in": "query",
                            "schema": {"enum": ["pending", "answered", "failed"]},
                        },
                        {
                            "name": "limit",
                            "in": "query",
                            "schema": {"type": "integer", "minimum": 1, "maximum": 500},
                        },
                    ],
                    "responses": {"200": _json("AskList", "The asks"), **problems},
                },
            },
            "/v1/asks/{id}": {
                "get": {
                    "summary": "An ask; with wait=S, held open up to S seconds while pending",
                    "parameters": [
                        ask_id,
                        {
                            "name": "wait",
                            "in": "query",
                            "schema": {"type": "number", "minimum": 0, "maximum": 60},
                        },
                    ],
                    "responses": {
                        "200": _json("AskView", "The ask"),
                        **problems,
                        "404": _json("Problem", "No such ask"),
                    },
                },
                "delete": {
                    "summary": "Withdraw the ask (ASK_ABORTED); the message says so",
                    "parameters": [ask_id],
                    "responses": {
                        "200": _json("AskView", "The ask, now failed with ASK_ABORTED"),
                        **problems,
                        "404": _json("Problem", "No such ask"),
                    },
                },
            },
            "/healthz": {
                "get": {
                    "summary": "Liveness",
                    "security": [],
                    "responses": {"200": {"description": "The service is up"}},
                }
            },
        },
    }
