"""MCP Tasks: a client that declares the extension gets a task for its question, and polls it."""

from __future__ import annotations

import asyncio

import pytest
from mcp import Client
from mcp.client.extension import advertise
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult

from bot.mcp.desk import DeskOptions, QuestionDesk
from bot.mcp.tasks import EXTENSION
from bot.service.server import Server
from provider import ErrorCode, RelayProvider
from provider.tool import NAME
from slack_emulator import SlackEmulator

from ..harness import ALICE, CHANNEL
from ..service.harness import RELAY_TOKEN
from ..service.test_relay import DB, posted
from .tasks_client import CreatedTask, call_as_task, cancel_task, get_task, tasks_client
from .test_tools import texts

ANSWER = {
    "content": [{"type": "text", "text": '{"answers":[{"id":"db","selected":["SQLite"]}]}'}],
    "structuredContent": {"answers": [{"id": "db", "selected": ["SQLite"]}]},
    "isError": False,
    "resultType": "complete",
}


async def settled(server: Server, ask_id: str) -> None:
    """Until the service has the ask settled (the relay's long poll: no sleeping)."""
    async with RelayProvider(server.url, RELAY_TOKEN) as relay:
        await relay.poll(ask_id, wait_seconds=10)


async def test_a_declaring_client_gets_a_working_task_named_for_its_ask_at_once(
    desk: QuestionDesk, server: Server, emu: SlackEmulator
) -> None:
    async with tasks_client(desk) as mcp:
        created = await call_as_task(mcp, NAME, {"questions": [DB]})
    assert isinstance(created, CreatedTask)
    [record] = await server.store.recent()
    assert created.task_id == record.id
    assert created.status == "working"
    assert created.status_message in {
        "waiting for an answer in #agent-questions",
        "queued to be posted in #agent-questions",
    }
    assert created.ttl_ms is None
    assert created.poll_interval_ms == 5000
    assert created.created_at.endswith("Z")
    await posted(emu)


async def test_the_task_polls_from_working_to_the_blocking_calls_result(
    desk: QuestionDesk, server: Server, emu: SlackEmulator
) -> None:
    async with tasks_client(desk) as mcp:
        created = await call_as_task(mcp, NAME, {"questions": [DB]})
        assert isinstance(created, CreatedTask)
        message = await posted(emu)
        working = await get_task(mcp, created.task_id)
        await emu.person(ALICE).click(message, text="SQLite")
        await settled(server, created.task_id)
        done = await get_task(mcp, created.task_id)
    assert (working.result_type, working.status, working.status_message, working.result) == (
        "complete",
        "working",
        "waiting for an answer in #agent-questions",
        None,
    )
    assert (done.status, done.task_id, done.created_at) == (
        "completed",
        created.task_id,
        created.created_at,
    )
    assert done.result == ANSWER


async def test_tasks_cancel_withdraws_the_ask_in_slack_and_the_task_reads_cancelled(
    desk: QuestionDesk, server: Server, emu: SlackEmulator
) -> None:
    async with tasks_client(desk) as mcp:
        created = await call_as_task(mcp, NAME, {"questions": [DB]})
        assert isinstance(created, CreatedTask)
        message = await posted(emu)
        acknowledged = await cancel_task(mcp, created.task_id)
        await emu.wait_for(
            lambda: "Withdrawn" in str(emu.message(CHANNEL, message.ts).blocks[-1]),
            what="the withdrawn message",
        )
        after = await get_task(mcp, created.task_id)
    assert acknowledged.result_type == "complete"
    [record] = await server.store.recent()
    assert record.error is not None
    assert record.error.code is ErrorCode.ASK_ABORTED
    assert after.status == "cancelled"
    assert after.result is None


@pytest.mark.parametrize("task_id", ["0123456789abcdef", "not-an-ask-id", "../v1/asks"])
async def test_an_unknown_task_id_is_invalid_params(desk: QuestionDesk, task_id: str) -> None:
    async with tasks_client(desk) as mcp:
        with pytest.raises(MCPError) as got:
            await get_task(mcp, task_id)
        with pytest.raises(MCPError) as cancelling:
            await cancel_task(mcp, task_id)
    assert (got.value.code, got.value.message) == (
        -32602,
        "Failed to retrieve task: Task not found",
    )
    assert cancelling.value.code == -32602


async def test_a_client_without_the_extension_is_refused_tasks_get(desk: QuestionDesk) -> None:
    async with tasks_client(desk, declares=False) as mcp:
        with pytest.raises(MCPError) as got:
            await get_task(mcp, "0123456789abcdef")
    assert got.value.code == -32021
    assert got.value.data == {
        "requiredCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}
    }


async def test_another_server_on_the_same_service_answers_a_task_the_first_made(
    desk: QuestionDesk, server: Server, emu: SlackEmulator
) -> None:
    async with tasks_client(desk) as mcp:
        created = await call_as_task(mcp, NAME, {"questions": [DB]})
    assert isinstance(created, CreatedTask)
    await desk.close()  # the first server is gone, and its connection with it
    message = await posted(emu)
    await emu.person(ALICE).click(message, text="SQLite")
    async with (
        RelayProvider(server.url, RELAY_TOKEN) as relay,
        QuestionDesk(relay, DeskOptions(where="#agent-questions")) as fresh,
        tasks_client(fresh) as again,
    ):
        await settled(server, created.task_id)
        done = await get_task(again, created.task_id)
    assert (done.status, done.result) == ("completed", ANSWER)


async def test_invalid_arguments_get_the_error_result_at_once_and_no_task(
    desk: QuestionDesk, server: Server
) -> None:
    async with tasks_client(desk) as mcp:
        result = await call_as_task(mcp, NAME, {"questions": "Postgres?"})
    assert isinstance(result, CallToolResult)
    assert result.is_error is True
    assert texts(result) == [
        "Error: invalid ask_user_question arguments: questions: must be an array"
    ]
    assert await server.store.recent() == []


async def test_a_client_without_the_extension_gets_todays_blocking_result(
    desk: QuestionDesk, emu: SlackEmulator
) -> None:
    async with tasks_client(desk, declares=False) as mcp:
        asking = asyncio.create_task(mcp.call_tool(NAME, {"questions": [DB]}))
        await emu.person(ALICE).click(await posted(emu), text="SQLite")
        result = await asking
    assert result.model_dump(by_alias=True, exclude_none=True, exclude={"meta"}) == ANSWER


async def test_a_handshake_era_client_declaring_the_extension_still_blocks(
    desk: QuestionDesk, emu: SlackEmulator
) -> None:
    # A task is 2026-07-28 vocabulary, declared per request: a 2025 connection keeps the call.
    legacy = Client(desk.server, mode="legacy", extensions=[advertise(EXTENSION)])
    async with legacy as mcp:
        asking = asyncio.create_task(mcp.call_tool(NAME, {"questions": [DB]}))
        await emu.person(ALICE).click(await posted(emu), text="SQLite")
        result = await asking
    assert texts(result) == [ANSWER["content"][0]["text"]]  # type: ignore[index]
