"""The relay's OpenAPI 3.1 document, built from the same pydantic models the relay uses.

It states every rule a schema can (the seam's rules come with its models; Slack's limits,
answered 422, are added here) and, for each error status, the `error.code`s it carries.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from pydantic.json_schema import models_json_schema

from bot.render.layout import BLOCK_ID_MAX, MENU_OPTIONS_MAX, PARTS_MAX
from provider import ErrorCode
from provider.relay_wire import (
    IDEMPOTENCY_CONFLICT,
    NOT_UNIQUE,
    STATUS_OF_CODE,
    AskList,
    AskView,
    CreateAsk,
    Problem,
    WatchAsks,
    Watched,
)

REF = "#/components/schemas/{model}"
SLACK_CANNOT_SHOW = "else 422 ASK_FAILED: Slack cannot show it"


def _ref(name: str) -> dict[str, str]:
    return {"$ref": REF.format(model=name)}


def _json(name: str, description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": _ref(name)}}}


def _problem(status: int, description: str, codes: tuple[str, ...] | None = None) -> dict[str, Any]:
    """An error response naming its codes: `codes`, or every code the relay answers `status`."""
    listed = codes or tuple(code for code, s in STATUS_OF_CODE.items() if s == status)
    return {
        **_json("Problem", f"{description}. `error.code`: {', '.join(listed)}"),
        "x-error-codes": list(listed),
    }


def _add_slack_limits(schemas: Mapping[str, Any]) -> None:
    # The provider refuses what Slack cannot show before storing it (422, not a malformed body).
    item = schemas["AskUserQuestionItem"]["properties"]
    item["id"]["maxLength"] = BLOCK_ID_MAX
    item["id"]["description"] += f" At most {BLOCK_ID_MAX} characters ({SLACK_CANNOT_SHOW})."
    options = item["options"]
    options["anyOf"][0]["maxItems"] = MENU_OPTIONS_MAX
    options["description"] += f" At most {MENU_OPTIONS_MAX} ({SLACK_CANNOT_SHOW})."
    questions = schemas["CreateAsk"]["properties"]["questions"]
    questions["description"] += (
        f" All of them must fit in {PARTS_MAX} Slack messages ({SLACK_CANNOT_SHOW})."
    )


def _require_tags(schemas: Mapping[str, Any]) -> None:
    # Each intent's `kind` has a default in Python, so pydantic leaves it out of `required`;
    # on the wire it is the tag that picks the intent, and a body without it is refused.
    for schema in schemas.values():
        for union in _unions(schema):
            tag = union["discriminator"]["propertyName"]
            for ref in union["discriminator"]["mapping"].values():
                tagged = schemas[ref.rsplit("/", 1)[-1]]
                tagged["required"] = [tag, *(r for r in tagged.get("required", []) if r != tag)]


def _unions(schema: object) -> list[dict[str, Any]]:
    """Every discriminated union inside `schema`."""
    if isinstance(schema, dict):
        own = [schema] if "discriminator" in schema else []
        return own + [u for value in schema.values() for u in _unions(value)]
    if isinstance(schema, list):
        return [u for value in schema for u in _unions(value)]
    return []


EXPORT_COLUMNS = (
    "ask_id, agent, session, channel, kind, question, answer, decided_by, asked_at, "
    "decided_at, seconds_to_decide, rule_or_grant, permalink"
)


def _audit_export(problems: dict[str, Any], bad_query: dict[str, Any]) -> dict[str, Any]:
    """`GET /v1/audit/export` (bot/service/audit_route.py): a file, not JSON."""
    time = {
        "type": "string",
        "format": "date-time",
        "description": "ISO-8601 time (a date alone is taken too, as its midnight); UTC when "
        "it has no offset",
    }
    outcomes = ["pending", "answered", "withdrawn", "closed", "cancelled", "expired", "failed"]
    text = {"schema": {"type": "string"}}
    return {
        "get": {
            "summary": "The asks made in a period, as CSV or JSON Lines (admin only)",
            "description": f"Columns, in order: {EXPORT_COLUMNS} (docs/audit.md).",
            "parameters": [
                {"name": "since", "in": "query", "required": True, "schema": time},
                {"name": "until", "in": "query", "schema": time},
                {"name": "agent", "in": "query", "schema": {"type": "string"}},
                {"name": "person", "in": "query", "schema": {"type": "string"}},
                {"name": "outcome", "in": "query", "schema": {"enum": outcomes}},
                {"name": "format", "in": "query", "schema": {"enum": ["csv", "jsonl"]}},
            ],
            "responses": {
                "200": {
                    "description": "The file: a header line, then one row per ask (CSV); or "
                    "one JSON object per ask, every value a string (JSON Lines)",
                    "content": {"text/csv": text, "application/x-ndjson": text},
                },
                "400": bad_query,
                **problems,
                "403": _problem(
                    403,
                    "Only the admin token or an admin credential may export",
                    ("ADMIN_ONLY",),
                ),
                "422": _problem(
                    422, "Well formed, but `until` is not after `since`", ("INVALID_RANGE",)
                ),
            },
        }
    }


def _watch(problems: Mapping[str, Any]) -> dict[str, Any]:
    """`GET /v1/asks/watch`: a WebSocket, which OpenAPI can only describe in words."""
    return {
        "get": {
            "summary": "A WebSocket waiting on many asks at once (one connection, not one each)",
            "description": "Upgrade to a WebSocket (the bearer token is checked first, as on "
            "every route). Send text frames of `WatchAsks` (`watch`: ask ids to wait on, "
            "`unwatch`: ids to stop waiting on); receive one `Watched` frame per watched ask: "
            "`ask`, what `GET /v1/asks/{id}` answers, once it settled (at once if it already "
            "had), or `error` as that GET would refuse it (NOT_FOUND, also for another "
            "agent's ask; RATE_LIMITED with `retry_after` seconds: watch it again then). "
            "Each watched ask is a held wait, under the same limits as `wait=`. The relay "
            "closes the socket with 1001 when it stops: reconnect and watch again what is "
            "still pending. A frame that is not `WatchAsks` closes it with 1007.",
            "responses": {
                "101": {"description": "Switching to the WebSocket"},
                **problems,
                "426": _problem(426, "Not a WebSocket upgrade (`Upgrade: websocket` is missing)"),
            },
        }
    }


@cache
def openapi_document() -> dict[str, Any]:
    """The relay API, described for client generators and humans."""
    _, schemas = models_json_schema(
        [
            (CreateAsk, "validation"),
            (AskView, "serialization"),
            (AskList, "serialization"),
            (Problem, "serialization"),
            (WatchAsks, "validation"),
            (Watched, "serialization"),
        ],
        ref_template=REF,
    )
    _add_slack_limits(schemas["$defs"])
    _require_tags(schemas["$defs"])
    problems = {
        "401": _problem(401, "Missing or wrong bearer token"),
        "503": _problem(
            503, "The relay is disabled (no relay token and no agent credential is configured)"
        ),
    }
    # Over a limit of the credential or of the service; `Retry-After` says when to retry.
    limited = _problem(429, "Over a limit; `Retry-After` gives the seconds to wait")
    bad_query = _problem(400, "Invalid query; `fields` names each problem", ("INVALID_BODY",))
    not_found = _problem(404, "No such ask (or not one of this credential's agents)")
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
                        "400": _problem(
                            400, "Invalid body, or an ask the seam refuses; `fields` names each"
                        ),
                        **problems,
                        "409": _problem(
                            409,
                            "This idempotency key already made an ask with a different body",
                            (IDEMPOTENCY_CONFLICT,),
                        ),
                        "403": _problem(
                            403,
                            "This credential may not ask as this agent, or not there "
                            "(a DM, another channel, another session's thread)",
                            ("AGENT_NOT_ALLOWED", "ROUTE_NOT_ALLOWED"),
                        ),
                        "413": _problem(413, "Body too large"),
                        "429": _problem(
                            429,
                            "Too many pending asks or creates a minute for this credential; "
                            "`Retry-After` gives the seconds to wait",
                        ),
                        "422": _problem(
                            422,
                            "Well formed, but not an ask the relay can take: an intent whose "
                            "yes label names none of the options, or a plan review without "
                            "its plan (BAD_INTENT), two questions with one id or two options "
                            "with one label (NOT_UNIQUE); or one Slack cannot show: a question id "
                            f"over {BLOCK_ID_MAX} characters, over {MENU_OPTIONS_MAX} options, "
                            f"or more than {PARTS_MAX} messages' worth of questions (ASK_FAILED)",
                            (ErrorCode.BAD_INTENT, ErrorCode.ASK_FAILED, NOT_UNIQUE),
                        ),
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
                    "responses": {
                        "200": _json("AskList", "The asks"),
                        "400": bad_query,
                        **problems,
                    },
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
                        "400": bad_query,
                        **problems,
                        "404": not_found,
                        "429": limited,
                    },
                },
                "delete": {
                    "summary": "Withdraw the ask (ASK_ABORTED); the message says so",
                    "parameters": [ask_id],
                    "responses": {
                        "200": _json("AskView", "The ask, now failed with ASK_ABORTED"),
                        **problems,
                        "404": not_found,
                    },
                },
            },
            "/v1/asks/watch": _watch(problems),
            "/v1/audit/export": _audit_export(problems, bad_query),
            "/healthz": {
                "get": {
                    "summary": "Liveness",
                    "security": [],
                    "responses": {"200": {"description": "The service is up"}},
                }
            },
        },
    }
