"""Resident memory of the service (`python -m bot`, its own process) holding 10,000 pending asks.

The emulator runs in this process; the service runs as a child process, so its RSS is its
own. Asks arrive through the relay (concurrently), are stored in SQLite and posted to the
emulator; nobody answers them.

    python -m bench.pending_memory [--asks 10000]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import socket
import sys
import tempfile
from pathlib import Path

import aiohttp

from slack_emulator import SlackEmulator

SECRET = "0123456789abcdef0123456789abcdef"
TOKEN = "xoxb-bench"
RELAY_TOKEN = "bench-relay-token-0001"
CHANNEL = "C0BENCH000"
ROOT = Path(__file__).resolve().parents[1]


def rss_mib(pid: int) -> float:
    """Resident set size of `pid`, from /proc."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def main(count: int) -> None:
    """Start the service, fill it with `count` pending asks, report its RSS."""
    emu = SlackEmulator(signing_secret=SECRET, bot_token=TOKEN)
    emu.workspace.add_channel(CHANNEL, name="bench", members=[emu.bot_user_id])
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        async with emu:
            env = {
                "PATH": os.environ.get("PATH", ""),
                "PYTHONPATH": str(ROOT),
                "SLACK_BOT_TOKEN": TOKEN,
                "SLACK_SIGNING_SECRET": SECRET,
                "SLACK_API_URL": emu.api_url,
                "SLACK_QUESTIONS_CHANNEL": CHANNEL,
                "SLACK_QUESTIONS_DB": str(Path(tmp) / "asks.db"),
                "SLACK_QUESTIONS_RELAY_TOKEN": RELAY_TOKEN,
                "PORT": str(port),
                "LOG_LEVEL": "WARNING",
            }
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot", env=env, stdout=asyncio.subprocess.PIPE
            )
            assert proc.stdout is not None
            await proc.stdout.readline()  # "listening on …"
            idle = rss_mib(proc.pid)
            url = f"http://127.0.0.1:{port}/v1/asks"
            headers = {"Authorization": f"Bearer {RELAY_TOKEN}"}
            gate = asyncio.Semaphore(16)

            async def ask(session: aiohttp.ClientSession, n: int) -> None:
                body = {
                    "questions": [
                        {
                            "id": f"q{n}",
                            "question": f"Shall agent task {n} go ahead?",
                            "options": [{"label": "Yes"}, {"label": "No"}],
                        }
                    ]
                }
                async with gate, session.post(url, json=body, headers=headers) as response:
                    assert response.status == 201, await response.text()

            async with aiohttp.ClientSession() as session:
                await asyncio.gather(*(ask(session, n) for n in range(count)))
            await emu.wait_for(
                lambda: len(emu.calls_to("chat.postMessage")) >= count, within=600, what="posts"
            )
            loaded = rss_mib(proc.pid)
            proc.send_signal(signal.SIGTERM)
            await proc.wait()
            assert emu.violations == []
    print(f"service RSS idle: {idle:.1f} MiB")
    print(f"service RSS with {count} pending asks: {loaded:.1f} MiB")
    print(f"per pending ask: {(loaded - idle) * 1024 / count:.2f} KiB")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--asks", type=int, default=10_000)
    asyncio.run(main(parser.parse_args().asks))
