"""What only the SQLite store promises: restarts, crashes, processes sharing the file, its
refusals. How its calls reach the file is tested in test_sqlite_file.py."""

from __future__ import annotations

import asyncio
import signal
import sys
from pathlib import Path

import pytest

from bot.outcomes import Verdict
from bot.store import (
    AskEvent,
    AskRecord,
    AskState,
    EventKind,
    ThreadRef,
)
from bot.store.sqlite import SqliteStore
from provider import AskUserQuestionAnswer, AskUserQuestionAnswerItem, AskUserQuestionItem
from tests.bot.store.sqlite_files import ask, raw, scalar

REPO = Path(__file__).resolve().parents[3]


def wal_of(db: Path) -> Path:
    return db.with_name(f"{db.name}-wal")


# --- restarts and crashes ------------------------------------------------------------------


async def test_asks_events_and_threads_survive_close_and_reopen(db: Path) -> None:
    answered = ask(
        "a1",
        state=AskState.ANSWERED,
        verdict=Verdict.ANSWERED,
        answer=AskUserQuestionAnswer(answers=[AskUserQuestionAnswerItem(id="name", custom="x")]),
    )
    done = AskEvent(ask_id="a1", at=1010.0, kind=EventKind.ANSWERED, actor="U_ALICE")
    async with SqliteStore(db) as store:
        await store.add(ask("a1"))
        await store.add(ask("a2", at=1001.0, key="k2"))
        await store.save(answered, done)
        await store.set_thread("planner-7", ThreadRef(channel="C1", thread_ts="1.000100"))
    async with SqliteStore(db) as store:
        assert await store.get("a1") == answered
        assert await store.pending() == [ask("a2", at=1001.0, key="k2")]
        assert await store.events("a1") == [
            AskEvent(ask_id="a1", at=1000.0, kind=EventKind.CREATED),
            done,
        ]
        assert await store.thread("planner-7") == ThreadRef(channel="C1", thread_ts="1.000100")
        # The idempotency key is still known after the restart.
        assert await store.add(ask("a3", key="k2")) == (ask("a2", at=1001.0, key="k2"), False)


CHILD = """
import asyncio, os, signal, sqlite3, sys
from bot.store.sqlite import SqliteStore
from bot.store import (
    AskEvent,
    AskRecord,
    AskState,
    EventKind,
    InboxItem,
    InboxKind,
    ThreadRef,
)

async def main() -> None:
    store = await SqliteStore.open(sys.argv[1])
    for n in range(20):
        await store.add(AskRecord.model_validate(
            {"id": f"a{n}", "questions": [{"id": "q", "question": "Q?"}], "created_at": 1000.0 + n}
        ))
    first = await store.get("a0")
    await store.save(
        first.model_copy(update={"state": AskState.ANSWERED}),
        AskEvent(ask_id="a0", at=2000.0, kind=EventKind.ANSWERED, actor="U_ALICE"),
    )
    await store.set_thread("planner-7", ThreadRef(channel="C1", thread_ts="1.0"))
    # A write in flight when the process dies: begun, never committed.
    other = sqlite3.connect(sys.argv[1], isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    other.execute("INSERT INTO threads VALUES ('lost', 'C9', NULL)")
    os.kill(os.getpid(), signal.SIGKILL)

asyncio.run(main())
"""


async def test_committed_writes_survive_a_process_killed_with_sigkill(db: Path) -> None:
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-c", CHILD, str(db), cwd=REPO, stderr=asyncio.subprocess.PIPE
    )
    _, stderr = await child.communicate()
    assert (child.returncode, stderr) == (-signal.SIGKILL, b"")
    # Killed, not closed: the log was never checkpointed into the main file.
    assert wal_of(db).exists()
    async with SqliteStore(db) as store:
        assert [r.id for r in await store.pending()] == [f"a{n}" for n in range(1, 20)]
        assert await store.get("a0") == AskRecord(
            id="a0",
            questions=[AskUserQuestionItem(id="q", question="Q?")],
            created_at=1000.0,
            state=AskState.ANSWERED,
        )
        assert [e.kind for e in await store.events("a0")] == [
            EventKind.CREATED,
            EventKind.ANSWERED,
        ]
        assert await store.thread("planner-7") == ThreadRef(channel="C1", thread_ts="1.0")
        assert await store.thread("lost") is None


# --- processes sharing the file ------------------------------------------------------------


async def test_two_stores_adding_one_key_at_once_make_one_row(db: Path) -> None:
    async with SqliteStore(db) as one, SqliteStore(db) as two:
        results = await asyncio.gather(
            *(store.add(ask(f"a{n}", key="k")) for n, store in enumerate([one, two] * 10))
        )
    [(winner, _)] = [result for result in results if result[1]]
    assert [record for record, _ in results] == [winner] * 20
    assert scalar(db, "SELECT count(*) FROM asks") == 1
    assert scalar(db, "SELECT count(*) FROM events") == 1


# --- refusals ------------------------------------------------------------------------------


async def test_adding_a_second_ask_with_a_stored_id_is_refused(store: SqliteStore) -> None:
    await store.add(ask("a1"))
    with pytest.raises(ValueError, match="an ask with id 'a1' is already stored"):
        await store.add(ask("a1", at=2000.0))
    assert await store.get("a1") == ask("a1")
    assert [e.kind for e in await store.events("a1")] == [EventKind.CREATED]


async def test_logging_an_event_of_an_unknown_ask_raises_key_error(store: SqliteStore) -> None:
    with pytest.raises(KeyError, match="nobody"):
        await store.log(AskEvent(ask_id="nobody", at=1.0, kind=EventKind.REFUSED))
    assert await store.events("nobody") == []


async def test_saving_an_ask_with_another_asks_event_is_refused(store: SqliteStore) -> None:
    await store.add(ask("a1"))
    with pytest.raises(ValueError, match="event of ask 'a2' saved with ask 'a1'"):
        await store.save(
            ask("a1", state=AskState.ANSWERED),
            AskEvent(ask_id="a2", at=1.0, kind=EventKind.ANSWERED),
        )
    assert await store.get("a1") == ask("a1")


# --- volume --------------------------------------------------------------------------------


async def test_ten_thousand_adds_all_come_back_pending(store: SqliteStore) -> None:
    for n in range(10_000):
        await store.add(ask(f"a{n:05}", at=1000.0 + n, key=f"k{n}"))
    pending = await store.pending()
    assert len(pending) == 10_000
    assert [pending[0].id, pending[-1].id] == ["a00000", "a09999"]


async def test_an_event_log_written_before_withdrawals_were_named_still_reads(
    store: SqliteStore, db: Path
) -> None:
    await store.add(ask("a1"))
    with raw(db) as conn:
        conn.execute(
            "INSERT INTO events (ask_id, at, kind, actor, detail)"
            " VALUES ('a1', 2.0, 'aborted', NULL, '')"
        )
    kinds = [e.kind for e in await store.events("a1")]
    assert kinds == [EventKind.CREATED, EventKind.LEGACY_ABORTED]
