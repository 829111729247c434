"""`python -m bot` with no Slack credentials: emulator, service, demo agent and terminal."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


async def read_until(stream: asyncio.StreamReader, marker: str, seen: list[str]) -> str:
    """Read output until a line holding `marker`; every line read is kept in `seen`."""
    while True:
        line = (await asyncio.wait_for(stream.readline(), 30)).decode()
        if not line:
            raise AssertionError(f"output ended before {marker!r}:\n{''.join(seen)}")
        seen.append(line)
        if marker in line:
            return line


async def test_offline_mode_runs_the_demo_and_the_person_answers_at_the_terminal() -> None:
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "--port",
        "0",
        cwd=ROOT,
        env=env,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    seen: list[str] = []
    try:
        await read_until(proc.stdout, "Offline: a local Slack emulator stands in for Slack", seen)
        await read_until(proc.stdout, "[1] Postgres (Recommended)  [2] SQLite  [3] DynamoDB", seen)
        proc.stdin.write(b"2\n")
        await proc.stdin.drain()
        got = await read_until(proc.stdout, "[demo agent] got", seen)
        answer = json.loads(got.split("[demo agent] got ", 1)[1])
        assert answer == {"answers": [{"id": "database", "selected": ["SQLite"]}]}
        await read_until(proc.stdout, "Answered by @you", seen)
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(proc.wait(), 30)
    assert code == 0, "".join(seen)
