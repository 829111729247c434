"""Ack round trip and click-to-answer latency: the full provider beside a bare Bolt handler.

The emulator (Slack, and the person clicking) runs here; each app runs in its own process,
as a real Slack app would, reached over loopback HTTP with Slack's signed requests. The bare
app has one listener that acks and resolves a future: the floor any Bolt app pays.

    python -m bench.provider_latency [--rounds 200]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import sys
import time
from pathlib import Path

from slack_sdk.web.async_client import AsyncWebClient

from slack_emulator import SlackEmulator

from .latency_app import CHANNEL, SECRET, TOKEN
from .stats import Summary, summarise

PERSON = "U0BENCHER1"
WARM_UP = 20
ROOT = Path(__file__).resolve().parents[1]
BUTTON = [
    {
        "type": "actions",
        "block_id": "go",
        "elements": [
            {"type": "button", "action_id": "yes", "text": {"type": "plain_text", "text": "Yes"}}
        ],
    }
]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def measure(kind: str, rounds: int) -> tuple[list[float], list[float]]:
    """(ack seconds, click-to-answer seconds) for one app kind, warm-up rounds dropped."""
    emu = SlackEmulator(signing_secret=SECRET, bot_token=TOKEN)
    emu.workspace.add_user(PERSON, name="bencher")
    emu.workspace.add_channel(CHANNEL, name="bench", members=[PERSON, emu.bot_user_id])
    total = rounds + WARM_UP
    acks: list[float] = []
    answers: list[float] = []
    async with emu:
        port = free_port()
        emu.request_url = f"http://127.0.0.1:{port}/slack/events"
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bench.latency_app",
            kind,
            "--api-url",
            emu.api_url,
            "--port",
            str(port),
            "--rounds",
            str(total),
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT), "LOG_LEVEL": "WARNING"},
            stdout=asyncio.subprocess.PIPE,
        )
        assert proc.stdout is not None
        assert (await proc.stdout.readline()).strip() == b"ready"
        client = AsyncWebClient(token=TOKEN, base_url=emu.api_url)
        person = emu.person(PERSON)
        for n in range(total):
            if kind == "bare":
                response = await client.chat_postMessage(channel=CHANNEL, text="Go?", blocks=BUTTON)
                ts = str(response["ts"])
            else:
                call = await emu.wait_for_call("chat.postMessage", count=n + 1, within=30)
                ts = str(call.response["ts"])
            started = time.time()
            delivery = await person.click(emu.message(CHANNEL, ts), text="Yes")
            answered = json.loads(await proc.stdout.readline())["answered_at"]
            assert delivery.ack_seconds is not None
            if n >= WARM_UP:
                acks.append(delivery.ack_seconds)
                answers.append(answered - started)
        assert (await proc.stdout.readline()).strip() == b"done"
        await proc.wait()
        assert emu.violations == [], emu.violations
    return acks, answers


def row(name: str, bare: Summary, full: Summary) -> str:
    return (
        f"{name:16} bare Bolt:  {bare}\n{'':16} provider:   {full}\n"
        f"{'':16} ratio (provider/bare): median {full.median_ms / bare.median_ms:.2f}x, "
        f"p95 {full.p95_ms / bare.p95_ms:.2f}x"
    )


async def main(rounds: int) -> None:
    """Measure both apps and print the figures side by side."""
    bare_acks, bare_answers = await measure("bare", rounds)
    full_acks, full_answers = await measure("provider", rounds)
    print(f"{rounds} rounds each (after {WARM_UP} warm-up), app in its own process, loopback HTTP")
    print(row("ack round trip", summarise(bare_acks), summarise(full_acks)))
    print(row("click to answer", summarise(bare_answers), summarise(full_answers)))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=200)
    asyncio.run(main(parser.parse_args().rounds))
