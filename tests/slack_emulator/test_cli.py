"""`python -m slack_emulator` serves a seeded workspace on a chosen port and stops on SIGTERM."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys
from pathlib import Path

from slack_sdk.web.async_client import AsyncWebClient

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_the_cli_serves_on_the_chosen_port_and_exits_cleanly_on_sigterm() -> None:
    port = free_port()
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "slack_emulator",
        "--port",
        str(port),
        "--request-url",
        "http://127.0.0.1:9/slack/events",
        cwd=ROOT,
        env={k: v for k, v in os.environ.items() if "proxy" not in k.lower()},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        assert process.stdout is not None
        async with asyncio.timeout(20):
            first_line = (await process.stdout.readline()).decode()
        assert first_line == f"Slack emulator Web API: http://127.0.0.1:{port}/api/\n"
        client = AsyncWebClient(token="xoxb-emulator", base_url=f"http://127.0.0.1:{port}/api/")
        assert (await client.auth_test())["ok"] is True
        members = await client.conversations_members(channel="C0AGENTQST")
        assert len(members["members"]) == 4
        process.send_signal(signal.SIGTERM)
        async with asyncio.timeout(10):
            rest, errors = await process.communicate()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert process.returncode == 0
    assert rest.decode().endswith("Slack emulator stopped\n")
    assert errors.decode() == ""
