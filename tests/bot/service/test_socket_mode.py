"""Socket Mode end to end: interactions over the socket, reconnects, and the watchdog."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.service.server import Server, Timings
from bot.slack.socket_mode import SocketModeRunner
from provider import AskUserQuestionRequest, RelayProvider
from slack_emulator import SlackEmulator

from ..harness import ALICE
from .harness import APP_TOKEN, RELAY_TOKEN, free_port, in_process, service_env, subprocess_service
from .test_relay import DB, posted

REQUEST = AskUserQuestionRequest.model_validate({"questions": [DB]})
# Socket Mode's ping interval in these tests (the product's is 5 s): how soon a drop is mended.
SOCKET_PING = Timings(socket_ping=0.5)


@pytest.fixture
async def socket_server(emu: SlackEmulator, tmp_path: Path) -> AsyncIterator[Server]:
    # A dropped socket is reopened at the next ping: soon, so a drop's test does not wait 5 s.
    async with in_process(
        emu, tmp_path / "asks.db", timings=SOCKET_PING, SLACK_APP_TOKEN=APP_TOKEN
    ) as server:
        emu.request_url = None  # nothing reaches Slack's Request URL in Socket Mode
        emu.delivery = "socket"
        await emu.socket_mode.wait_connected()
        yield server


async def ask_and_click(server: Server, emu: SlackEmulator, n: int, label: str) -> list[str]:
    async with RelayProvider(server.url, RELAY_TOKEN) as relay_provider:
        asking = asyncio.create_task(relay_provider.ask(REQUEST))
        delivery = await emu.person(ALICE).click(await posted(emu, n), text=label)
        assert delivery.transport == "socket"
        assert delivery.acked
        return (await asyncio.wait_for(asking, 10)).answers[0].selected


async def test_a_click_arrives_over_the_socket_and_answers(
    socket_server: Server, emu: SlackEmulator
) -> None:
    assert await ask_and_click(socket_server, emu, 1, "SQLite") == ["SQLite"]


async def test_after_a_server_side_disconnect_the_bot_reconnects_and_answers(
    socket_server: Server, emu: SlackEmulator
) -> None:
    await emu.socket_mode.disconnect(reason="refresh_requested")
    await emu.socket_mode.wait_for_connection(2)
    assert await ask_and_click(socket_server, emu, 1, "Postgres") == ["Postgres"]


async def test_after_the_socket_drops_the_bot_reconnects_and_answers(
    socket_server: Server, emu: SlackEmulator
) -> None:
    await emu.socket_mode.drop()
    await emu.socket_mode.wait_for_connection(2, within=20)
    assert await ask_and_click(socket_server, emu, 1, "Postgres") == ["Postgres"]


async def test_the_watchdog_rebuilds_a_client_that_stays_dead(
    socket_server: Server, emu: SlackEmulator
) -> None:
    runner = socket_server.socket
    assert runner is not None
    watched = SocketModeRunner(
        socket_server.provider.app,
        APP_TOKEN,
        api_url=emu.api_url,
        check_every=0.05,
        dead_after=0.2,
    )
    await runner.close()  # hand the connection over to a watchdog we can time
    await watched.start()
    try:
        await emu.socket_mode.wait_connected()
        opened = emu.socket_mode.connections_opened
        assert watched.handler is not None
        # The SDK client dies for good (as in python-slack-sdk #1922): it never reconnects.
        await watched.handler.client.close()  # type: ignore[no-untyped-call]
        await emu.socket_mode.wait_for_connection(opened + 1, within=10)
        assert watched.rebuilds == 1
        assert await ask_and_click(socket_server, emu, 1, "SQLite") == ["SQLite"]
    finally:
        await watched.close()


async def test_the_service_process_runs_in_socket_mode(emu: SlackEmulator, tmp_path: Path) -> None:
    env = service_env(emu, tmp_path / "asks.db", free_port(), SLACK_APP_TOKEN=APP_TOKEN)
    async with subprocess_service(emu, env) as service:
        emu.request_url = None
        emu.delivery = "socket"
        await emu.socket_mode.wait_connected(within=20)
        async with RelayProvider(service.url, RELAY_TOKEN) as relay_provider:
            asking = asyncio.create_task(relay_provider.ask(REQUEST))
            await emu.person(ALICE).click(await posted(emu), text="SQLite")
            assert (await asyncio.wait_for(asking, 20)).answers[0].selected == ["SQLite"]
        assert "Socket Mode" in "".join(service.output)
