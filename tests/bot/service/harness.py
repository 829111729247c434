"""The service (`python -m bot`) against the emulator: in-process, or as a real subprocess."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import aiohttp

from bot.config import load_config, parse_args
from bot.service.server import PRODUCT_TIMINGS, Server, Timings
from slack_emulator import SlackEmulator

from ..harness import ALICE, BOB, CAROL, CHANNEL, REVIEWERS

SECRET = "0123456789abcdef0123456789abcdef"
TOKEN = "xoxb-service-test"
APP_TOKEN = "xapp-service-test"
RELAY_TOKEN = "relay-token-for-tests-0001"
ROOT = Path(__file__).resolve().parents[3]


def service_emulator() -> SlackEmulator:
    """An emulator whose credentials pass the service's start-up checks."""
    emu = SlackEmulator(signing_secret=SECRET, bot_token=TOKEN, app_token=APP_TOKEN)
    workspace = emu.workspace
    for user, name in ((ALICE, "alice"), (BOB, "bob"), (CAROL, "carol")):
        workspace.add_user(user, name=name)
    workspace.add_channel(
        CHANNEL, name="agent-questions", members=[ALICE, BOB, CAROL, emu.bot_user_id]
    )
    workspace.add_usergroup(REVIEWERS, handle="reviewers", users=[ALICE, BOB])
    return emu


AUDIT_KEY: Final = "test-audit-key-" + "k" * 32


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def service_env(emu: SlackEmulator, db: Path, port: int, **extra: str) -> dict[str, str]:
    """Environment for the service: HTTP mode against `emu` (extra values override)."""
    env = {
        "SLACK_BOT_TOKEN": TOKEN,
        "SLACK_SIGNING_SECRET": SECRET,
        "SLACK_API_URL": emu.api_url,
        "SLACK_QUESTIONS_CHANNEL": CHANNEL,
        "SLACK_QUESTIONS_DB": str(db),
        "SLACK_QUESTIONS_RELAY_TOKEN": RELAY_TOKEN,
        "PYTHONFAULTHANDLER": "1",  # a hung stop shows its threads' stacks (`Process.stop`)
        # As an operator connected to Slack sets it (unset, the service warns: see test_audit).
        "SLACK_QUESTIONS_AUDIT_KEY": AUDIT_KEY,
        # Today's meaning, said on purpose: anyone in the channel may answer.
        "SLACK_QUESTIONS_RESPONDERS": "*",
        "PORT": str(port),
    }
    env.update(extra)
    return {k: v for k, v in env.items() if v}


@asynccontextmanager
async def in_process(
    emu: SlackEmulator, db: Path, *, timings: Timings = PRODUCT_TIMINGS, **extra: str
) -> AsyncIterator[Server]:
    """The service started in this process (for fast relay tests). `timings`: shortened by
    tests of a dropped socket or a hung readiness check."""
    config = load_config(service_env(emu, db, 0, **extra), parse_args([]))
    server = await Server.start(config, timings=timings)
    emu.request_url = f"{server.url}/slack/events"
    try:
        yield server
    finally:
        await server.close()


@dataclass
class Process:
    """`python -m bot` running as a child process (started again after a kill)."""

    env: Mapping[str, str]
    output: list[str] = field(default_factory=list)
    proc: asyncio.subprocess.Process | None = None
    _collector: asyncio.Task[None] | None = None

    @property
    def port(self) -> int:
        return int(self.env["PORT"])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> None:
        """Start it and wait until it says it listens."""
        self.proc = await spawn(self.env)
        await _until_listening(self)
        self._collector = asyncio.create_task(_collect(self))

    async def kill(self) -> None:
        """SIGKILL: no shutdown code runs."""
        assert self.proc is not None
        self.proc.kill()
        await self.proc.wait()
        await self._finish_collecting()

    async def stop(self) -> int:
        """SIGTERM, and the exit code of a graceful exit."""
        assert self.proc is not None
        if self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.send_signal(signal.SIGTERM)
        try:
            code = await asyncio.wait_for(self.proc.wait(), 20)
        except TimeoutError:
            # Where its shutdown hung, for the failure report: Python's own stack dump
            # (faulthandler, on SIGABRT) lands in the output collected below.
            self.proc.send_signal(signal.SIGABRT)
            try:
                code = await asyncio.wait_for(self.proc.wait(), 5)
            except TimeoutError:
                self.proc.kill()
                code = await self.proc.wait()
            await self._finish_collecting()
            print("the service did not stop within 20 s of SIGTERM:\n" + "".join(self.output))
            return code
        await self._finish_collecting()
        return code

    async def _finish_collecting(self) -> None:
        if self._collector is not None:
            await self._collector
            self._collector = None


async def spawn(env: Mapping[str, str], *args: str) -> asyncio.subprocess.Process:
    """Start `python -m bot` with exactly `env` (plus PATH and PYTHONPATH)."""
    child_env = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(ROOT),
        "PYTHONUNBUFFERED": "1",
        **env,
    }
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        *args,
        cwd=ROOT,
        env=child_env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )


@asynccontextmanager
async def subprocess_service(emu: SlackEmulator, env: Mapping[str, str]) -> AsyncIterator[Process]:
    """Run the service as a child process; SIGTERM it at the end."""
    process = Process(env)
    await process.start()
    emu.request_url = f"{process.url}/slack/events"
    try:
        yield process
    finally:
        await process.stop()


async def _until_listening(process: Process) -> None:
    assert process.proc is not None
    assert process.proc.stdout is not None
    while True:
        line = await asyncio.wait_for(process.proc.stdout.readline(), 20)
        if not line:
            raise AssertionError("the service exited before listening:\n" + "".join(process.output))
        text = line.decode()
        process.output.append(text)
        if "listening on" in text:
            return


async def _collect(process: Process) -> None:
    assert process.proc is not None
    assert process.proc.stdout is not None
    while line := await process.proc.stdout.readline():
        process.output.append(line.decode())


async def relay(
    session: aiohttp.ClientSession,
    method: str,
    url: str,
    *,
    token: str | None = RELAY_TOKEN,
    **kwargs: Any,
) -> tuple[int, Any]:
    """One relay call: (status, parsed JSON body)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with session.request(method, url, headers=headers, **kwargs) as response:
        return response.status, await response.json(content_type=None)
