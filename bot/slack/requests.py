"""Requests to /slack/events, checked before Bolt reads them: signed by Slack, then well formed.

Bolt parses a body while building its request, before its own signature check, and its
listener matching indexes into the payload unguarded: either failure answered 500 with a
traceback. Here the signature is verified on the raw bytes first (401 for anything unsigned,
stale or with a malformed timestamp, before anything is parsed), then the body is read with
Bolt's rules and its shape checked (400 for a signed body Bolt could not route).

Before the body is even read, `check_headers` refuses (401) a request without Slack's two
headers or whose timestamp is over five minutes from now, and `check_length` (413) one that
announces a body over the limit: neither costs the time a body takes to arrive.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Final
from urllib.parse import parse_qsl

from pydantic import BaseModel, ConfigDict, JsonValue, ValidationError, model_validator
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_sdk.signature import SignatureVerifier

TIMESTAMP: Final = "X-Slack-Request-Timestamp"
SIGNATURE: Final = "X-Slack-Signature"
# Whole seconds: slack_sdk's verifier calls int() on the header, which a decimal, an empty
# value or 5,000 digits would make raise.
_TIMESTAMP = re.compile(r"[0-9]{1,12}")
_JSON: Final = "application/json"
# Slack's docs: a request whose timestamp is more than five minutes from local time may be
# a replay; slack_sdk's verifier refuses the same window (in either direction).
MAX_AGE_S: Final = 5 * 60


class Refused(Exception):
    """The request is not one to hand to Bolt; `status` is the answer, `reason` says why."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


def check_headers(headers: Mapping[str, str], now: float) -> None:
    """Refuse (401) a request that cannot be Slack's, from its headers alone: a missing
    signature or timestamp, a timestamp that is not whole seconds or over `MAX_AGE_S` from
    `now`. `headers` must look names up case-insensitively, as aiohttp's do."""
    timestamp, signature = headers.get(TIMESTAMP), headers.get(SIGNATURE)
    if timestamp is None or signature is None:
        raise Refused(401, f"no {TIMESTAMP if timestamp is None else SIGNATURE} header")
    if not _TIMESTAMP.fullmatch(timestamp):
        raise Refused(401, f"{TIMESTAMP} is not whole seconds: {timestamp[:20]!r}")
    if abs(now - int(timestamp)) > MAX_AGE_S:
        raise Refused(401, f"{TIMESTAMP} is over {MAX_AGE_S // 60} minutes from now")


def check_length(content_length: int | None, limit: int) -> None:
    """Refuse (413) a body whose announced length is over `limit` bytes. A body sent
    without a length (chunked) is held to the same limit while it is read."""
    if content_length is not None and content_length > limit:
        raise Refused(
            413, f"the body is {content_length} bytes, over the {limit} this endpoint takes"
        )


def verified_text(body: bytes, headers: Mapping[str, str], verifier: SignatureVerifier) -> str:
    """The body as text, once its signature and timestamp are Slack's; else `Refused` (401).

    `headers` must look names up case-insensitively, as aiohttp's do.
    """
    timestamp, signature = headers.get(TIMESTAMP), headers.get(SIGNATURE)
    if timestamp is None or signature is None:
        raise Refused(401, f"no {TIMESTAMP if timestamp is None else SIGNATURE} header")
    if not _TIMESTAMP.fullmatch(timestamp):
        raise Refused(401, f"{TIMESTAMP} is not whole seconds: {timestamp[:20]!r}")
    try:
        # Slack signs UTF-8 text; other bytes cannot carry its signature.
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise Refused(401, "the body is not UTF-8, so Slack did not sign it") from None
    if not verifier.is_valid(body=text, timestamp=timestamp, signature=signature):
        raise Refused(401, "the signature does not match, or the timestamp is over 5 minutes old")
    return text


_Id = str | dict[str, JsonValue] | None  # Slack sends an id, or an object holding it


class _Ids(BaseModel):
    """Who and where, as Bolt's context extraction reads them (here and nested)."""

    model_config = ConfigDict(extra="allow")

    user: _Id = None
    team: _Id = None
    enterprise: _Id = None
    channel: _Id = None


class _Action(BaseModel):
    model_config = ConfigDict(extra="allow")

    action_id: str
    block_id: str | None = None


class _Event(_Ids):
    type: str


class _View(BaseModel):
    model_config = ConfigDict(extra="allow")

    callback_id: str | None = None


class Envelope(_Ids):
    """The fields Bolt indexes into before any listener runs, with the types it assumes."""

    type: str | None = None
    actions: list[_Action] | None = None
    event: _Event | None = None
    view: _View | None = None
    command: str | None = None
    callback_id: str | None = None
    authorizations: list[_Ids] | None = None

    @model_validator(mode="after")
    def _actions_of_a_click(self) -> Envelope:
        # Bolt reads the first action of block_actions and interactive_message.
        if self.type in ("block_actions", "interactive_message") and not self.actions:
            raise ValueError(f"{self.type} without actions")
        return self


def bolt_request_of(text: str, query: str, headers: Mapping[str, list[str]]) -> AsyncBoltRequest:
    """Bolt's request for a verified body, or `Refused` (400) if Bolt could not read or route it.

    The body is parsed once, by Bolt (a click's URL-encoded payload is the costliest part of
    reading it, and on the way to its ack), and that parse is checked as `check_payload`
    checks its own. Only when Bolt fails on a body does `check_payload` read it again, to
    say what is wrong with it."""
    content_type = next(iter(headers.get("content-type", [])), None)
    try:
        request = AsyncBoltRequest(body=text, query=query, headers=dict(headers))
    except (TypeError, ValueError, LookupError, AttributeError, RecursionError) as error:
        check_payload(text, content_type)
        # A shape the envelope does not describe yet: still the sender's garbage, not our bug.
        raise Refused(400, f"Bolt cannot read it: {type(error).__name__}: {error}") from None
    payload: object = request.body if _routed_on(text, content_type) else {}
    if not isinstance(payload, dict):
        check_payload(text, content_type)  # refuses it, saying which part is not an object
    _check_envelope(payload)
    return request


def check_payload(text: str, content_type: str | None) -> None:
    """Refuse (400) a verified body that Bolt could not parse or route; else return."""
    _check_envelope(_parse(text, content_type))


def _routed_on(text: str, content_type: str | None) -> bool:
    """Whether Bolt routes on the body it parses (JSON, or a form's `payload` field), as
    `_parse` reads it; a form without one (a slash command) has no envelope to check."""
    return bool(text) and (content_type == _JSON or text.startswith("{") or "payload" in text)


def _check_envelope(payload: object) -> None:
    try:
        Envelope.model_validate(payload)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "payload"
        raise Refused(400, f"malformed payload: {where}: {first['msg']}") from None


def _parse(text: str, content_type: str | None) -> object:
    # Bolt's own rules: JSON when declared or when it starts with "{", else a form whose
    # `payload` field (if any) is JSON, else the form fields themselves.
    if not text:
        return {}
    if content_type == _JSON or text.startswith("{"):
        return _json(text, "the JSON body")
    if "payload" in text:
        payload = dict(parse_qsl(text, keep_blank_values=True)).get("payload")
        return {} if payload is None else _json(payload, "the payload field")
    return {}


def _json(text: str, what: str) -> object:
    try:
        value = json.loads(text)
    except ValueError as error:
        raise Refused(400, f"{what} is not JSON ({error})") from None
    except RecursionError:
        raise Refused(400, f"{what} is nested too deeply") from None
    if not isinstance(value, dict):
        raise Refused(400, f"{what} is JSON but not an object")
    return value
