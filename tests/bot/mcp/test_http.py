"""`python -m bot mcp --http HOST:PORT`: streamable HTTP, a session per client, cancel withdraws."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sys
from collections.abc import AsyncIterator

import aiohttp
import pytest
from mcp import Client
from mcp_types import Implementation

from bot.service.server import Server
from provider import ErrorCode
from provider.tool import NAME
from slack_emulator import SlackEmulator

from ..harness import ALICE, CHANNEL
from ..service.harness import RELAY_TOKEN, ROOT, free_port
from ..service.test_relay import DB, posted
from .test_stdio import mcp_env
from .test_tools import texts


async def spawn_http(server: Server) -> tuple[asyncio.subprocess.Process, str]:
    """`python -m bot mcp --http` as a relay client of `server`, once uvicorn listens."""
    port = free_port()
    env = mcp_env(SLACK_QUESTIONS_RELAY_URL=server.url, SLACK_QUESTIONS_RELAY_TOKEN=RELAY_TOKEN)
    proc = await asyncio.create_subprocess_exec(
        *(sys.executable, "-m", "bot", "mcp", "--http", f"127.0.0.1:{port}"),
        cwd=ROOT,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    assert proc.stderr is not None
    while b"Uvicorn running on" not in (line := await asyncio.wait_for(proc.stderr.readline(), 20)):
        assert line, "the MCP server exited before listening"
    return proc, f"http://127.0.0.1:{port}/mcp"


async def stopped(proc: asyncio.subprocess.Process) -> int:
    """SIGTERM, and the exit code (stderr drained meanwhile)."""
    assert proc.stderr is not None
    draining = asyncio.create_task(proc.stderr.read())
    with contextlib.suppress(ProcessLookupError):
        proc.send_signal(signal.SIGTERM)
    code = await asyncio.wait_for(proc.wait(), 30)
    await draining
    return code


@pytest.fixture
async def mcp_url(server: Server) -> AsyncIterator[str]:
    proc, url = await spawn_http(server)
    try:
        yield url
    finally:
        assert await stopped(proc) == 0


def http_client(url: str, era: str, name: str = "claude-code") -> Client:
    return Client(url, mode=era, client_info=Implementation(name=name, version="1"))


async def test_an_http_client_gets_the_answer(mcp_url: str, emu: SlackEmulator, era: str) -> None:
    async with http_client(mcp_url, era) as mcp:
        asking = asyncio.create_task(mcp.call_tool(NAME, {"questions": [DB]}))
        await emu.person(ALICE).click(await posted(emu), text="SQLite")
        result = await asyncio.wait_for(asking, 20)
    assert texts(result) == ['{"answers":[{"id":"db","selected":["SQLite"]}]}']


async def test_two_http_sessions_of_one_client_ask_in_two_threads(
    mcp_url: str, emu: SlackEmulator
) -> None:
    threads = []
    for n in (1, 2):
        async with http_client(mcp_url, "legacy") as mcp:
            asking = asyncio.create_task(mcp.call_tool(NAME, {"questions": [DB]}))
            message = await posted(emu, n)
            await emu.person(ALICE).click(message, text="SQLite")
            await asyncio.wait_for(asking, 20)
            threads.append(message.thread_ts)
    assert threads[0] != threads[1]


async def test_a_call_cancelled_over_http_withdraws_the_ask(
    mcp_url: str, server: Server, emu: SlackEmulator, era: str
) -> None:
    async with http_client(mcp_url, era) as mcp:
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


async def test_sigterm_with_a_call_waiting_withdraws_it_and_exits_0(
    server: Server, emu: SlackEmulator
) -> None:
    proc, url = await spawn_http(server)
    async with http_client(url, "legacy") as mcp:
        asking = asyncio.create_task(mcp.call_tool(NAME, {"questions": [DB]}))
        message = await posted(emu)
        assert await stopped(proc) == 0
        asking.cancel()  # the server has gone; the client side ends however it can
        with contextlib.suppress(BaseException):
            await asking
    await emu.wait_for(
        lambda: "Withdrawn" in str(emu.message(CHANNEL, message.ts).blocks[-1]),
        what="the withdrawn message",
    )


async def test_a_call_reissued_after_its_stream_dropped_gets_the_same_ask(
    mcp_url: str, server: Server, emu: SlackEmulator
) -> None:
    headers = {"Accept": "application/json, text/event-stream"}
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "raw-http", "version": "0"},
        },
    }
    call = {
        "jsonrpc": "2.0",
        "method": "tools/call",
        "params": {"name": NAME, "arguments": {"questions": [DB]}},
    }
    async with aiohttp.ClientSession() as http:
        async with http.post(mcp_url, json=init, headers=headers) as response:
            session_id = response.headers["mcp-session-id"]
            await response.read()
        headers |= {"mcp-session-id": session_id, "mcp-protocol-version": "2025-11-25"}
        initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        async with http.post(mcp_url, json=initialized, headers=headers) as response:
            assert response.status == 202
        # The first call's response stream drops while people have not answered yet.
        dropped = await http.post(mcp_url, json=call | {"id": 2}, headers=headers)
        message = await posted(emu)
        dropped.close()
        async with http.post(mcp_url, json=call | {"id": 3}, headers=headers) as again:
            await emu.person(ALICE).click(message, text="SQLite")
            body = await asyncio.wait_for(again.text(), 20)
    [answer] = [
        json.loads(line.removeprefix("data: "))
        for line in body.splitlines()
        if line.startswith("data: ") and '"id":3' in line
    ]
    assert answer["result"]["structuredContent"] == {
        "answers": [{"id": "db", "selected": ["SQLite"]}]
    }
    assert len(await server.store.recent()) == 1
