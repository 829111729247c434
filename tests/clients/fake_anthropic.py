"""A scripted Anthropic Messages API on 127.0.0.1, for driving the real Claude Code CLI.

Claude Code (`ANTHROPIC_BASE_URL`) streams `POST /v1/messages`; this answers each agent turn
from a script, as the Messages API streams it: `message_start`, then per content block
`content_block_start` / `content_block_delta` (`text_delta`, or `input_json_delta` for a
`tool_use`) / `content_block_stop`, then `message_delta` (`stop_reason` `tool_use` or
`end_turn`) and `message_stop`. Every request is recorded, so a test reads what the model was
sent (the `tool_result` of a tool the hook allowed or denied).

A request without tools is Claude Code's own side work (a title, a topic check), not an agent
turn: it gets a short text and does not use up the script. Unknown paths are logged and answered
404, so a test failing on one says which.
"""

from __future__ import annotations

import itertools
import json
import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from aiohttp import web
from pydantic import JsonValue

log = logging.getLogger(__name__)
MODEL = "claude-sonnet-4-5"


@dataclass(frozen=True)
class Text:
    """A turn that ends the agent's work: one text block, `end_turn`."""

    text: str


@dataclass(frozen=True)
class ToolUse:
    """A turn that calls one tool: a `tool_use` block, `stop_reason` `tool_use`."""

    name: str
    input: dict[str, JsonValue]
    id: str = "toolu_01FakeScripted0001"


Turn = Text | ToolUse
# A turn made from the request it answers (e.g. a path Claude Code named in its prompt).
Scripted = Turn | Callable[[dict[str, JsonValue]], Turn]


@dataclass
class FakeAnthropic:
    """The scripted API: `turns` answer the agent's requests in order; `requests` holds the
    body of every agent request received (`arrived`: when); `unknown` every path it could not
    answer."""

    turns: list[Scripted]
    url: str = ""
    requests: list[dict[str, JsonValue]] = field(default_factory=list)
    side_requests: list[dict[str, JsonValue]] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    # When each agent request arrived (time.time(): a bench compares it with other processes).
    arrived: list[float] = field(default_factory=list)

    def tool_results(self) -> list[dict[str, JsonValue]]:
        """Every `tool_result` block the model was sent, in order (each request repeats the
        conversation: the last request holds them all)."""
        if not self.requests:
            return []
        results: list[dict[str, JsonValue]] = []
        messages = self.requests[-1].get("messages")
        assert isinstance(messages, list)
        for message in messages:
            assert isinstance(message, dict)
            content = message.get("content")
            if isinstance(content, list):
                results += [
                    block
                    for block in content
                    if isinstance(block, dict) and block.get("type") == "tool_result"
                ]
        return results

    async def _messages(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        agent_turn = bool(body.get("tools"))
        if agent_turn:
            self.arrived.append(time.time())
        (self.requests if agent_turn else self.side_requests).append(body)
        if agent_turn and len(self.requests) <= len(self.turns):
            scripted = self.turns[len(self.requests) - 1]
            turn = scripted if isinstance(scripted, Text | ToolUse) else scripted(body)
        else:
            if agent_turn:
                log.warning("agent request #%d beyond the script", len(self.requests))
            turn = Text("OK")
        if not body.get("stream"):
            return web.json_response(_message(turn, body))
        response = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
        )
        await response.prepare(request)
        for event, data in _stream(turn, body):
            await response.write(f"event: {event}\ndata: {json.dumps(data)}\n\n".encode())
        await response.write_eof()
        return response

    async def _count_tokens(self, request: web.Request) -> web.Response:
        return web.json_response({"input_tokens": 100})

    async def _unknown(self, request: web.Request) -> web.Response:
        log.warning("fake Anthropic API: unknown %s %s", request.method, request.path)
        self.unknown.append(f"{request.method} {request.path}")
        return web.json_response(
            {"type": "error", "error": {"type": "not_found_error", "message": request.path}},
            status=404,
        )


_ids = itertools.count(1)


def _usage() -> dict[str, JsonValue]:
    return {"input_tokens": 10, "output_tokens": 5}


def _message(turn: Turn, body: dict[str, JsonValue]) -> dict[str, JsonValue]:
    """The non-streamed answer (Claude Code's side requests may not stream)."""
    block: dict[str, JsonValue] = (
        {"type": "text", "text": turn.text}
        if isinstance(turn, Text)
        else {"type": "tool_use", "id": turn.id, "name": turn.name, "input": turn.input}
    )
    return {
        "id": f"msg_fake{next(_ids):04d}",
        "type": "message",
        "role": "assistant",
        "model": body.get("model") or MODEL,
        "content": [block],
        "stop_reason": "end_turn" if isinstance(turn, Text) else "tool_use",
        "stop_sequence": None,
        "usage": _usage(),
    }


def _stream(turn: Turn, body: dict[str, JsonValue]) -> list[tuple[str, dict[str, JsonValue]]]:
    """The SSE events of one turn, in the Messages API's order."""
    start: dict[str, JsonValue] = {
        "id": f"msg_fake{next(_ids):04d}",
        "type": "message",
        "role": "assistant",
        "model": body.get("model") or MODEL,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1},
    }
    events: list[tuple[str, dict[str, JsonValue]]] = [
        ("message_start", {"type": "message_start", "message": start})
    ]
    if isinstance(turn, Text):
        block: dict[str, JsonValue] = {"type": "text", "text": ""}
        delta: dict[str, JsonValue] = {"type": "text_delta", "text": turn.text}
        stop_reason = "end_turn"
    else:
        block = {"type": "tool_use", "id": turn.id, "name": turn.name, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(turn.input)}
        stop_reason = "tool_use"
    events += [
        (
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": block},
        ),
        ("ping", {"type": "ping"}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                "usage": {"output_tokens": 5},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return events


@asynccontextmanager
async def fake_anthropic(*turns: Scripted) -> AsyncIterator[FakeAnthropic]:
    """The fake API, listening on a free port of 127.0.0.1 while the block runs."""
    api = FakeAnthropic(list(turns))
    app = web.Application()
    app.router.add_post("/v1/messages", api._messages)
    app.router.add_post("/v1/messages/count_tokens", api._count_tokens)
    app.router.add_route("*", "/{tail:.*}", api._unknown)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    api.url = f"http://{host}:{port}"
    try:
        yield api
    finally:
        await runner.cleanup()
