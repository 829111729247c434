"""Hostile requests to /slack/events: never a 5xx, never a traceback, never a state change."""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import parse_qs, urlencode

import aiohttp
import pytest
from aiohttp import web

from bot.service.server import Server
from slack_emulator import SlackEmulator

from ..harness import ALICE
from .harness import SECRET, relay
from .test_relay import DB, posted

FORM = "application/x-www-form-urlencoded"
JSON = "application/json"


@dataclass(frozen=True)
class Hostile:
    """One request: its body and headers."""

    body: bytes
    headers: dict[str, str]


def sign(
    body: bytes, *, content_type: str = FORM, age: float = 0.0, secret: str = SECRET
) -> Hostile:
    """`body` signed as Slack signs it, `age` seconds ago."""
    timestamp = str(int(time.time() - age))
    base = b"v0:" + timestamp.encode() + b":" + body
    signature = "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()
    return Hostile(
        body,
        {
            "Content-Type": content_type,
            "X-Slack-Request-Timestamp": timestamp,
            "X-Slack-Signature": signature,
        },
    )


def unsigned(body: bytes, content_type: str = FORM) -> Hostile:
    return Hostile(body, {"Content-Type": content_type})


def with_timestamp(timestamp: str) -> Callable[[str], Hostile]:
    """A genuine click whose timestamp header is replaced (so its signature cannot match)."""

    def build(click: str) -> Hostile:
        signed = sign(click.encode())
        return Hostile(signed.body, {**signed.headers, "X-Slack-Request-Timestamp": timestamp})

    return build


def without(*names: str) -> Callable[[str], Hostile]:
    """A genuine click with `names` headers left out."""

    def build(click: str) -> Hostile:
        signed = sign(click.encode())
        return Hostile(signed.body, {k: v for k, v in signed.headers.items() if k not in names})

    return build


def with_actions(actions: object) -> Callable[[str], Hostile]:
    """The genuine click, signed, with its `actions` replaced."""

    def build(click: str) -> Hostile:
        payload = json.loads(parse_qs(click)["payload"][0])
        payload["actions"] = actions
        return sign(urlencode({"payload": json.dumps(payload)}).encode())

    return build


DEEP = b"[" * 100_000 + b"]" * 100_000
NOT_UTF8 = b"payload=\xff\xfe\xfd"

# Each row: how to build the request from a genuine click's form body, and the exact status.
ROWS = [
    pytest.param(lambda c: unsigned(b"payload=x"), 401, id="unsigned payload=x"),
    pytest.param(lambda c: unsigned(b"[]", JSON), 401, id="unsigned JSON array"),
    pytest.param(lambda c: unsigned(NOT_UTF8), 401, id="unsigned non-UTF-8 bytes"),
    pytest.param(lambda c: unsigned(DEEP, JSON), 401, id="unsigned 100,000-deep nesting"),
    pytest.param(lambda c: unsigned(c.encode()), 401, id="a genuine click without its signature"),
    pytest.param(lambda c: sign(c.encode(), secret="f" * 32), 401, id="signed with another secret"),
    pytest.param(lambda c: sign(c.encode(), age=360), 401, id="a 6-minute-old timestamp"),
    pytest.param(with_timestamp("soon"), 401, id="timestamp not a number"),
    pytest.param(with_timestamp(""), 401, id="timestamp empty"),
    pytest.param(with_timestamp(f"{time.time():.3f}"), 401, id="timestamp decimal"),
    pytest.param(with_timestamp("9" * 5000), 401, id="timestamp of 5,000 digits"),
    pytest.param(without("X-Slack-Request-Timestamp"), 401, id="no timestamp header"),
    pytest.param(without("X-Slack-Signature"), 401, id="no signature header"),
    pytest.param(
        without("X-Slack-Request-Timestamp", "X-Slack-Signature", "Content-Type"),
        401,
        id="no headers",
    ),
    pytest.param(lambda c: sign(NOT_UTF8), 401, id="signed non-UTF-8 bytes"),
    pytest.param(lambda c: sign(c.encode()[:-1]), 400, id="signed click with its last byte cut"),
    pytest.param(lambda c: sign(DEEP, content_type=JSON), 400, id="signed 100,000-deep nesting"),
    pytest.param(lambda c: sign(b"payload=x"), 400, id="signed payload=x"),
    pytest.param(lambda c: sign(b"payload=%5B%5D"), 400, id="signed payload that is a JSON array"),
    pytest.param(lambda c: sign(b"[]", content_type=JSON), 400, id="signed JSON array"),
    pytest.param(lambda c: sign(b'"click"', content_type=JSON), 400, id="signed JSON string"),
    pytest.param(lambda c: sign(b"{}", content_type=JSON), 404, id="signed empty JSON object"),
    pytest.param(lambda c: sign(b"a=b&c=d"), 404, id="signed form that is not a payload"),
    pytest.param(lambda c: sign(b""), 404, id="signed empty body"),
    pytest.param(with_actions([]), 400, id="signed block_actions with actions []"),
    pytest.param(with_actions({"0": {}}), 400, id="signed block_actions with actions {…}"),
    pytest.param(with_actions(["click"]), 400, id="signed block_actions with a string action"),
    pytest.param(with_actions([{"type": "button"}]), 400, id="signed action without action_id"),
    pytest.param(
        lambda c: sign(b'{"type": "event_callback", "event": "message"}', content_type=JSON),
        400,
        id="signed event that is a string",
    ),
    pytest.param(
        lambda c: sign(b'{"type": "view_submission", "view": []}', content_type=JSON),
        400,
        id="signed view_submission whose view is a list",
    ),
    pytest.param(
        lambda c: sign(b'{"command": 5, "enterprise": 7}', content_type=JSON),
        400,
        id="signed command that is a number",
    ),
    pytest.param(
        lambda c: sign(b'{"authorizations": [{"enterprise": 5}]}', content_type=JSON),
        400,
        id="signed authorization with a numeric enterprise",
    ),
    pytest.param(
        lambda c: sign(
            b'{"type": "event_callback", "event": {"type": "message", "team": []}}',
            content_type=JSON,
        ),
        400,
        id="signed event whose team is a list",
    ),
    pytest.param(lambda c: unsigned(b"x" * 300_000), 413, id="unsigned body over 256 KiB"),
]


@pytest.fixture
async def click(server: Server, http: aiohttp.ClientSession, emu: SlackEmulator) -> tuple[str, str]:
    """A pending ask's id, and the form body of a genuine click on it that never reached us."""
    _, created = await relay(http, "POST", f"{server.url}/v1/asks", json={"questions": [DB]})
    message = await posted(emu)
    # Slack's waiting line is set after the post: once it is, nothing of the ask is in flight.
    await emu.wait_for_call("assistant.threads.setStatus")
    bodies: list[str] = []

    async def capture(request: web.Request) -> web.Response:
        bodies.append(await request.text())
        return web.Response()

    app = web.Application()
    app.router.add_post("/slack/events", capture)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    host, port = runner.addresses[0][:2]
    emu.request_url = f"http://{host}:{port}/slack/events"
    try:
        await emu.person(ALICE).click(message, text="Postgres")
    finally:
        emu.request_url = f"{server.url}/slack/events"
        await runner.cleanup()
    return str(created["id"]), bodies[0]


@pytest.mark.parametrize(("build", "status"), ROWS)
async def test_a_hostile_request_is_refused_cleanly_and_changes_nothing(
    server: Server,
    http: aiohttp.ClientSession,
    emu: SlackEmulator,
    click: tuple[str, str],
    caplog: pytest.LogCaptureFixture,
    build: Callable[[str], Hostile],
    status: int,
) -> None:
    ask_id, genuine = click
    request = build(genuine)
    calls = len(emu.calls)
    caplog.clear()
    async with http.post(
        f"{server.url}/slack/events", data=request.body, headers=request.headers
    ) as response:
        assert response.status == status
    await server.provider.idle()
    assert [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info] == []
    # Bolt's authorization asks who the bot is on the first request it routes: not a change.
    assert [c.method for c in emu.calls[calls:] if c.method != "auth.test"] == []
    assert await relay(http, "GET", f"{server.url}/v1/asks/{ask_id}") == (
        200,
        {"id": ask_id, "state": "pending", "policy": "default"},
    )


async def test_a_refused_request_is_logged_once_as_a_warning_naming_why(
    server: Server, http: aiohttp.ClientSession, caplog: pytest.LogCaptureFixture
) -> None:
    bad = sign(b"payload=x")
    async with http.post(f"{server.url}/slack/events", data=bad.body, headers=bad.headers):
        pass
    warnings = [r for r in caplog.records if r.name.startswith("bot.")]
    assert [(r.levelno, r.exc_info) for r in warnings] == [(logging.WARNING, None)]
    assert "the payload field is not JSON" in warnings[0].getMessage()


async def test_the_genuine_click_still_answers_the_ask(
    server: Server, http: aiohttp.ClientSession, click: tuple[str, str]
) -> None:
    ask_id, genuine = click
    request = sign(genuine.encode())
    async with http.post(
        f"{server.url}/slack/events", data=request.body, headers=request.headers
    ) as response:
        assert response.status == 200
    assert await relay(http, "GET", f"{server.url}/v1/asks/{ask_id}", params={"wait": "10"}) == (
        200,
        {
            "id": ask_id,
            "state": "answered",
            "answer": {"answers": [{"id": "db", "selected": ["Postgres"]}]},
            "decided_by": "U0ALICE001",
            "policy": "default",
        },
    )
