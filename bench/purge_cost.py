"""What a retention purge costs: one `AskStore.purge` of N expired asks (each with its
`created` and `answered` events) beside N pending and N recent ones, on SQLite (and
PostgreSQL with `--postgres URL`, an empty database).

The purge is one transaction: on SQLite it holds the write lock for all of it, so a click
landing meanwhile waits for it (its settle falls back to the worker); on PostgreSQL it locks
only the rows it deletes. Hourly, a purge deletes about an hour's worth of settled asks.

    python -m bench.purge_cost [--asks 10000] [--postgres postgresql://…]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from bot.outcomes import Verdict
from bot.store import AskEvent, AskRecord, AskState, AskStore, EventKind
from bot.store.sqlite import SqliteStore
from provider import AskUserQuestionItem

NAME = AskUserQuestionItem(id="name", question="Name the service")
DAY = 86400.0
NOW = 1000 * DAY


async def fill(store: AskStore, count: int) -> None:
    """`count` expired, `count` pending and `count` recent settled asks."""
    for n in range(count):
        for prefix, at, settle in (("old", NOW - 100 * DAY, True), ("new", NOW, True)):
            record = AskRecord(id=f"{prefix}{n}", questions=[NAME], created_at=at)
            await store.add(record)
            if settle:
                ended = record.evolve(
                    state=AskState.ANSWERED, verdict=Verdict.ANSWERED, decided_at=at
                )
                await store.settle(
                    ended, AskEvent(ask_id=record.id, at=at, kind=EventKind.ANSWERED)
                )
        await store.add(AskRecord(id=f"pending{n}", questions=[NAME], created_at=NOW))


async def measure(store: AskStore, count: int) -> tuple[float, int]:
    """(purge seconds, asks purged)."""
    await fill(store, count)
    started = time.perf_counter()
    purged = await store.purge(NOW - 90 * DAY)
    return time.perf_counter() - started, purged


async def main(count: int, postgres: str | None) -> None:
    with tempfile.TemporaryDirectory() as workdir:
        async with SqliteStore(Path(workdir) / "asks.db") as sqlite:
            took, purged = await measure(sqlite, count)
        print(f"sqlite: purged {purged} of {3 * count} asks in {took * 1000:.0f} ms")
    if postgres is not None:
        from bot.store.postgres import PostgresStore

        async with PostgresStore(postgres) as pg:
            took, purged = await measure(pg, count)
        print(f"postgres: purged {purged} of {3 * count} asks in {took * 1000:.0f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--asks", type=int, default=10000, help="expired asks (as many others)")
    parser.add_argument("--postgres", help="an empty PostgreSQL database to measure on too")
    arguments = parser.parse_args()
    asyncio.run(main(arguments.asks, arguments.postgres))
