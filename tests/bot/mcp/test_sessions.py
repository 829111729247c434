"""Agent identity: each MCP client session asks in its own Slack thread, named after the client."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from bot.mcp.desk import DeskOptions, QuestionDesk
from bot.mcp.sessions import agent_name
from bot.service.server import Server
from provider import RelayProvider
from provider.tool import NAME
from slack_emulator import Message, SlackEmulator

from ..harness import ALICE, CHANNEL
from ..service.credentials import credential
from ..service.harness import RELAY_TOKEN
from ..service.test_relay import DB, posted
from .test_tools import client


async def answered_in(emu: SlackEmulator, n: int, asking: asyncio.Task[object]) -> Message:
    message = await posted(emu, n)
    await emu.person(ALICE).click(message, text="SQLite")
    await asking
    return message


def root_text(emu: SlackEmulator, message: Message) -> str:
    return emu.message(CHANNEL, str(message.thread_ts)).text


async def test_asks_of_one_session_land_in_one_thread_named_after_the_client(
    desk: QuestionDesk, emu: SlackEmulator, era: str
) -> None:
    async with client(desk, era, name="claude-code") as mcp:
        first = await answered_in(
            emu, 1, asyncio.create_task(mcp.call_tool(NAME, {"questions": [DB]}))
        )
        second = await answered_in(
            emu, 2, asyncio.create_task(mcp.call_tool(NAME, {"questions": [DB]}))
        )
    assert first.thread_ts == second.thread_ts
    assert root_text(emu, first) == "claude-code needs answers from people"


async def test_two_handshake_sessions_of_one_client_get_two_threads(
    desk: QuestionDesk, emu: SlackEmulator
) -> None:
    async with client(desk, "legacy") as one, client(desk, "legacy") as other:
        first = await answered_in(
            emu, 1, asyncio.create_task(one.call_tool(NAME, {"questions": [DB]}))
        )
        second = await answered_in(
            emu, 2, asyncio.create_task(other.call_tool(NAME, {"questions": [DB]}))
        )
    assert first.thread_ts != second.thread_ts


async def test_two_clients_get_two_threads_in_either_era(
    desk: QuestionDesk, emu: SlackEmulator, era: str
) -> None:
    async with client(desk, era, name="cursor") as one, client(desk, era, name="codex") as other:
        first = await answered_in(
            emu, 1, asyncio.create_task(one.call_tool(NAME, {"questions": [DB]}))
        )
        second = await answered_in(
            emu, 2, asyncio.create_task(other.call_tool(NAME, {"questions": [DB]}))
        )
    assert first.thread_ts != second.thread_ts
    assert [root_text(emu, first), root_text(emu, second)] == [
        "cursor needs answers from people",
        "codex needs answers from people",
    ]


@pytest.fixture
async def named_desk(server: Server) -> AsyncIterator[QuestionDesk]:
    async with (
        RelayProvider(server.url, RELAY_TOKEN) as relay,
        QuestionDesk(relay, DeskOptions(agent_name="Ada's laptop")) as running,
    ):
        yield running


async def test_the_configured_agent_name_leads_the_thread_name(
    named_desk: QuestionDesk, emu: SlackEmulator, era: str
) -> None:
    async with client(named_desk, era, name="claude-code") as mcp:
        message = await answered_in(
            emu, 1, asyncio.create_task(mcp.call_tool(NAME, {"questions": [DB]}))
        )
    assert root_text(emu, message) == "Ada's laptop (claude-code) needs answers from people"


def test_a_thread_is_named_by_whichever_name_is_known() -> None:
    assert agent_name("claude-code", None) == "claude-code"
    assert agent_name(None, "Ada's laptop") == "Ada's laptop"
    assert agent_name("  ", "") == "MCP client"


async def test_under_an_agent_credential_each_session_asks_as_a_session_of_that_agent(
    server: Server, emu: SlackEmulator
) -> None:
    token = await credential(server, "ci")
    async with (
        RelayProvider(server.url, token) as relay,
        QuestionDesk(relay, DeskOptions(agent_id="ci")) as desk,
        client(desk, "legacy", name="claude-code") as mcp,
    ):
        await answered_in(emu, 1, asyncio.create_task(mcp.call_tool(NAME, {"questions": [DB]})))
    (record,) = await server.store.recent(limit=5)
    assert (record.agent_id or "").startswith("ci/mcp-")
    assert record.answer is not None
    assert record.answer.answers[0].selected == ["SQLite"]


async def test_without_the_agent_id_an_agent_credential_is_refused_naming_its_agent(
    server: Server,
) -> None:
    token = await credential(server, "ci")
    async with (
        RelayProvider(server.url, token) as relay,
        QuestionDesk(relay, DeskOptions()) as desk,
        client(desk, "legacy", name="claude-code") as mcp,
    ):
        result = await mcp.call_tool(NAME, {"questions": [DB]})
    assert result.is_error
    assert "AGENT_NOT_ALLOWED" in str(result.content)
    assert "may not ask as agent 'mcp-" in str(result.content)
    assert "it may ask as: ci" in str(result.content)
    assert await server.store.recent(limit=5) == []


async def test_every_session_asks_for_the_configured_requester(
    server: Server, emu: SlackEmulator
) -> None:
    token = await credential(server, "ci")
    options = DeskOptions(agent_id="ci", requester=ALICE)
    async with (
        RelayProvider(server.url, token) as relay,
        QuestionDesk(relay, options) as desk,
        client(desk, "legacy", name="claude-code") as mcp,
    ):
        await answered_in(emu, 1, asyncio.create_task(mcp.call_tool(NAME, {"questions": [DB]})))
    (record,) = await server.store.recent(limit=5)
    assert record.requester == ALICE
