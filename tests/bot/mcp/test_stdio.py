"""`python -m bot mcp` as a real process on stdio, a relay client of the service on the emulator:
end to end, `python -m bot` as a process too; for what the MCP process itself does (its stdout,
its SIGTERM), the service started in the test's process."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp_types import Implementation

from bot.service.server import Server
from provider.tool import NAME
from slack_emulator import SlackEmulator

from ..harness import ALICE, CHANNEL
from ..service.harness import (
    RELAY_TOKEN,
    ROOT,
    Process,
    free_port,
    service_env,
    subprocess_service,
)
from ..service.test_relay import DB, posted
from .test_tools import texts


@pytest.fixture
async def service(emu: SlackEmulator, tmp_path: Path) -> AsyncIterator[Process]:
    env = service_env(emu, tmp_path / "asks.db", free_port())
    async with subprocess_service(emu, env) as running:
        yield running


def mcp_env(**extra: str) -> dict[str, str]:
    """Exactly these variables (plus PATH and PYTHONPATH): nothing leaks in from the test run."""
    return {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(ROOT), **extra}


def relay_env(service: Process | Server) -> dict[str, str]:
    return mcp_env(SLACK_QUESTIONS_RELAY_URL=service.url, SLACK_QUESTIONS_RELAY_TOKEN=RELAY_TOKEN)


async def test_an_mcp_client_on_stdio_gets_the_answer_a_person_gives_in_slack(
    service: Process, emu: SlackEmulator, tmp_path: Path
) -> None:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "bot", "mcp"], env=relay_env(service), cwd=ROOT
    )
    with (tmp_path / "stderr.log").open("w") as errlog:
        async with Client(
            stdio_client(params, errlog=errlog),
            client_info=Implementation(name="claude-code", version="2.0"),
        ) as mcp:
            asking = asyncio.create_task(mcp.call_tool(NAME, {"questions": [DB]}))
            message = await posted(emu)
            await emu.person(ALICE).click(message, text="SQLite")
            result = await asyncio.wait_for(asking, 20)
    assert texts(result) == ['{"answers":[{"id":"db","selected":["SQLite"]}]}']
    root = emu.message(CHANNEL, str(message.thread_ts))
    assert root.text == "claude-code needs answers from people"


async def spawn_mcp(env: Mapping[str, str]) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "mcp",
        cwd=ROOT,
        env=dict(env),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


async def send(proc: asyncio.subprocess.Process, message: Mapping[str, Any]) -> None:
    assert proc.stdin is not None
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")
    await proc.stdin.drain()


async def until_response(
    proc: asyncio.subprocess.Process, request_id: int, lines: list[bytes]
) -> None:
    assert proc.stdout is not None
    while True:
        line = await asyncio.wait_for(proc.stdout.readline(), 20)
        assert line, "stdout closed before the response"
        lines.append(line)
        if json.loads(line).get("id") == request_id:
            return


async def initialize(proc: asyncio.subprocess.Process, raw: list[bytes]) -> None:
    await send(
        proc,
        {
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"},
            },
        },
    )
    await until_response(proc, 1, raw)
    await send(proc, {"method": "notifications/initialized"})


async def test_stdout_carries_nothing_but_json_rpc(server: Server, emu: SlackEmulator) -> None:
    proc = await spawn_mcp(relay_env(server) | {"LOG_LEVEL": "DEBUG"})
    raw: list[bytes] = []
    await initialize(proc, raw)
    await send(
        proc,
        {
            "id": 2,
            "method": "tools/call",
            "params": {
                "name": NAME,
                "arguments": {"questions": [DB]},
                "_meta": {"progressToken": "p-1"},
            },
        },
    )
    await emu.person(ALICE).click(await posted(emu), text="Postgres")
    await until_response(proc, 2, raw)
    assert proc.stdin is not None
    assert proc.stdout is not None
    proc.stdin.close()  # the client leaves: the server ends
    raw.extend((await asyncio.wait_for(proc.stdout.read(), 20)).splitlines(keepends=True))
    assert await asyncio.wait_for(proc.wait(), 20) == 0
    _, logs = await proc.communicate()
    messages = [json.loads(line) for line in raw]  # every line is JSON …
    assert all(m["jsonrpc"] == "2.0" for m in messages)  # … and JSON-RPC
    assert [m.get("id", m.get("method")) for m in messages] == [1, "notifications/progress", 2]
    assert messages[1]["params"]["message"] == "waiting for an answer in Slack (0 s)"
    assert messages[2]["result"]["structuredContent"] == {
        "answers": [{"id": "db", "selected": ["Postgres"]}]
    }
    assert logs  # the DEBUG logs went to stderr


async def test_with_nowhere_to_ask_it_exits_2_listing_what_to_set_and_stdout_stays_empty() -> None:
    proc = await spawn_mcp(mcp_env())
    stdout, stderr = await asyncio.wait_for(proc.communicate(), 20)
    assert proc.returncode == 2
    assert stdout == b""
    text = stderr.decode()
    assert text.startswith("cannot start the MCP server: it has nowhere to send questions.")
    for name in (
        "SLACK_QUESTIONS_RELAY_URL",
        "SLACK_QUESTIONS_RELAY_TOKEN",
        "SLACK_BOT_TOKEN",
        "SLACK_APP_TOKEN",
        "SLACK_QUESTIONS_CHANNEL",
    ):
        assert name in text


async def test_sigterm_withdraws_the_pending_ask_and_exits_0(
    server: Server, emu: SlackEmulator
) -> None:
    proc = await spawn_mcp(relay_env(server))
    await initialize(proc, [])
    call = {"name": NAME, "arguments": {"questions": [DB]}}
    await send(proc, {"id": 2, "method": "tools/call", "params": call})
    message = await posted(emu)
    proc.send_signal(signal.SIGTERM)
    assert await asyncio.wait_for(proc.wait(), 20) == 0
    await emu.wait_for(
        lambda: "Withdrawn" in str(emu.message(CHANNEL, message.ts).blocks[-1]),
        what="the withdrawn message",
    )
