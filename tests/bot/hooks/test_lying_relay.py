"""The real hook process against a relay that fails or answers what was not asked: a gated
tool is denied every time, never allowed (the hook trusts no relay answer it did not ask for)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager

import pytest
from aiohttp import web

from .hook import Hook, asking, denied, pre_tool_use

PENDING = {"id": "a1", "state": "pending"}
ALLOW = {"id": "approve", "selected": ["Allow"]}
BASH = pre_tool_use("Bash", {"command": "git push"})


def answered(*items: Mapping[str, object], ask_id: str = "a1") -> str:
    return json.dumps({"id": ask_id, "state": "answered", "answer": {"answers": list(items)}})


def problem(code: str) -> str:
    return json.dumps({"error": {"name": "RelayError", "code": code, "message": code.lower()}})


@asynccontextmanager
async def relay(create: tuple[int, str], wait: tuple[int, str] = (200, "")) -> AsyncIterator[str]:
    """A relay on 127.0.0.1 that answers every create and every wait as scripted."""

    async def created(_: web.Request) -> web.Response:
        return web.Response(status=create[0], text=create[1], content_type="application/json")

    async def waited(_: web.Request) -> web.Response:
        return web.Response(status=wait[0], text=wait[1], content_type="application/json")

    app = web.Application()
    app.router.add_post("/v1/asks", created)
    app.router.add_get("/v1/asks/{id}", waited)
    app.router.add_delete("/v1/asks/{id}", waited)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        await runner.cleanup()


CASES = {
    "401": (
        (401, problem("UNAUTHORIZED")),
        (200, ""),
        "ASK_FAILED: relay POST /v1/asks: HTTP 401 UNAUTHORIZED: unauthorized",
    ),
    "5xx": (
        (503, problem("RELAY_DISABLED")),
        (200, ""),
        "ASK_FAILED: the relay at {url} was unreachable for 0.3 s",
    ),
    "garbage body": (
        (201, "<html>proxy</html>"),
        (200, ""),
        "ASK_FAILED: the relay answered POST /v1/asks with an unreadable body",
    ),
    "wrong question id": (
        (201, json.dumps(PENDING)),
        (200, answered({"id": "not-approve", "selected": ["Allow"]})),
        "the relay's answer does not answer the question asked: expected one answer to "
        "'approve', got ['not-approve']",
    ),
    "two items": (
        (201, json.dumps(PENDING)),
        (200, answered(ALLOW, {"id": "approve2", "selected": ["Allow"]})),
        "the relay's answer does not answer the question asked: expected one answer to "
        "'approve', got ['approve', 'approve2']",
    ),
    "no item": (
        (201, json.dumps(PENDING)),
        (200, answered()),
        "the relay's answer does not answer the question asked: expected one answer to "
        "'approve', got []",
    ),
    "another ask's answer": (
        (201, json.dumps(PENDING)),
        (200, answered(ALLOW, ask_id="a2")),
        "ASK_FAILED: the relay answered for ask 'a2', not 'a1'",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
async def test_a_failing_or_lying_relay_gets_the_tool_denied(case: str) -> None:
    create, wait, why = CASES[case]
    async with relay(create, wait) as url:
        done = await (await Hook.start(url, BASH, "--max-outage", "0.3")).finished()
    reason = why.format(url=url)
    assert (done.code, done.output, done.stderr) == (
        0,
        denied("Bash", reason),
        asking() + f"slack-questions hook: {reason}\n",
    )


async def test_a_failing_relay_gets_ask_when_the_hook_is_told_so() -> None:
    async with relay((401, problem("UNAUTHORIZED"))) as url:
        done = await (await Hook.start(url, BASH, "--on-failure", "ask")).finished()
    assert (done.code, done.output) == (
        0,
        {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "ask",
                "permissionDecisionReason": "Slack approval could not be obtained (ASK_FAILED: "
                "relay POST /v1/asks: HTTP 401 UNAUTHORIZED: unauthorized); decide here instead.",
            }
        },
    )


async def test_an_answer_to_the_question_asked_allows() -> None:
    # The same fake relay, answering correctly: the checks above refuse only what is wrong.
    async with relay((201, json.dumps(PENDING)), (200, answered(ALLOW))) as url:
        done = await (await Hook.start(url, BASH)).finished()
    assert (done.code, done.output) == (
        0,
        {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "allow",
                "permissionDecisionReason": "allowed in Slack by a reviewer",
            }
        },
    )
