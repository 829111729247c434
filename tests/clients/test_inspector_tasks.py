"""MCP Tasks with a real client nobody here wrote: the Inspector CLI 2.12 on the 2026-07-28
protocol declares `io.modelcontextprotocol/tasks` on every request, so our `ask_user_question`
answers its call with a task (the ask's id) and the Inspector polls `tasks/get` to the answer.
(Its CLI has no `tasks/get` or `tasks/cancel` of its own to call from a fresh process: those,
and a task read after its maker is gone, are pinned with the Python SDK in
tests/bot/mcp/test_tasks*.py.)"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from bot.service.server import Server
from slack_emulator import SlackEmulator

from ..bot.harness import ALICE
from ..bot.hooks.hook import posted
from ..bot.service.harness import RELAY_TOKEN, ROOT
from .test_inspector import DB, INSPECTORS, MODULES

ANSWER = {"content": [{"type": "text", "text": '{"answers":[{"id":"db","selected":["SQLite"]}]}'}]}


@pytest.fixture
def inspector() -> list[str]:
    """The Inspector 2.12 CLI on its Node 22; skip without it, fail under CI=true."""
    command = INSPECTORS["2.12"]
    if all(part.exists() for part in command if isinstance(part, Path)):
        return [str(part) for part in command]
    reason = f"the MCP Inspector 2.x is not installed under {MODULES}: run `npm ci --prefix tests/clients`"
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI must run the real-client tests: {reason}")
    pytest.skip(reason)


def tapped_server(tmp_path: Path) -> tuple[Path, Path]:
    """A script starting `python -m bot mcp` behind the JSON-RPC tap (the Inspector takes a
    bare command: it would read the tap's own `--` as its own), and the tap's log."""
    log, script = tmp_path / "jsonrpc.log", tmp_path / "server.sh"
    script.write_text(
        "#!/bin/sh\n"
        f"exec {sys.executable} -m tests.clients.jsonrpc_tap {log} -- {sys.executable} -m bot mcp\n"
    )
    script.chmod(0o755)
    return script, log


async def inspector_run(
    inspector: list[str], server: Server, target: Path | str, *method: str
) -> asyncio.subprocess.Process:
    """The Inspector CLI, modern era, JSON out, calling `method` on the stdio server `target`."""
    env = {
        "PYTHONPATH": str(ROOT),
        "SLACK_QUESTIONS_RELAY_URL": server.url,
        "SLACK_QUESTIONS_RELAY_TOKEN": RELAY_TOKEN,
    }
    program, *flags = inspector
    return await asyncio.create_subprocess_exec(
        program,
        *flags,
        "--protocol-era",
        "modern",
        "--format",
        "json",
        *(arg for key, value in env.items() for arg in ("-e", f"{key}={value}")),
        "--method",
        *method,
        str(target),
        cwd=ROOT,
        env={"PATH": os.environ.get("PATH", "")},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


async def ask_call(
    inspector: list[str], server: Server, target: Path | str
) -> asyncio.subprocess.Process:
    """The Inspector calling `ask_user_question` with the database question."""
    return await inspector_run(
        inspector,
        server,
        target,
        "tools/call",
        "--tool-name",
        "ask_user_question",
        "--tool-args-json",
        json.dumps({"questions": DB}),
    )


def sent(log: Path) -> list[tuple[str, Any]]:
    """Every JSON-RPC message the tap saw: ('>' from the Inspector, '<' from our server)."""
    return [(line[0], json.loads(line[2:])) for line in log.read_text().splitlines()]


async def finished(proc: asyncio.subprocess.Process) -> Any:
    """Its JSON output, once it exited 0."""
    out, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 0, err.decode()[-2000:]
    return json.loads(out)


async def test_the_inspector_gets_a_task_and_polls_it_to_the_answer_a_person_gives(
    inspector: list[str], server: Server, emu: SlackEmulator, tmp_path: Path
) -> None:
    script, log = tapped_server(tmp_path)
    proc = await ask_call(inspector, server, script)
    await emu.person(ALICE).click(await posted(emu), text="SQLite")
    out = await finished(proc)
    [ask] = await server.provider.asks.recent()
    assert out["result"]["content"] == ANSWER["content"]
    messages = sent(log)
    [called] = [m for way, m in messages if way == "<" and m.get("id") == "inspector-ext-1"]
    assert called["result"]["resultType"] == "task"
    assert called["result"]["taskId"] == ask.id
    polls = [m for way, m in messages if way == ">" and m.get("method") == "tasks/get"]
    assert polls
    assert {m["params"]["taskId"] for m in polls} == {ask.id}
