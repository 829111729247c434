"""Click → waiter woken, across replicas on PostgreSQL, beside the same click on one replica.

Two services (replicas A and B) share one PostgreSQL database. Each round an ask is opened on
A and a waiter on A waits for it (the registry in-process `ask()` and the relay's `GET ?wait=`
use). Then a person clicks, delivered either to A (one replica: A settles and hands the record
to its waiter) or to B (across replicas: B settles, PostgreSQL notifies A, A re-reads the row).
The time is from the click leaving the emulator to the waiter on A returning the answer.

A's periodic re-read is set to 60 s, so only the notification can wake the waiter in time:
the figures are the notification path's, not the safety net's.

    python -m bench.replica_latency [--rounds 200]

Uses `SLACK_QUESTIONS_TEST_PG` (a superuser URL) if set, else a throwaway PostgreSQL from the
machine's binaries (tests/postgres_server.py).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time

from bot.config import load_config, parse_args
from bot.service.server import Server
from slack_emulator import SlackEmulator
from tests.postgres_server import ThrowawayPostgres

from .relay_latency import CHANNEL, PERSON, RELAY_TOKEN, REQUEST, SECRET, TOKEN
from .stats import Summary, summarise


async def replica(emu: SlackEmulator, url: str, name: str) -> Server:
    """A service on the shared database, as `python -m bot` would run it."""
    env = {
        "SLACK_BOT_TOKEN": TOKEN,
        "SLACK_SIGNING_SECRET": SECRET,
        "SLACK_QUESTIONS_CHANNEL": CHANNEL,
        "SLACK_QUESTIONS_DB": url,
        "SLACK_QUESTIONS_RELAY_TOKEN": RELAY_TOKEN,
        "SLACK_QUESTIONS_REPLICA": name,
        "SLACK_QUESTIONS_RESPONDERS": "*",
        "SLACK_API_URL": emu.api_url,
        "PORT": "0",
    }
    return await Server.start(load_config(env, parse_args([])))


async def one_round(emu: SlackEmulator, a: Server, clicked_on: Server) -> float:
    """Open an ask on A, wait on A, click on `clicked_on`: click → A's waiter returns."""
    asks = a.provider.asks
    created, _ = await asks.create(REQUEST)
    record = await a.provider.posting.post(created.id)
    message = emu.message(CHANNEL, record.message_ts[0])
    woken_at = 0.0

    async def wait() -> None:
        nonlocal woken_at
        settled = await asks.wait(record.id)
        woken_at = time.perf_counter()
        assert settled.answer is not None

    waiting = asyncio.create_task(wait())
    await asyncio.sleep(0)  # the waiter registers in its first step, before its read
    assert asks.waiters.waiting() == 1
    await asyncio.sleep(0.005)  # and has read the row, still pending
    with emu.delivering_to(f"{clicked_on.url}/slack/events"):
        start = time.perf_counter()
        delivery = await emu.person(PERSON).click(message, text="Yes")
    assert delivery.acked
    await waiting
    return woken_at - start


async def measure(emu: SlackEmulator, a: Server, target: Server, rounds: int) -> Summary:
    """`rounds` rounds after ten warm-up rounds."""
    for _ in range(10):
        await one_round(emu, a, target)
    return summarise([await one_round(emu, a, target) for _ in range(rounds)])


async def main(rounds: int) -> None:
    """Measure one replica and across replicas, and print what the crossing adds."""
    given = os.environ.get("SLACK_QUESTIONS_TEST_PG")
    server = None if given else ThrowawayPostgres.start()
    url = given or (server.url if server else "")
    emu = SlackEmulator(signing_secret=SECRET, bot_token=TOKEN)
    emu.workspace.add_user(PERSON, name="bencher")
    emu.workspace.add_channel(CHANNEL, name="bench", members=[PERSON, emu.bot_user_id])
    try:
        async with emu:
            a = await replica(emu, url, "bench-a")
            b = await replica(emu, url, "bench-b")
            a.provider.asks.waiters.re_read_s = 60.0  # only a notification wakes in time
            try:
                single = await measure(emu, a, a, rounds)
                across = await measure(emu, a, b, rounds)
            finally:
                await b.close()
                await a.close()
            assert emu.violations == [], emu.violations
    finally:
        if server is not None:
            server.stop()
    print(
        f"{rounds} clicks each; two replicas and the emulator in one process, PostgreSQL on loopback"
    )
    print(f"click on A, A's waiter (one replica):     {single}")
    print(f"click on B, A's waiter (across replicas): {across}")
    print(
        f"crossing adds: median +{across.median_ms - single.median_ms:.2f} ms, "
        f"p95 +{across.p95_ms - single.p95_ms:.2f} ms"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=200)
    asyncio.run(main(parser.parse_args().rounds))
