"""A settle's commit on the event loop's connection beside the same commit through the
store's worker thread, interleaved, on one SQLite file (WAL, `synchronous=NORMAL`).

What the inline commit saves is the hop: a wake-up of the worker and two GIL hand-offs. The
loop here is otherwise idle, so this is the least a hop costs; on a busy service (the loop
running other work while the worker wants the GIL) it costs more.

    python -m bench.sqlite_inline [--rounds 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from bot.outcomes import Verdict
from bot.store import AskEvent, AskRecord, AskState, EventKind
from bot.store.sqlite import SqliteStore
from provider import AskUserQuestionAnswer, AskUserQuestionAnswerItem, AskUserQuestionItem

from .stats import summarise

QUESTION = AskUserQuestionItem(id="go", question="Go ahead?")
ANSWER = AskUserQuestionAnswer(answers=[AskUserQuestionAnswerItem(id="go", custom="yes")])


def pending(n: int) -> AskRecord:
    return AskRecord(id=f"a{n}", questions=[QUESTION], created_at=float(n))


def answered(record: AskRecord) -> tuple[AskRecord, AskEvent]:
    done = record.model_copy(
        update={"state": AskState.ANSWERED, "verdict": Verdict.ANSWERED, "answer": ANSWER}
    )
    return done, AskEvent(ask_id=record.id, at=1.0, kind=EventKind.ANSWERED, actor="U1")


async def main(rounds: int) -> None:
    """Settle `rounds` asks each way, alternating, and print both."""
    inline: list[float] = []
    hop: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        async with SqliteStore(Path(tmp) / "asks.db") as store:
            for n in range(2 * rounds):
                await store.add(pending(n))
            for n in range(2 * rounds):
                record, event = answered(pending(n))
                started = time.perf_counter()
                if n % 2:
                    await store.settle(record, event)
                    inline.append(time.perf_counter() - started)
                else:
                    saved = store._db.inline
                    store._db.inline = None  # the worker's path, as when the file is busy
                    try:
                        await store.settle(record, event)
                    finally:
                        store._db.inline = saved
                    hop.append(time.perf_counter() - started)
    print(f"settle committed on the loop:         {summarise(inline)}")
    print(f"settle committed through the worker:  {summarise(hop)}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=2000)
    asyncio.run(main(parser.parse_args().rounds))
