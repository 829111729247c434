"""The MCP Inspector CLI (`@modelcontextprotocol/inspector` 0.15.0, the last on Node 20)
against `python -m bot mcp` on stdio: it lists our tools, and a call it makes is answered by a
person in the emulated Slack."""

from __future__ import annotations

import asyncio
import json
import os
import sys

import pytest

from bot.service.server import Server
from slack_emulator import SlackEmulator

from ..bot.harness import ALICE
from ..bot.hooks.hook import posted
from ..bot.service.harness import RELAY_TOKEN, ROOT
from .claude_code import CLIENTS

INSPECTOR = CLIENTS / "node_modules" / ".bin" / "mcp-inspector"
DB = [
    {
        "id": "db",
        "question": "Which database?",
        "options": [{"label": "Postgres"}, {"label": "SQLite"}],
    }
]


def inspector_or_skip() -> str:
    """The installed Inspector; skip without it, fail under CI=true."""
    if INSPECTOR.exists():
        return str(INSPECTOR)
    reason = (
        f"the MCP Inspector is not installed ({INSPECTOR}): run `npm ci --prefix tests/clients`"
    )
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI must run the real-client tests: {reason}")
    pytest.skip(reason)


async def inspect(server: Server, *method: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        inspector_or_skip(),
        "--cli",
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


async def test_the_inspector_lists_ask_user_question(server: Server) -> None:
    proc = await inspect(server, "tools/list")
    out, _ = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 0
    assert [tool["name"] for tool in json.loads(out)["tools"]] == [
        "ask_user_question",
        "start_question",
        "get_answer",
        "withdraw_question",
    ]


async def test_an_inspector_call_gets_the_answer_a_person_gives_in_slack(
    server: Server, emu: SlackEmulator
) -> None:
    proc = await inspect(
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
