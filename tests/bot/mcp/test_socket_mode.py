"""The one-developer set-up: no relay configured, the service runs in this process in Socket Mode."""

from __future__ import annotations

import asyncio
from pathlib import Path

from mcp import Client
from mcp_types import Implementation

from bot.mcp.desk import DeskOptions, QuestionDesk
from bot.mcp.main import SocketTarget, opened_relay, resolve_target
from provider.tool import NAME
from slack_emulator import SlackEmulator

from ..harness import ALICE, CHANNEL
from ..service.harness import APP_TOKEN, TOKEN
from ..service.test_relay import DB, posted
from .test_tools import texts


def socket_env(emu: SlackEmulator, **extra: str) -> dict[str, str]:
    return {
        "SLACK_BOT_TOKEN": TOKEN,
        "SLACK_APP_TOKEN": APP_TOKEN,
        "SLACK_QUESTIONS_CHANNEL": CHANNEL,
        "SLACK_API_URL": emu.api_url,
        "SLACK_QUESTIONS_RESPONDERS": "*",
        **extra,
    }


async def test_an_ask_is_answered_over_the_socket_with_no_relay_configured(
    emu: SlackEmulator,
) -> None:
    target = resolve_target(socket_env(emu))
    assert isinstance(target, SocketTarget)
    emu.request_url = None  # no public URL: everything arrives over the socket
    emu.delivery = "socket"
    async with opened_relay(target) as (relay, where):
        await emu.socket_mode.wait_connected()
        async with (
            QuestionDesk(relay, DeskOptions(where=where)) as desk,
            Client(desk.server, client_info=Implementation(name="cursor", version="1")) as mcp,
        ):
            asking = asyncio.create_task(mcp.call_tool(NAME, {"questions": [DB]}))
            delivery = await emu.person(ALICE).click(await posted(emu), text="SQLite")
            result = await asyncio.wait_for(asking, 10)
    assert delivery.transport == "socket"
    assert texts(result) == ['{"answers":[{"id":"db","selected":["SQLite"]}]}']


async def test_the_loopback_relay_has_a_fresh_token_and_pending_asks_stay_in_memory(
    emu: SlackEmulator,
) -> None:
    first, second = resolve_target(socket_env(emu)), resolve_target(socket_env(emu))
    assert isinstance(first, SocketTarget)
    assert isinstance(second, SocketTarget)
    assert first.config.host == "127.0.0.1"
    assert first.config.relay_token is not None
    assert second.config.relay_token is not None
    assert (
        first.config.relay_token.get_secret_value() != second.config.relay_token.get_secret_value()
    )
    assert first.config.db_path == Path(":memory:")


def test_an_explicit_database_is_kept(emu: SlackEmulator, tmp_path: Path) -> None:
    target = resolve_target(socket_env(emu, SLACK_QUESTIONS_DB=str(tmp_path / "asks.db")))
    assert isinstance(target, SocketTarget)
    assert target.config.db_path == tmp_path / "asks.db"
