"""Ack round trip and click-to-answer latency: the full provider beside a bare Bolt app, fairly.

The emulators (Slack, and the person clicking) run here; each app runs in its own process, as
a real Slack app would, reached over loopback HTTP with Slack's signed requests. Fairness:
- rounds are interleaved (bare, provider, bare, provider…) so the machine's noise falls on both;
- both messages have the same shape: a section and an actions block of three buttons;
- the bare app's listener acks and resolves a future that a waiting coroutine awaits, and both
  apps stamp the time in that waiting coroutine;
- the provider is clicked only once it has finished handling its own post (saved as posted),
  and the next round starts only once it has finished its work after the answer;
- `--store sqlite` measures the SQLite store `python -m bot` runs; `memory` the memory store.

    python -m bench.provider_latency [--rounds 300] [--repeats 3] [--store sqlite|memory]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path

from slack_sdk.web.async_client import AsyncWebClient

from slack_emulator import SlackEmulator

from .latency_app import CHANNEL, SECRET, TOKEN
from .stats import Summary, summarise

PERSON = "U0BENCHER1"
WARM_UP = 20
ROOT = Path(__file__).resolve().parents[1]
# The shape of the provider's one-click question: a section, then three buttons.
MESSAGE: list[dict[str, object]] = [
    {"type": "section", "text": {"type": "mrkdwn", "text": "*Go ahead?*"}},
    {
        "type": "actions",
        "block_id": "go",
        "elements": [
            {"type": "button", "action_id": action, "text": {"type": "plain_text", "text": label}}
            for action, label in (("yes", "Yes"), ("no", "No"), ("other", "Other…"))
        ],
    },
]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class App:
    """One app process and the emulator it talks to."""

    kind: str
    emu: SlackEmulator
    proc: asyncio.subprocess.Process
    acks: list[float] = field(default_factory=list)
    answers: list[float] = field(default_factory=list)

    async def line(self) -> bytes:
        assert self.proc.stdout is not None
        return (await self.proc.stdout.readline()).strip()

    async def round(self, client: AsyncWebClient, keep: bool) -> None:
        """Post (bare) or await the provider's post, click "Yes", time the ack and answer."""
        if self.kind == "bare":
            response = await client.chat_postMessage(
                channel=CHANNEL, text="Go ahead?", blocks=MESSAGE
            )
            ts = str(response["ts"])
        else:
            assert await self.line() == b"posted"
            calls = self.emu.calls_to("chat.postMessage")
            ts = str(calls[-1].response["ts"])
        started = time.time()
        delivery = await self.emu.person(PERSON).click(self.emu.message(CHANNEL, ts), text="Yes")
        answered = json.loads(await self.line())["answered_at"]
        if self.kind == "provider":
            # Its decided message is shown after the answer: wait, so it costs no other round.
            assert await self.line() == b"idle"
        assert delivery.ack_seconds is not None
        if keep:
            self.acks.append(delivery.ack_seconds)
            self.answers.append(answered - started)


async def start_app(stack: AsyncExitStack, kind: str, rounds: int, db: str | None) -> App:
    emu = SlackEmulator(signing_secret=SECRET, bot_token=TOKEN)
    emu.workspace.add_user(PERSON, name="bencher")
    emu.workspace.add_channel(CHANNEL, name="bench", members=[PERSON, emu.bot_user_id])
    await stack.enter_async_context(emu)
    port = free_port()
    emu.request_url = f"http://127.0.0.1:{port}/slack/events"
    arguments = ["--api-url", emu.api_url, "--port", str(port), "--rounds", str(rounds)]
    if db is not None:
        arguments += ["--db", db]
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bench.latency_app",
        kind,
        *arguments,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "LOG_LEVEL": "WARNING"},
        stdout=asyncio.subprocess.PIPE,
    )
    app = App(kind, emu, proc)
    assert await app.line() == b"ready"
    return app


async def measure(rounds: int, store: str) -> tuple[App, App]:
    """One interleaved run: bare, provider, bare, provider…; warm-up rounds dropped."""
    total = rounds + WARM_UP
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "asks.db") if store == "sqlite" else None
        async with AsyncExitStack() as stack:
            bare = await start_app(stack, "bare", total, None)
            ours = await start_app(stack, "provider", total, db)
            client = AsyncWebClient(token=TOKEN, base_url=bare.emu.api_url)
            for n in range(total):
                for app in (bare, ours):
                    await app.round(client, keep=n >= WARM_UP)
            for app in (bare, ours):
                assert await app.line() == b"done"
                await app.proc.wait()
                assert app.emu.violations == [], app.emu.violations
    return bare, ours


def row(name: str, bare: Summary, full: Summary) -> str:
    return (
        f"{name:16} bare Bolt:  {bare}\n{'':16} provider:   {full}\n"
        f"{'':16} ratio (provider/bare): median {full.median_ms / bare.median_ms:.2f}x, "
        f"p95 {full.p95_ms / bare.p95_ms:.2f}x"
    )


async def main(rounds: int, repeats: int, store: str) -> None:
    """Measure both apps, interleaved, `repeats` times, and print each run's ratios."""
    print(
        f"{rounds} interleaved rounds (after {WARM_UP} warm-up) x {repeats} runs, "
        f"{store} store, each app in its own process, loopback HTTP"
    )
    for run in range(1, repeats + 1):
        bare, ours = await measure(rounds, store)
        print(f"run {run}")
        print(row("ack round trip", summarise(bare.acks), summarise(ours.acks)))
        print(row("click to answer", summarise(bare.answers), summarise(ours.answers)))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--store", choices=("sqlite", "memory"), default="sqlite")
    args = parser.parse_args()
    asyncio.run(main(args.rounds, args.repeats, args.store))
