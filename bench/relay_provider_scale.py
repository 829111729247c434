"""Many waits through one `RelayProvider` (issue 28): N concurrent asks from one agent process
against `python -m bot` (its own process, SQLite) on the emulator. It reports how long until
every ask was posted, the most waits the relay held at once (its /metrics gauge), and
how long until every ask had its answer once a person clicked them all (50 clicks at a time).

    python -m bench.relay_provider_scale [--asks 10000]
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import aiohttp

from provider import AskUserQuestionRequest, RelayProvider
from slack_emulator import SlackEmulator

from .click_latency import free_port, held
from .latency_app import CHANNEL, RELAY_TOKEN, SECRET, TOKEN
from .pending_memory import child_env, enough_files
from .relay_latency import PERSON

CLICKS_AT_ONCE = 50


@dataclass(frozen=True)
class Scale:
    """What one run measured."""

    asks: int
    posted_s: float
    most_held: int
    answered_s: float
    answered: int

    def __str__(self) -> str:
        return (
            f"{self.asks} concurrent asks through one RelayProvider: all posted in "
            f"{self.posted_s:.1f} s; the relay held {self.most_held} waits at once; "
            f"{self.answered} of {self.asks} answered, {self.answered_s:.1f} s after the "
            "first click"
        )


def question(n: int) -> AskUserQuestionRequest:
    """Ask number `n`: its own question id, so each answer can be told from the others."""
    return AskUserQuestionRequest.model_validate(
        {
            "questions": [
                {"id": f"q{n}", "question": f"Ship build {n}?", "options": [{"label": "Ship"}]}
            ]
        }
    )


def ask_posts(emu: SlackEmulator) -> list[str]:
    """The ts of each ask message posted so far."""
    return [str(c.response["ts"]) for c in emu.calls_to("chat.postMessage") if c.ok]


async def measure(count: int) -> Scale:
    """Start the service, ask `count` questions at once through one provider, answer all."""
    enough_files(count * 2)
    emu = SlackEmulator(signing_secret=SECRET, bot_token=TOKEN)
    emu.workspace.add_user(PERSON, name="bencher")
    emu.workspace.add_channel(CHANNEL, name="bench", members=[PERSON, emu.bot_user_id])
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        async with emu:
            env = child_env(
                Path(tmp) / "asks.db", emu, port, SLACK_QUESTIONS_MAX_WAITS=str(count * 2)
            )
            emu.request_url = f"{url}/slack/events"
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot", env=env, stdout=asyncio.subprocess.PIPE
            )
            try:
                assert proc.stdout is not None
                await proc.stdout.readline()  # "listening on …"
                async with (
                    RelayProvider(url, RELAY_TOKEN, wait_seconds=55) as provider,
                    aiohttp.ClientSession() as http,
                ):
                    started = time.perf_counter()
                    asking = [asyncio.create_task(provider.ask(question(n))) for n in range(count)]
                    await emu.wait_for(
                        lambda: len(ask_posts(emu)) >= count, within=600, what="posts"
                    )
                    posted_s = time.perf_counter() - started
                    most = 0
                    deadline = time.perf_counter() + 30
                    while most < count and time.perf_counter() < deadline:
                        most = max(most, await held(http, url))
                        await asyncio.sleep(0.2)
                    person = emu.person(PERSON)
                    messages = [emu.message(CHANNEL, ts) for ts in ask_posts(emu)]
                    clicked = time.perf_counter()
                    for start in range(0, count, CLICKS_AT_ONCE):
                        batch = messages[start : start + CLICKS_AT_ONCE]
                        await asyncio.gather(*(person.click(m, text="Ship") for m in batch))
                    answers = await asyncio.gather(*asking, return_exceptions=True)
                    answered_s = time.perf_counter() - clicked
            finally:
                proc.send_signal(signal.SIGTERM)
                await proc.wait()
    answered = sum(
        1
        for n, a in enumerate(answers)
        if not isinstance(a, BaseException)
        and a.to_wire() == {"answers": [{"id": f"q{n}", "selected": ["Ship"]}]}
    )
    return Scale(count, posted_s, most, answered_s, answered)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--asks", type=int, default=10_000)
    print(asyncio.run(measure(parser.parse_args().asks)))
