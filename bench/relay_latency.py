"""Ask-to-answer through the relay (RelayProvider → HTTP → service) beside the in-process provider.

A person (the emulator) clicks as soon as each question is posted, so the figures are the
machinery's own time: store, post, click, settle, and for the relay the HTTP hops and the
long poll. Both run on the same service (SQLite store) in one process, over loopback.

    python -m bench.relay_latency [--rounds 200]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import tempfile
import time
from functools import partial
from pathlib import Path

from bot.config import load_config, parse_args
from bot.service.server import Server
from provider import (
    AskUserQuestionRequest,
    RelayProvider,
    UserQuestionProvider,
    UserQuestionService,
)
from slack_emulator import SlackEmulator

from .stats import summarise

SECRET = "0123456789abcdef0123456789abcdef"
TOKEN = "xoxb-bench"
RELAY_TOKEN = "bench-relay-token-0001"
CHANNEL = "C0BENCH000"
PERSON = "U0BENCHER1"
REQUEST = AskUserQuestionRequest.model_validate(
    {
        "questions": [
            {"id": "go", "question": "Go ahead?", "options": [{"label": "Yes"}, {"label": "No"}]}
        ]
    }
)


def posts(emu: SlackEmulator) -> int:
    """How many chat.postMessage calls the emulator has seen."""
    return len(emu.calls_to("chat.postMessage"))


def posted_more(emu: SlackEmulator, stop: asyncio.Event, seen: int) -> bool:
    """Whether to look again: stopping, or more posts than `seen`."""
    return stop.is_set() or posts(emu) > seen


async def clicker(emu: SlackEmulator, stop: asyncio.Event) -> None:
    """Click "Yes" on every question the moment it is posted."""
    person = emu.person(PERSON)
    seen = 0
    while not stop.is_set():
        await emu.wait_for(partial(posted_more, emu, stop, seen), within=60)
        calls = emu.calls_to("chat.postMessage")
        for call in calls[seen:]:
            if (call.params.get("metadata") or {}).get("event_type") == "slack_questions_ask":
                await person.click(emu.message(CHANNEL, str(call.response["ts"])), text="Yes")
        seen = len(calls)


async def once(service: UserQuestionService) -> float:
    """One ask to answer, in seconds."""
    start = time.perf_counter()
    await service.ask(REQUEST)
    return time.perf_counter() - start


def serving(provider: UserQuestionProvider) -> UserQuestionService:
    service = UserQuestionService()
    service.register_provider(provider)
    return service


async def interleaved(
    direct: UserQuestionService, relay: UserQuestionService, rounds: int
) -> tuple[list[float], list[float]]:
    """Alternate the two paths round by round, so the machine's noise falls on both."""
    mine: list[float] = []
    relayed: list[float] = []
    for _ in range(rounds):
        mine.append(await once(direct))
        relayed.append(await once(relay))
    return mine, relayed


def bench_emulator() -> SlackEmulator:
    """The emulated workspace every service bench runs on: one person, one channel."""
    emu = SlackEmulator(signing_secret=SECRET, bot_token=TOKEN)
    emu.workspace.add_user(PERSON, name="bencher")
    emu.workspace.add_channel(CHANNEL, name="bench", members=[PERSON, emu.bot_user_id])
    return emu


def service_env(db: Path) -> dict[str, str]:
    """The environment `python -m bot` is configured from in a bench (SQLite at `db`)."""
    return {
        "SLACK_BOT_TOKEN": TOKEN,
        "SLACK_SIGNING_SECRET": SECRET,
        "SLACK_QUESTIONS_CHANNEL": CHANNEL,
        "SLACK_QUESTIONS_DB": str(db),
        "SLACK_QUESTIONS_RELAY_TOKEN": RELAY_TOKEN,
        "SLACK_QUESTIONS_RESPONDERS": "*",
        "PORT": "0",
    }


async def main(rounds: int) -> None:
    """Measure both paths on one service, warm-up first, and print the overhead."""
    emu = bench_emulator()
    with tempfile.TemporaryDirectory() as tmp:
        env = service_env(Path(tmp) / "asks.db")
        async with emu:
            env["SLACK_API_URL"] = emu.api_url
            server = await Server.start(load_config(env, parse_args([])))
            emu.request_url = f"{server.url}/slack/events"
            stop = asyncio.Event()
            clicking = asyncio.create_task(clicker(emu, stop))
            try:
                async with RelayProvider(server.url, RELAY_TOKEN) as relay_provider:
                    pair = serving(server.provider), serving(relay_provider)
                    await interleaved(*pair, 20)  # warm-up
                    mine, through_relay = await interleaved(*pair, rounds)
                    direct, relayed = summarise(mine), summarise(through_relay)
            finally:
                stop.set()
                # The clicker waits for the next post; there is none: stop it now, not in 60 s.
                clicking.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await clicking
                await server.close()
            assert emu.violations == [], emu.violations
    print(f"{rounds} asks each, SQLite store, emulator and service in one process, loopback HTTP")
    print(f"in-process provider: {direct}")
    print(f"through the relay:   {relayed}")
    print(
        f"relay overhead: median +{relayed.median_ms - direct.median_ms:.2f} ms, "
        f"p95 +{relayed.p95_ms - direct.p95_ms:.2f} ms"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=200)
    asyncio.run(main(parser.parse_args().rounds))
