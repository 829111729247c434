"""The MCP tools in-process, with the SDK's own client, in both protocol eras."""

from __future__ import annotations

import asyncio
import json
from importlib.metadata import version

import pytest
from mcp import Client
from mcp_types import CallToolResult, Implementation, TextContent

from bot.mcp.desk import QuestionDesk
from bot.service.server import Server
from provider import ErrorCode
from provider.tool import DESCRIPTION, NAME, PARAMETERS
from slack_emulator import SlackEmulator

from ..harness import ALICE, CHANNEL
from ..service.test_relay import DB, posted


def client(desk: QuestionDesk, era: str, name: str = "claude-code") -> Client:
    return Client(desk.server, mode=era, client_info=Implementation(name=name, version="1.0"))


async def test_the_tool_list_has_the_seams_tool_exactly(desk: QuestionDesk, era: str) -> None:
    async with client(desk, era) as mcp:
        tools = {tool.name: tool for tool in (await mcp.list_tools()).tools}
    assert sorted(tools) == [
        "ask_user_question",
        "get_answer",
        "start_question",
        "withdraw_question",
    ]
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
    assert texts(result) == ['{"answers":[{"id":"db","selected":["SQLite"]}]}']
    assert result.structured_content == {"answers": [{"id": "db", "selected": ["SQLite"]}]}


async def test_progress_arrives_while_waiting_for_people(
    desk: QuestionDesk, emu: SlackEmulator, era: str
) -> None:
    seen: list[tuple[float, str | None]] = []
    several = asyncio.Event()

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, message))
        if len(seen) >= 3:
            several.set()

    async with client(desk, era) as mcp:
        asking = asyncio.create_task(
            mcp.call_tool(NAME, {"questions": [DB]}, progress_callback=on_progress)
        )
        message = await posted(emu)
        await asyncio.wait_for(several.wait(), 10)
        await emu.person(ALICE).click(message, text="Postgres")
        await asking
    values = [value for value, _ in seen]
    assert values == sorted(values)
    assert seen[0][1] == "waiting for an answer in #agent-questions (0 s)"


async def test_a_cancelled_call_withdraws_the_message_and_aborts_the_ask(
    desk: QuestionDesk, server: Server, emu: SlackEmulator, era: str
) -> None:
    async with client(desk, era) as mcp:
        asking = asyncio.create_task(mcp.call_tool(NAME, {"questions": [DB]}))
        message = await posted(emu)
        asking.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asking
        await emu.wait_for(
            lambda: "Withdrawn" in str(emu.message(CHANNEL, message.ts).blocks[-1]),
            what="the withdrawn message",
        )
    [record] = await server.store.recent()
    assert record.error is not None
    assert record.error.code is ErrorCode.ASK_ABORTED


async def test_start_get_and_withdraw_round_trip(
    desk: QuestionDesk, emu: SlackEmulator, era: str
) -> None:
    async with client(desk, era) as mcp:
        started = await mcp.call_tool("start_question", {"questions": [DB]})
        assert started.structured_content is not None
        ask_id = started.structured_content["ask_id"]
        assert started.structured_content == {"ask_id": ask_id}
        message = await posted(emu)
        pending = await mcp.call_tool("get_answer", {"ask_id": ask_id, "wait_seconds": 0})
        assert pending.structured_content == {"state": "pending"}
        waiting = asyncio.create_task(
            mcp.call_tool("get_answer", {"ask_id": ask_id, "wait_seconds": 10})
        )
        await emu.person(ALICE).click(message, text="Postgres")
        answered = await waiting
        late = await mcp.call_tool("withdraw_question", {"ask_id": ask_id})
    expected = {
        "state": "answered",
        "answer": {"answers": [{"id": "db", "selected": ["Postgres"]}]},
    }
    assert answered.structured_content == expected
    assert texts(answered) == [json.dumps(expected, separators=(",", ":"))]
    assert late.structured_content == expected  # the answer came first and stands


async def test_withdraw_question_withdraws_a_pending_ask(
    desk: QuestionDesk, emu: SlackEmulator, server: Server, era: str
) -> None:
    async with client(desk, era) as mcp:
        started = await mcp.call_tool("start_question", {"questions": [DB]})
        assert started.structured_content is not None
        message = await posted(emu)
        withdrawn = await mcp.call_tool(
            "withdraw_question", {"ask_id": started.structured_content["ask_id"]}
        )
    assert withdrawn.structured_content == {
        "state": "failed",
        "error": {
            "name": "UserQuestionError",
            "code": "ASK_ABORTED",
            "message": "ask_user_question was aborted before the user answered: "
            "the agent withdrew it through the relay",
        },
    }
    await server.provider.idle()
    assert "Withdrawn" in str(emu.message(CHANNEL, message.ts).blocks[-1])


async def test_the_same_start_while_pending_returns_the_same_ask(
    desk: QuestionDesk, emu: SlackEmulator, era: str
) -> None:
    async with client(desk, era) as mcp:
        first = await mcp.call_tool("start_question", {"questions": [DB]})
        again = await mcp.call_tool("start_question", {"questions": [DB]})
        assert first.structured_content is not None
        assert again.structured_content == first.structured_content
        await emu.person(ALICE).click(await posted(emu), text="SQLite")
        await mcp.call_tool(
            "get_answer", {"ask_id": first.structured_content["ask_id"], "wait_seconds": 10}
        )
        later = await mcp.call_tool("start_question", {"questions": [DB]})
        assert later.structured_content is not None
        assert later.structured_content != first.structured_content  # settled: a new ask
        await posted(emu, 2)


async def test_a_seam_error_is_a_tool_error_naming_its_code(desk: QuestionDesk, era: str) -> None:
    async with client(desk, era) as mcp:
        result = await mcp.call_tool(NAME, {"questions": []})
    assert result.is_error is True
    assert texts(result) == ["Error: ask_user_question requires at least one question"]
    assert result.structured_content == {
        "error": {
            "name": "UserQuestionError",
            "code": "EMPTY_QUESTIONS",
            "message": "ask_user_question requires at least one question",
        }
    }


async def test_arguments_outside_the_schema_are_a_tool_error_saying_what_is_wrong(
    desk: QuestionDesk, era: str
) -> None:
    async with client(desk, era) as mcp:
        result = await mcp.call_tool("start_question", {"questions": [{"id": "q"}]})
    assert result.is_error is True
    assert texts(result) == [
        "Error: invalid ask_user_question arguments: questions.0.question: Field required"
    ]
    assert result.structured_content is not None
    assert result.structured_content["error"]["code"] == "INVALID_ARGUMENTS"


async def test_get_answer_of_an_unknown_ask_is_a_tool_error(desk: QuestionDesk, era: str) -> None:
    async with client(desk, era) as mcp:
        result = await mcp.call_tool("get_answer", {"ask_id": "nope", "wait_seconds": 0})
    assert result.is_error is True
    assert texts(result) == ["Error: relay GET /v1/asks/nope: HTTP 404 NOT_FOUND: no ask nope"]


async def test_a_wait_over_50_seconds_is_refused(desk: QuestionDesk, era: str) -> None:
    async with client(desk, era) as mcp:
        result = await mcp.call_tool("get_answer", {"ask_id": "x", "wait_seconds": 51})
    assert result.is_error is True
    assert "less than or equal to 50" in texts(result)[0]


def texts(result: CallToolResult) -> list[str]:
    return [block.text for block in result.content if isinstance(block, TextContent)]


async def test_get_answer_sends_progress_while_it_waits(
    desk: QuestionDesk, emu: SlackEmulator, era: str
) -> None:
    messages: list[str | None] = []
    several = asyncio.Event()

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        messages.append(message)
        if len(messages) >= 2:
            several.set()

    async with client(desk, era) as mcp:
        started = await mcp.call_tool("start_question", {"questions": [DB]})
        assert started.structured_content is not None
        ask_id = started.structured_content["ask_id"]
        waiting = asyncio.create_task(
            mcp.call_tool(
                "get_answer", {"ask_id": ask_id, "wait_seconds": 20}, progress_callback=on_progress
            )
        )
        await asyncio.wait_for(several.wait(), 10)
        await emu.person(ALICE).click(await posted(emu), text="SQLite")
        answered = await waiting
    assert answered.structured_content is not None
    assert answered.structured_content["state"] == "answered"
    assert all(
        m is not None and m.startswith("waiting for an answer in #agent-questions")
        for m in messages
    )


async def test_the_server_names_its_version_in_the_handshake(desk: QuestionDesk) -> None:
    # Issue 24, finding 4: serverInfo.version was an empty string. (2026-era envelopes carry
    # serverInfo only as an optional stamp, which the SDK's server does not send.)
    async with client(desk, "legacy") as mcp:
        info = mcp.server_info
    assert info is not None
    assert (info.name, info.version) == ("slack-questions", version("slack-questions"))
