"""The TypeScript MCP SDK's `Client` (tests/clients/ts_sdk_client.mjs) against `python -m bot
mcp` on stdio: with `resetTimeoutOnProgress` our progress (every 15 s) keeps a call alive past
its `timeout`; without it the SDK cancels the call at `timeout` and the ask is withdrawn. A
20 s `timeout` stands in for the SDK's 60 s default."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import time

import pytest

from bot.outcomes import Verdict
from bot.service.server import Server
from slack_emulator import SlackEmulator

from ..bot.harness import ALICE
from ..bot.hooks.hook import posted
from ..bot.service.harness import RELAY_TOKEN, ROOT
from .claude_code import CLIENTS

SCRIPT = CLIENTS / "ts_sdk_client.mjs"
TIMEOUT_MS = 20_000

# Real time: the SDK's own timer is what is under test.
pytestmark = pytest.mark.slow


def node_or_skip() -> str:
    """Node and the installed SDK; skip without them, fail under CI=true."""
    node = shutil.which("node")
    if node and (CLIENTS / "node_modules" / "@modelcontextprotocol" / "sdk").exists():
        return node
    reason = "node or the TypeScript MCP SDK is missing: run `npm ci --prefix tests/clients`"
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI must run the real-client tests: {reason}")
    pytest.skip(reason)


async def start_client(server: Server, *flags: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        node_or_skip(),
        str(SCRIPT),
        str(TIMEOUT_MS),
        *flags,
        cwd=ROOT,
        env={
            "PATH": os.environ.get("PATH", ""),
            "PYTHON": sys.executable,
            "PYTHONPATH": str(ROOT),
            "SLACK_QUESTIONS_RELAY_URL": server.url,
            "SLACK_QUESTIONS_RELAY_TOKEN": RELAY_TOKEN,
        },
        stdout=asyncio.subprocess.PIPE,
    )


async def test_reset_timeout_on_progress_keeps_a_call_alive_past_its_timeout(
    server: Server, emu: SlackEmulator
) -> None:
    client = await start_client(server, "reset")
    message = await posted(emu)
    asked = time.monotonic()
    await asyncio.sleep(25)  # past the 20 s timeout: the wait itself is the behaviour
    await emu.person(ALICE).click(message, text="SQLite")
    out, _ = await asyncio.wait_for(client.communicate(), 30)
    assert time.monotonic() - asked >= 25
    assert json.loads(out) == {"text": '{"answers":[{"id":"db","selected":["SQLite"]}]}'}


async def test_without_reset_timeout_on_progress_the_call_is_cancelled_and_withdrawn(
    server: Server, emu: SlackEmulator
) -> None:
    client = await start_client(server)
    await posted(emu)
    out, _ = await asyncio.wait_for(client.communicate(), 40)
    assert json.loads(out) == {"error": "MCP error -32001: Request timed out"}
    [pending] = await server.provider.asks.recent()
    record = await asyncio.wait_for(server.provider.asks.wait(pending.id), 10)
    assert record.verdict is Verdict.WITHDRAWN
