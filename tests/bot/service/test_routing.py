"""Routing is the team's: a credential asks only in its channels or the configured ones,
never in a DM, and in no thread but its own sessions'."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.service.server import Server
from slack_emulator import SlackEmulator

from ..harness import ALICE, CHANNEL
from .credentials import credential
from .harness import in_process, relay
from .test_relay import DB, posted

OTHER = "C0OTHER01"  # a channel the bot is in, but not configured for questions


@pytest.fixture
async def routed(emu: SlackEmulator, tmp_path: Path) -> AsyncIterator[Server]:
    """The service with OTHER as a further configured channel."""
    emu.workspace.add_channel(OTHER, name="other", members=[ALICE, emu.bot_user_id])
    async with in_process(emu, tmp_path / "asks.db", SLACK_QUESTIONS_CHANNELS=OTHER) as running:
        yield running


async def ask_in(
    server: Server, http: aiohttp.ClientSession, token: str, channel: str, ts: str | None = None
) -> tuple[int, Any]:
    body = {"questions": [DB], "thread": {"channel": channel, "thread_ts": ts}}
    status, answer = await relay(http, "POST", f"{server.url}/v1/asks", token=token, json=body)
    await server.provider.idle()
    return status, answer


async def test_a_dm_is_refused_403_naming_the_channels_allowed(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    token = await credential(server, "ci")
    status, refused = await ask_in(server, http, token, ALICE)
    assert (status, refused["error"]) == (
        403,
        {
            "name": "RelayError",
            "code": "ROUTE_NOT_ALLOWED",
            "message": f"{ALICE} is a direct message, which the relay never posts in; "
            f"asks may go to {CHANNEL}",
        },
    )
    assert await server.store.recent() == []
    assert emu.calls_to("chat.postMessage") == []


async def test_an_unconfigured_channel_is_refused_403(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    token = await credential(server, "ci")
    status, refused = await ask_in(server, http, token, "C0ELSEWHERE")
    assert (status, refused["error"]["code"]) == (403, "ROUTE_NOT_ALLOWED")
    assert refused["error"]["message"] == (
        f"channel C0ELSEWHERE is not one this credential may ask in; asks may go to {CHANNEL}"
    )
    assert emu.calls_to("chat.postMessage") == []


async def test_the_admin_token_is_refused_an_unconfigured_channel_too(
    server: Server, http: aiohttp.ClientSession
) -> None:
    status, refused = await relay(
        http,
        "POST",
        f"{server.url}/v1/asks",
        json={"questions": [DB], "thread": {"channel": "C0ELSEWHERE"}},
    )
    assert (status, refused["error"]["code"]) == (403, "ROUTE_NOT_ALLOWED")


async def test_a_thread_of_a_person_is_refused_to_a_credential(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    started = await emu.person(ALICE).say(CHANNEL, "deploy please")
    token = await credential(server, "ci")
    status, refused = await ask_in(server, http, token, CHANNEL, started.ts)
    assert (status, refused["error"]["code"]) == (403, "ROUTE_NOT_ALLOWED")
    assert emu.calls_to("chat.postMessage") == []


async def test_a_credential_may_ask_again_in_its_own_sessions_thread(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    token = await credential(server, "ci")
    await relay(http, "POST", f"{server.url}/v1/asks", token=token, json={"questions": [DB]})
    first = await posted(emu)
    status, _ = await ask_in(server, http, token, CHANNEL, first.thread_ts)
    assert status == 201
    assert (await posted(emu, 2)).thread_ts == first.thread_ts


async def test_a_further_configured_channel_is_allowed(
    routed: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    token = await credential(routed, "ci")
    status, _ = await ask_in(routed, http, token, OTHER)
    [record] = await routed.store.recent()
    assert (status, record.channel) == (201, OTHER)


async def test_a_credentials_own_channels_replace_the_configured_ones(
    routed: Server, http: aiohttp.ClientSession
) -> None:
    token = await credential(routed, "ci", channels=(OTHER,))
    status, refused = await ask_in(routed, http, token, CHANNEL)
    assert (status, refused["error"]["message"]) == (
        403,
        f"channel {CHANNEL} is not one this credential may ask in; asks may go to {OTHER}",
    )


async def test_with_no_route_a_credential_limited_to_another_channel_asks_there(
    routed: Server, http: aiohttp.ClientSession
) -> None:
    token = await credential(routed, "ci", channels=(OTHER,))
    status, _ = await relay(
        http, "POST", f"{routed.url}/v1/asks", token=token, json={"questions": [DB]}
    )
    await routed.provider.idle()
    [record] = await routed.store.recent()
    assert (status, record.channel, record.thread_ts) == (201, OTHER, None)
