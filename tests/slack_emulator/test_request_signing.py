"""Requests to the app are signed as Slack signs them, and Bolt checks the signature."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest
from aiohttp import web
from slack_bolt.async_app import AsyncApp
from slack_sdk.signature import SignatureVerifier
from slack_sdk.web.async_client import AsyncWebClient

from slack_emulator import ManualClock, SlackEmulator

from .conftest import ALICE, QUESTIONS, SECRET


@dataclass
class Captured:
    requests: list[tuple[str, dict[str, str]]] = field(default_factory=list)


@pytest.fixture
async def recorder(emu: SlackEmulator) -> AsyncIterator[Captured]:
    """A bare Request URL that keeps every request and acks with 200."""
    captured = Captured()

    async def keep(request: web.Request) -> web.Response:
        captured.requests.append((await request.text(), dict(request.headers)))
        return web.Response()

    app = web.Application()
    app.router.add_post("/slack/events", keep)
    runner = web.AppRunner(app, shutdown_timeout=1.0)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    emu.request_url = f"http://{host}:{port}/slack/events"
    try:
        yield captured
    finally:
        await runner.cleanup()


async def test_slack_sdks_verifier_accepts_every_request_the_emulator_signs(
    emu: SlackEmulator, client: AsyncWebClient, recorder: Captured
) -> None:
    button = {"type": "button", "action_id": "go", "text": {"type": "plain_text", "text": "Go"}}
    ts = (
        await client.chat_postMessage(
            channel=QUESTIONS, text="q", blocks=[{"type": "actions", "elements": [button]}]
        )
    )["ts"]
    alice = emu.person(ALICE)
    await alice.click(emu.message(QUESTIONS, ts), action_id="go")
    await alice.reply(QUESTIONS, ts, "an answer")
    await alice.command("/agent-questions", "help", channel=QUESTIONS)
    await alice.open_home()
    verifier = SignatureVerifier(SECRET)
    assert len(recorder.requests) == 4
    for body, headers in recorder.requests:
        assert verifier.is_valid_request(body, headers)
    content_types = [headers["Content-Type"] for _, headers in recorder.requests]
    assert content_types == [
        "application/x-www-form-urlencoded",
        "application/json",
        "application/x-www-form-urlencoded",
        "application/json",
    ]


async def test_requests_are_stamped_with_the_current_real_time(
    emu: SlackEmulator, recorder: Captured
) -> None:
    await emu.person(ALICE).open_home()
    ((_, headers),) = recorder.requests
    assert abs(int(headers["X-Slack-Request-Timestamp"]) - time.time()) < 5


async def test_bolt_answers_401_to_a_request_signed_with_the_wrong_secret(
    emu: SlackEmulator, http_app: AsyncApp
) -> None:
    emu.signing_secret = "not-the-apps-secret"
    delivery = await emu.person(ALICE).open_home()
    assert (delivery.status, delivery.acked) == (401, False)


async def test_bolt_answers_401_to_a_six_minute_old_timestamp(
    emu: SlackEmulator, http_app: AsyncApp
) -> None:
    emu.request_clock = ManualClock(time.time() - 360)
    delivery = await emu.person(ALICE).open_home()
    assert (delivery.status, delivery.acked) == (401, False)


async def test_bolt_accepts_a_correctly_signed_request(
    emu: SlackEmulator, http_app: AsyncApp
) -> None:
    delivery = await emu.person(ALICE).open_home()
    # No listener for app_home_opened: Bolt still verified the signature and answered 404.
    assert delivery.status == 404
