"""The MCP tools in-process, with the SDK's own client, in both protocol eras."""

from __future__ import annotations

import asyncio
import json

from mcp import Client
from mcp_types import Implementation

from bot.emulator import SlackEmulator
from bot.mcp_server import QuestionDesk
from provider.tool import DESCRIPTION, NAME, PARAMETERS

from ..harness import ALICE
from ..service.test_relay import DB, posted


def client(desk: QuestionDesk, era: str, name: str = "claude-code") -> Client:
    return Client(desk.server, mode=era, client_info=Implementation(name=name, version="1.0"))


async def test_the_tool_list_has_the_seams_tool_exactly(desk: QuestionDesk, era: str) -> None:
    async with client(desk, era) as mcp:
        tools = {tool.name: tool for tool in (await mcp.list_tools()).tools}
    assert sorted(tools) == ["ask_user_question", "get_answer", "start_question", "withdraw_question"]
    assert tools[NAME].description == DESCRIPTION
    assert tools[NAME].input_schema == PARAMETERS


async def test_an_answered_ask_returns_the_exact_compact_json(
    desk: QuestionDesk, emu: SlackEmulator, era: str
) -> None:
    async with client(desk, era) as mcp:
        asking = asyncio.create_task(mcp.call_tool(NAME, {"questions": [DB]}))
        await emu.person(ALICE).click(await posted(emu), text="SQLite")
        result = await asking
    assert result.is_error is False
    assert [c.text for c in result.content] == ['{"answers":[{"id":"db","selected":["SQLite"]}]}']
    assert result.structured_content == {"answers": [{"id": "db", "selected": ["SQLite"]}]}
