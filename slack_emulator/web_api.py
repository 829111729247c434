"""The Web API: authenticates a call, applies injected faults, runs the method, records it.

Method handlers (in `slack_emulator.methods`) are plain functions of a `MethodContext` and the
call's `Params`; they return the success body or raise `SlackError`. Slack answers errors
with HTTP 200 and `{"ok": false, "error": ...}`; only rate limits and server faults change
the status. https://docs.slack.dev/apis/web-api/
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Final, Literal

from slack_emulator.block_checks import Issue
from slack_emulator.faults import ApiError, Faults, RateLimited, ServerError, Slow, SlowReply
from slack_emulator.files import Files
from slack_emulator.identity import AppIdentity
from slack_emulator.ids import Ids
from slack_emulator.posting_rate import POSTING_METHODS, PostingLimits, retry_after_header
from slack_emulator.records import ApiCall, BlockKitViolation, Recorder
from slack_emulator.slack_error import SlackError
from slack_emulator.triggers import Triggers
from slack_emulator.wire import JsonDict
from slack_emulator.workspace import Workspace

TokenKind = Literal["bot", "app"]

# Form-encoded arguments Slack documents as "a JSON-based array/object, URL-encoded".
JSON_ARGUMENTS: Final = frozenset({"blocks", "attachments", "view", "metadata", "loading_messages"})


@dataclass(frozen=True)
class MethodContext:
    """What a method handler may use, for one call of `method`."""

    app: AppIdentity
    workspace: Workspace
    ids: Ids
    triggers: Triggers
    recorder: Recorder
    socket_url: Callable[[], str]
    method: str = ""
    files: Files = field(default_factory=Files)  # uploads (files.getUploadURLExternal, …)

    def refuse(self, issues: list[Issue], *, error: str) -> None:
        """Record Block Kit issues as violations and answer as Slack does, if there are any."""
        if not issues:
            return
        for issue in issues:
            self.recorder.violation(
                BlockKitViolation(self.method, issue.rule, issue.pointer, issue.message)
            )
        raise SlackError(error, messages=[issue.slack_message for issue in issues])


class Params:
    """A call's arguments, merged from query string and body; typed accessors."""

    def __init__(self, values: JsonDict) -> None:
        self.values = values

    def optional(self, name: str) -> str | None:
        value = self.values.get(name)
        if value is None or value == "":
            return None
        return value if isinstance(value, str) else json.dumps(value)

    def required(self, name: str, *, error: str) -> str:
        value = self.optional(name)
        if value is None:
            raise SlackError(error)
        return value

    def flag(self, name: str) -> bool:
        value = self.values.get(name)
        if isinstance(value, bool):
            return value
        return isinstance(value, str | int) and str(value).lower() in ("1", "true")

    def integer(self, name: str, default: int) -> int:
        value = self.values.get(name)
        if value is None or value == "":
            return default
        try:
            return int(value)
        except (TypeError, ValueError) as exc:
            raise SlackError("invalid_arguments", messages=[f"invalid `{name}`"]) from exc

    def json_list(self, name: str, *, error: str) -> list[JsonDict] | None:
        value = self.values.get(name)
        if value is None or value == "":
            return None
        if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
            raise SlackError(error)
        return value

    def json_object(self, name: str, *, error: str) -> JsonDict | None:
        value = self.values.get(name)
        if value is None or value == "":
            return None
        if not isinstance(value, dict):
            raise SlackError(error)
        return value


Handler = Callable[[MethodContext, Params], JsonDict]


@dataclass(frozen=True)
class Method:
    handler: Handler
    token: TokenKind = "bot"


@dataclass(frozen=True)
class ApiReply:
    status: int
    body: JsonDict | str
    headers: dict[str, str] = field(default_factory=dict)


def decode_form_arguments(values: Mapping[str, str]) -> JsonDict:
    """Form fields as Slack reads them: the JSON-valued arguments parsed, the rest strings.
    Undecodable JSON stays a string, and the method then refuses it."""
    decoded: JsonDict = {}
    for name, value in values.items():
        if name in JSON_ARGUMENTS:
            try:
                decoded[name] = json.loads(value)
            except ValueError:
                decoded[name] = value
        else:
            decoded[name] = value
    return decoded


class WebApi:
    def __init__(
        self,
        context: MethodContext,
        methods: Mapping[str, Method],
        faults: Faults,
        stopping: asyncio.Event,
    ) -> None:
        self._context = context
        self._methods = methods
        self._faults = faults
        self._stopping = stopping
        # Slack's per-channel posting rate, when a test turns it on (`limit_posting`).
        self.posting_limits: PostingLimits | None = None

    async def call(
        self, method: str, params: JsonDict, token: str | None, *, token_in_header: bool = True
    ) -> ApiReply:
        fault = self._faults.take(method)
        if isinstance(fault, Slow):
            self._context.recorder.hold(method)
            await self._delay(fault.seconds, fault.released)
        wait = self._posting_wait(method, params)
        if wait is not None:
            reply = _rate_limited(wait)
        else:
            reply = self._answer(method, params, token, token_in_header, fault)
        if isinstance(fault, SlowReply):
            await self._delay(fault.seconds)
        self._context.recorder.call(
            ApiCall(
                method,
                params,
                reply.body if isinstance(reply.body, dict) else {"http_body": reply.body},
                reply.status,
            )
        )
        return reply

    def _posting_wait(self, method: str, params: JsonDict) -> float | None:
        channel = params.get("channel")
        if self.posting_limits is None or method not in POSTING_METHODS:
            return None
        return self.posting_limits.take(channel if isinstance(channel, str) else "")

    def _answer(
        self,
        method: str,
        params: JsonDict,
        token: str | None,
        token_in_header: bool,
        fault: RateLimited | ServerError | Slow | SlowReply | ApiError | None,
    ) -> ApiReply:
        if isinstance(fault, RateLimited):
            return ApiReply(
                429, {"ok": False, "error": "ratelimited"}, {"Retry-After": str(fault.retry_after)}
            )
        if isinstance(fault, ServerError):
            return ApiReply(fault.status, _SERVER_ERROR_PAGE)
        spec = self._methods.get(method)
        if spec is None:
            return ApiReply(200, {"ok": False, "error": "unknown_method", "req_method": method})
        try:
            # apps.connections.open: "you will need to pass this token in the HTTP
            # Authorization header"; a token passed as a parameter is an error.
            self._authenticate(
                token if token_in_header or spec.token == "bot" else None, spec.token
            )
            if isinstance(fault, ApiError):
                raise SlackError(fault.error)
            body = spec.handler(dataclasses.replace(self._context, method=method), Params(params))
        except SlackError as error:
            return ApiReply(200, error.to_wire())
        return ApiReply(200, {"ok": True, **body})

    def _authenticate(self, token: str | None, needed: TokenKind) -> None:
        app = self._context.app
        kinds: dict[str, TokenKind] = {app.bot_token: "bot", app.app_token: "app"}
        if not token:
            raise SlackError("not_authed")
        kind = kinds.get(token)
        if kind is None:
            raise SlackError("invalid_auth")
        if kind != needed:
            raise SlackError("not_allowed_token_type")

    async def _delay(self, seconds: float, released: asyncio.Event | None = None) -> None:
        """Sleep, but let `stop()` (or the test, setting `released`) cut the delay short so
        shutdown never waits on it."""
        ends = [asyncio.ensure_future(self._stopping.wait())]
        if released is not None:
            ends.append(asyncio.ensure_future(released.wait()))
        try:
            await asyncio.wait(ends, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for end in ends:
                end.cancel()


def _rate_limited(wait: float) -> ApiReply:
    return ApiReply(
        429, {"ok": False, "error": "ratelimited"}, {"Retry-After": retry_after_header(wait)}
    )


_SERVER_ERROR_PAGE: Final = (
    "<!DOCTYPE html><html><head><title>Slack</title></head>"
    "<body><h1>Slack is having trouble</h1></body></html>"
)
