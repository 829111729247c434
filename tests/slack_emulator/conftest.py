"""Fixtures: a running emulator with a small workspace, a Web API client pointed at it, and
a real Bolt AsyncApp served over HTTP on 127.0.0.1 or connected over Socket Mode."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from aiohttp import web
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.async_app import AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from slack_emulator import ManualClock, SlackEmulator

SECRET = "test-signing-secret"
BOT_TOKEN = "xoxb-test-token"
APP_TOKEN = "xapp-test-token"

ALICE = "U0ALICE001"
BOB = "U0BOB00002"
CAROL = "U0CAROL003"
QUESTIONS = "C0QUESTION"
LOBBY = "C0LOBBY000"
"""A public channel without the bot."""
SECRETS = "G0SECRET00"
"""A private channel without the bot."""
REVIEWERS = "S0REVIEWER"


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(1_700_000_000.0)


@pytest.fixture
async def emu(clock: ManualClock) -> AsyncIterator[SlackEmulator]:
    emulator = SlackEmulator(
        signing_secret=SECRET, bot_token=BOT_TOKEN, app_token=APP_TOKEN, clock=clock
    )
    workspace = emulator.workspace
    workspace.add_user(ALICE, name="alice", real_name="Alice Archer")
    workspace.add_user(BOB, name="bob", real_name="Bob Baker")
    workspace.add_user(CAROL, name="carol", real_name="Carol Chen")
    workspace.add_channel(
        QUESTIONS, name="agent-questions", members=[ALICE, BOB, emulator.bot_user_id]
    )
    workspace.add_channel(LOBBY, name="lobby", members=[ALICE, CAROL])
    workspace.add_channel(SECRETS, name="secrets", members=[ALICE], is_private=True)
    workspace.add_usergroup(REVIEWERS, handle="reviewers", users=[ALICE, BOB])
    async with emulator:
        yield emulator


@pytest.fixture
def client(emu: SlackEmulator) -> AsyncWebClient:
    return AsyncWebClient(token=BOT_TOKEN, base_url=emu.api_url)


def new_app(emu: SlackEmulator, **options: Any) -> AsyncApp:
    return AsyncApp(
        client=AsyncWebClient(token=BOT_TOKEN, base_url=emu.api_url),
        signing_secret=SECRET,
        **options,
    )


@asynccontextmanager
async def served(emu: SlackEmulator, app: AsyncApp) -> AsyncIterator[AsyncApp]:
    """Serve `app` on 127.0.0.1 with `app.web_app()` and point the emulator at it."""
    runner = web.AppRunner(app.web_app(), shutdown_timeout=1.0)
    await runner.setup()
    try:
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        host, port = runner.addresses[0][:2]
        emu.request_url = f"http://{host}:{port}/slack/events"
        yield app
    finally:
        await runner.cleanup()


@pytest.fixture
async def http_app(emu: SlackEmulator) -> AsyncIterator[AsyncApp]:
    """A Bolt app (HTTP mode) the emulator delivers to."""
    async with served(emu, new_app(emu)) as app:
        yield app


@pytest.fixture
async def socket_app(emu: SlackEmulator) -> AsyncIterator[AsyncApp]:
    """A Bolt app connected over Socket Mode (handler built inside the running loop)."""
    app = new_app(emu)
    handler = AsyncSocketModeHandler(app, app_token=APP_TOKEN, ping_interval=0.2)
    await handler.connect_async()  # type: ignore[no-untyped-call]  # slack_bolt leaves it untyped
    await emu.socket_mode.wait_connected()
    emu.delivery = "socket"
    try:
        yield app
    finally:
        await handler.close_async()  # type: ignore[no-untyped-call]
