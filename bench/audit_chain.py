"""The cost of chaining the decision log on the click path: one settle on SQLite (the event
loop's inline commit), with its audit row chained, against the same settle with chaining
turned off, interleaved (A, B, A, B …) so both see the same machine.

    .venv/bin/python -m bench.audit_chain [ROUNDS]
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

import bot.store.sqlite as sqlite_module
from bench.stats import summarise
from bot.outcomes import Verdict
from bot.store import AskEvent, AskRecord, AskState, EventKind
from bot.store.sqlite import SqliteStore
from provider import AskUserQuestionItem

NAME = AskUserQuestionItem(id="name", question="Name the service")


async def one_settle(store: SqliteStore, ask_id: str) -> float:
    record = AskRecord(id=ask_id, questions=[NAME], created_at=time.time())
    await store.add(record)
    ended = record.evolve(state=AskState.ANSWERED, verdict=Verdict.ANSWERED, decided_by="U1")
    event = AskEvent(ask_id=ask_id, at=time.time(), kind=EventKind.ANSWERED, actor="U1")
    start = time.perf_counter()
    assert await store.settle(ended, event)
    return time.perf_counter() - start


async def run(rounds: int) -> None:
    chain = sqlite_module._chain  # the B side runs with it turned off
    timed: dict[str, list[float]] = {"chained": [], "unchained": []}
    with tempfile.TemporaryDirectory() as where:
        async with SqliteStore(Path(where) / "asks.db") as store:
            for n in range(rounds):
                for side in ("chained", "unchained"):
                    sqlite_module._chain = chain if side == "chained" else _no_chain  # type: ignore[assignment]
                    timed[side].append(await one_settle(store, f"{side}-{n}"))
            sqlite_module._chain = chain
    for side, seconds in timed.items():
        print(side, summarise(seconds))


def _no_chain(*_: object) -> None:
    return None


if __name__ == "__main__":
    asyncio.run(run(int(sys.argv[1]) if len(sys.argv) > 1 else 2000))
