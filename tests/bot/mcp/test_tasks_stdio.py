"""MCP Tasks across processes: a task made through one `python -m bot mcp` on stdio is answered
by another started after the first is gone (the task is the service's ask, not the process's)."""

from __future__ import annotations

import sys
from pathlib import Path

from mcp import StdioServerParameters
from mcp.client.stdio import stdio_client

from bot.service.server import Server
from provider import RelayProvider
from provider.tool import NAME
from slack_emulator import SlackEmulator

from ..harness import ALICE
from ..service.harness import RELAY_TOKEN, ROOT
from ..service.test_relay import DB, posted
from .tasks_client import CreatedTask, call_as_task, get_task, tasks_client
from .test_stdio import relay_env


def mcp_process(server: Server) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "bot", "mcp"], env=relay_env(server), cwd=ROOT
    )


async def test_a_fresh_mcp_process_reports_the_answer_to_a_task_another_process_made(
    server: Server, emu: SlackEmulator, tmp_path: Path
) -> None:
    with (tmp_path / "first.log").open("w") as errlog:
        async with tasks_client(stdio_client(mcp_process(server), errlog=errlog)) as first:
            created = await call_as_task(first, NAME, {"questions": [DB]})
    # The first process has exited with its connection; the person answers after that.
    assert isinstance(created, CreatedTask)
    await emu.person(ALICE).click(await posted(emu), text="SQLite")
    async with RelayProvider(server.url, RELAY_TOKEN) as relay:
        await relay.poll(created.task_id, wait_seconds=10)  # settled in the service
    with (tmp_path / "second.log").open("w") as errlog:
        async with tasks_client(stdio_client(mcp_process(server), errlog=errlog)) as second:
            done = await get_task(second, created.task_id)
    assert (done.task_id, done.status, done.status_message) == (
        created.task_id,
        "completed",
        "answered",
    )
    assert done.result is not None
    assert done.result["structuredContent"] == {"answers": [{"id": "db", "selected": ["SQLite"]}]}
