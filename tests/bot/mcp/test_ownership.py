"""get_answer and withdraw_question reach only the asks this MCP server started.

Another agent's ask id (made directly through the relay, or by another MCP server) is
answered exactly as an id nobody has: it is neither read, nor withdrawn, nor confirmed.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import aiohttp
import pytest
from mcp_types import CallToolResult

from bot.mcp.desk import DeskOptions, QuestionDesk
from bot.service.server import Server
from provider import RelayProvider
from provider.relay_wire import AskState
from slack_emulator import SlackEmulator

from ..harness import ALICE, CHANNEL
from ..service.harness import RELAY_TOKEN, relay
from ..service.test_relay import DB, posted
from .test_tools import client, texts


@pytest.fixture
async def foreign_id(server: Server, emu: SlackEmulator) -> str:
    """A pending ask another agent made straight through the relay, once it is posted."""
    async with aiohttp.ClientSession() as http:
        status, created = await relay(
            http, "POST", f"{server.url}/v1/asks", json={"questions": [DB]}
        )
    assert status == 201
    await posted(emu)
    await server.provider.idle()
    return str(created["id"])


@pytest.fixture
async def other_desk(server: Server) -> AsyncIterator[QuestionDesk]:
    """A second MCP server on the same relay: its own agents, its own asks."""
    async with (
        RelayProvider(server.url, RELAY_TOKEN) as relay_client,
        QuestionDesk(relay_client, DeskOptions(where="#agent-questions")) as running,
    ):
        yield running


def unknown(method: str, ask_id: str) -> list[str]:
    return [f"Error: relay {method} /v1/asks/{ask_id}: HTTP 404 NOT_FOUND: no ask {ask_id}"]


async def call(desk: QuestionDesk, era: str, tool: str, ask_id: str) -> CallToolResult:
    arguments: dict[str, object] = {"ask_id": ask_id}
    if tool == "get_answer":
        arguments["wait_seconds"] = 0
    async with client(desk, era) as mcp:
        return await mcp.call_tool(tool, arguments)


async def test_get_answer_of_another_agents_ask_reads_as_an_unknown_id(
    desk: QuestionDesk, server: Server, emu: SlackEmulator, foreign_id: str, era: str
) -> None:
    await emu.person(ALICE).click(await posted(emu), text="SQLite")
    await server.provider.idle()
    result = await call(desk, era, "get_answer", foreign_id)
    nobodys = await call(desk, era, "get_answer", "nope")
    assert result.is_error is True
    assert texts(result) == unknown("GET", foreign_id)
    assert texts(nobodys) == unknown("GET", "nope")
    assert result.structured_content == {
        "error": {
            "name": "UserQuestionError",
            "code": "ASK_FAILED",
            "message": unknown("GET", foreign_id)[0].removeprefix("Error: "),
        }
    }


async def test_withdraw_question_of_another_agents_ask_leaves_it_pending(
    desk: QuestionDesk, server: Server, emu: SlackEmulator, foreign_id: str, era: str
) -> None:
    message = await posted(emu)
    before = emu.message(CHANNEL, message.ts).blocks
    result = await call(desk, era, "withdraw_question", foreign_id)
    assert result.is_error is True
    assert texts(result) == unknown("DELETE", foreign_id)
    await server.provider.idle()
    [record] = await server.store.recent()
    assert (record.id, record.state) == (foreign_id, AskState.PENDING)
    assert emu.message(CHANNEL, message.ts).blocks == before


async def test_an_ask_another_mcp_server_started_is_unknown_here(
    desk: QuestionDesk, other_desk: QuestionDesk, server: Server, emu: SlackEmulator, era: str
) -> None:
    async with client(other_desk, era) as mcp:
        started = await mcp.call_tool("start_question", {"questions": [DB]})
    assert started.structured_content is not None
    ask_id = str(started.structured_content["ask_id"])
    await posted(emu)
    read = await call(desk, era, "get_answer", ask_id)
    withdrawn = await call(desk, era, "withdraw_question", ask_id)
    own = await call(other_desk, era, "get_answer", ask_id)
    assert texts(read) == unknown("GET", ask_id)
    assert texts(withdrawn) == unknown("DELETE", ask_id)
    assert own.structured_content == {"state": "pending"}
