"""What `SqliteFile` promises the SQLite store: WAL and a schema that migrates forward, one
worker thread (the click path's commits on the loop aside), clear errors when the file cannot
be used."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import stat
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from bot.outcomes import Verdict
from bot.store import (
    AskEvent,
    AskRecord,
    AskState,
    EventKind,
    InboxItem,
    InboxKind,
    ThreadRef,
)
from bot.store.sqlite import SqliteStore
from bot.store.sqlite_file import (
    CHECKPOINT_EVERY,
    MIGRATIONS,
    SCHEMA_VERSION,
    StoreError,
    migrate,
    owner_only,
)
from provider import AskUserQuestionAnswer, AskUserQuestionAnswerItem
from tests.bot.store.sqlite_files import ask, raw, scalar

# --- the file ------------------------------------------------------------------------------


async def test_the_file_is_in_wal_mode(store: SqliteStore, db: Path) -> None:
    assert scalar(db, "PRAGMA journal_mode") == "wal"


async def test_a_new_file_is_at_the_current_schema_version(store: SqliteStore, db: Path) -> None:
    assert scalar(db, "PRAGMA user_version") == SCHEMA_VERSION == len(MIGRATIONS)


async def test_a_later_migration_adds_a_column_and_keeps_the_asks(db: Path) -> None:
    async with SqliteStore(db) as store:
        await store.add(ask("a1"))
    with raw(db) as conn:
        migrate(conn, db, (*MIGRATIONS, ("ALTER TABLE asks ADD COLUMN note TEXT",)))
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 1
        assert conn.execute("SELECT id, note FROM asks").fetchall() == [("a1", None)]


async def test_a_version_1_file_gains_the_inbox_and_keeps_its_asks(db: Path) -> None:
    with raw(db) as conn:
        migrate(conn, db, MIGRATIONS[:1])
        conn.execute(
            "INSERT INTO asks (id, state, created_at, record) VALUES (?, ?, ?, ?)",
            ("a1", "pending", 1000.0, ask("a1").model_dump_json()),
        )
    async with SqliteStore(db) as store:
        assert await store.get("a1") == ask("a1")
        assert await store.inbox_pending() == []
    assert scalar(db, "PRAGMA user_version") == SCHEMA_VERSION


async def test_events_cannot_be_updated_or_deleted(store: SqliteStore, db: Path) -> None:
    await store.add(ask("a1"))
    with raw(db) as conn:
        with pytest.raises(sqlite3.IntegrityError, match="events are append-only"):
            conn.execute("UPDATE events SET detail = 'rewritten'")
        with pytest.raises(sqlite3.IntegrityError, match="events are append-only"):
            conn.execute("DELETE FROM events")
        assert conn.execute("SELECT kind, detail FROM events").fetchall() == [("created", "")]


# --- the worker thread and the loop's connection -------------------------------------------


async def test_stores_opened_at_once_on_a_new_file_all_start(tmp_path: Path) -> None:
    # The switch to WAL races between openers; one round seldom shows it, thirty do.
    for round_ in range(30):
        db = tmp_path / f"asks-{round_}.db"
        stores = await asyncio.gather(
            *(SqliteStore.open(db) for _ in range(6)), return_exceptions=True
        )
        opened = [store for store in stores if isinstance(store, SqliteStore)]
        for store in opened:
            await store.close()
        assert stores == opened
        assert scalar(db, "PRAGMA user_version") == SCHEMA_VERSION
        assert scalar(db, "PRAGMA journal_mode") == "wal"


Traced = list[tuple[int, str]]


@pytest.fixture
def traced(monkeypatch: pytest.MonkeyPatch) -> Traced:
    """(thread, statement) of every statement of every connection the store opens, and of
    their opening ("open") and closing ("close")."""
    seen: Traced = []

    class Watched(sqlite3.Connection):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            seen.append((threading.get_ident(), "open"))
            self.set_trace_callback(
                lambda statement: seen.append((threading.get_ident(), statement))
            )

        def close(self) -> None:
            seen.append((threading.get_ident(), "close"))
            super().close()

    connect = sqlite3.connect

    def watched_connect(database: str | Path, **kwargs: Any) -> sqlite3.Connection:
        return connect(database, factory=Watched, **kwargs)

    monkeypatch.setattr(sqlite3, "connect", watched_connect)
    return seen


async def test_every_sqlite_call_but_the_hot_paths_runs_on_one_worker_thread_not_the_loops(
    db: Path, traced: Traced
) -> None:
    async with SqliteStore(db) as seeded:
        await seeded.add(ask("a1"))
    traced.clear()
    store = await SqliteStore.open(db)
    await store.get("a1")
    await store.log(AskEvent(ask_id="a1", at=2.0, kind=EventKind.REFUSED))
    await store.pending()
    await store.recent()
    await store.events("a1")
    await store.set_thread("s", ThreadRef(channel="C1"))
    await store.close()
    threads = {thread for thread, _ in traced}
    assert len(traced) > 20
    assert len(threads) == 1
    assert threading.get_ident() not in threads


async def test_a_settle_and_an_inbox_row_commit_on_the_loop_without_a_hop_to_the_worker(
    db: Path, traced: Traced
) -> None:
    async with SqliteStore(db) as store:
        await store.add(ask("a1"))
        traced.clear()
        assert await store.settle(*answered("a1", "U_ALICE")) is True
        await store.inbox_add(inbox_item("i1"))
    on_loop = [statement for thread, statement in traced if thread == threading.get_ident()]
    # The settle: its event, then its audit row after the head (read, appended, moved).
    assert [s.split()[0] for s in on_loop] == [
        "BEGIN",
        "UPDATE",
        "INSERT",
        "SELECT",
        "INSERT",
        "INSERT",
        "COMMIT",
        "INSERT",
    ]
    assert scalar(db, "SELECT state FROM asks WHERE id = 'a1'") == "answered"
    assert scalar(db, "SELECT count(*) FROM inbox") == 1


async def test_creating_recording_a_post_and_saving_commit_on_the_loop(
    db: Path, traced: Traced
) -> None:
    async with SqliteStore(db) as store:
        traced.clear()
        await store.add(ask("a1"))
        posted = ask("a1", message_ts=["1.1"], version=1)
        assert await store.advance(posted, AskEvent(ask_id="a1", at=1.0, kind=EventKind.POSTED))
        await store.save(posted, AskEvent(ask_id="a1", at=2.0, kind=EventKind.SHOWN))
        on_loop = [statement for thread, statement in traced if thread == threading.get_ident()]
    assert [s.split()[0] for s in on_loop].count("COMMIT") == 3
    assert scalar(db, "SELECT json_extract(record, '$.message_ts[0]') FROM asks") == "1.1"
    assert scalar(db, "SELECT count(*) FROM events") == 3


async def test_a_sessions_thread_is_read_on_the_loop(db: Path, traced: Traced) -> None:
    async with SqliteStore(db) as store:
        await store.set_thread("s", ThreadRef(channel="C1", thread_ts="1.1"))
        traced.clear()
        assert await store.thread("s") == ThreadRef(channel="C1", thread_ts="1.1")
        on_loop = [statement for thread, statement in traced if thread == threading.get_ident()]
    assert [s.split()[0] for s in on_loop] == ["SELECT"]


async def test_the_worker_checkpoints_what_the_loops_connection_commits(
    db: Path, traced: Traced
) -> None:
    async with SqliteStore(db) as store:
        for n in range(CHECKPOINT_EVERY - 1):
            await store.add(ask(f"a{n}"))
        await store.get("a0")  # the worker has run every job given before this one
        assert not [s for _, s in traced if "wal_checkpoint" in s]
        await store.add(ask("last"))
        await store.get("a0")
    checkpoints = [(thread, s) for thread, s in traced if "wal_checkpoint" in s]
    assert len(checkpoints) == 1
    assert checkpoints[0][0] != threading.get_ident()


async def test_a_settle_waits_on_the_worker_when_another_writer_holds_the_file(
    db: Path, traced: Traced
) -> None:
    async with SqliteStore(db) as store:
        await store.add(ask("a1"))
        with raw(db) as other:
            other.execute("BEGIN IMMEDIATE")  # another process mid-write
            traced.clear()
            settling = asyncio.ensure_future(store.settle(*answered("a1", "U_ALICE")))
            await asyncio.sleep(0)  # it tries the loop's connection, finds the file busy
            assert not settling.done()
            other.execute("COMMIT")
        assert await settling is True
    updates = {thread for thread, statement in traced if statement.startswith("UPDATE")}
    assert updates
    assert threading.get_ident() not in updates
    assert scalar(db, "SELECT state FROM asks WHERE id = 'a1'") == "answered"


async def test_the_loops_connection_never_checkpoints_nor_waits_for_a_lock(
    store: SqliteStore,
) -> None:
    inline = store._db.inline
    assert inline is not None
    assert inline.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0
    assert inline.execute("PRAGMA busy_timeout").fetchone()[0] == 0


async def test_the_loops_connection_keeps_a_page_cache_of_256_kib(store: SqliteStore) -> None:
    inline = store._db.inline
    assert inline is not None
    assert inline.execute("PRAGMA cache_size").fetchone()[0] == -256


def answered(ask_id: str, who: str) -> tuple[AskRecord, AskEvent]:
    answer = AskUserQuestionAnswer(answers=[AskUserQuestionAnswerItem(id="name", custom=who)])
    record = ask(ask_id, state=AskState.ANSWERED, verdict=Verdict.ANSWERED, answer=answer)
    return record, AskEvent(ask_id=ask_id, at=1010.0, kind=EventKind.ANSWERED, actor=who)


def inbox_item(item_id: str) -> InboxItem:
    return InboxItem(id=item_id, received_at=1.0, kind=InboxKind.BLOCK_ACTIONS, body="payload={}")


# --- errors --------------------------------------------------------------------------------


@pytest.fixture
def not_a_database(tmp_path: Path) -> Path:
    path = tmp_path / "notes.txt"
    path.write_bytes(b"these are not the pages you are looking for\n" * 100)
    return path


async def test_a_file_that_is_not_a_database_gives_a_clear_error(not_a_database: Path) -> None:
    with pytest.raises(StoreError) as raised:
        await SqliteStore.open(not_a_database)
    assert str(raised.value) == (
        f"ask store {not_a_database}: cannot open it (file is not a database)"
    )
    assert raised.value.path == not_a_database
    assert isinstance(raised.value.__cause__, sqlite3.DatabaseError)


async def test_a_newer_schema_version_gives_a_clear_error_and_leaves_the_file_alone(
    db: Path,
) -> None:
    with raw(db) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError) as raised:
        await SqliteStore.open(db)
    assert str(raised.value) == (
        f"ask store {db}: its schema version {SCHEMA_VERSION + 1} is newer than this code "
        f"knows ({SCHEMA_VERSION}); "
        "run a newer slack-questions"
    )
    assert scalar(db, "SELECT count(*) FROM sqlite_schema") == 0


async def test_a_path_that_cannot_be_opened_gives_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "no-such-directory" / "asks.db"
    with pytest.raises(StoreError) as raised:
        await SqliteStore.open(path)
    assert str(raised.value) == f"ask store {path}: cannot open it (unable to open database file)"


async def test_a_closed_store_refuses_calls_with_a_clear_error(db: Path) -> None:
    store = await SqliteStore.open(db)
    await store.close()
    await store.close()  # closing twice is harmless
    with pytest.raises(StoreError) as raised:
        await store.get("a1")
    assert str(raised.value) == f"ask store {db}: the store is closed (or was never started)"


async def test_a_start_cancelled_while_connecting_leaves_nothing_open(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    closed = threading.Event()

    class Slow(sqlite3.Connection):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            time.sleep(0.2)  # on the worker thread: the loop cancels meanwhile

        def close(self) -> None:
            super().close()
            closed.set()

    connect = sqlite3.connect

    def slow_connect(database: str | Path, **kwargs: Any) -> sqlite3.Connection:
        return connect(database, factory=Slow, **kwargs)

    monkeypatch.setattr(sqlite3, "connect", slow_connect)
    store = SqliteStore(db)
    starting = asyncio.ensure_future(store.start())
    await asyncio.sleep(0.05)
    starting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await starting
    assert await asyncio.to_thread(closed.wait, 5.0)
    with pytest.raises(StoreError, match="the store is closed"):
        await store.get("a1")


async def test_an_in_memory_store_settles_on_its_one_connection() -> None:
    # A second connection to ":memory:" would be another, empty database.
    async with SqliteStore(":memory:") as store:
        await store.add(ask("a1"))
        assert await store.settle(*answered("a1", "U_ALICE")) is True
        assert (await store.get("a1")) == answered("a1", "U_ALICE")[0]


# --- who may read the file ------------------------------------------------------------------


@contextmanager
def umask(mask: int) -> Iterator[None]:
    previous = os.umask(mask)
    try:
        yield
    finally:
        os.umask(previous)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def with_suffix(db: Path, suffix: str) -> Path:
    return db.with_name(db.name + suffix)


async def test_a_new_file_and_its_wal_and_shm_are_readable_by_their_owner_only(db: Path) -> None:
    with umask(0o022):  # the usual umask, which would leave a plain new file 0644
        async with SqliteStore(db) as store:
            await store.add(ask("a1"))  # a write: -wal and -shm exist now
            modes = {
                p.name: mode(p) for p in (db, with_suffix(db, "-wal"), with_suffix(db, "-shm"))
            }
    assert modes == {"asks.db": 0o600, "asks.db-wal": 0o600, "asks.db-shm": 0o600}


async def test_an_existing_world_readable_file_is_made_owner_only_and_says_so(
    db: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with umask(0o022), raw(db) as conn:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("CREATE TABLE t (x)")  # leaves -wal and -shm behind, 0644 too
        for path in (db, with_suffix(db, "-wal"), with_suffix(db, "-shm")):
            path.chmod(0o644)
        async with SqliteStore(db):
            modes = {
                p.name: mode(p) for p in (db, with_suffix(db, "-wal"), with_suffix(db, "-shm"))
            }
    assert modes == {"asks.db": 0o600, "asks.db-wal": 0o600, "asks.db-shm": 0o600}
    assert [r.getMessage() for r in caplog.records if r.levelname == "WARNING"] == [
        f"ask store {db}: other users could read or write it (mode 0644); made it 0600",
        f"ask store {db}-wal: other users could read or write it (mode 0644); made it 0600",
        f"ask store {db}-shm: other users could read or write it (mode 0644); made it 0600",
    ]


def test_a_file_stricter_than_owner_only_is_left_as_the_operator_made_it(db: Path) -> None:
    db.touch()
    db.chmod(0o400)
    owner_only(db)
    assert mode(db) == 0o400


def test_a_group_readable_file_loses_only_the_bits_of_group_and_others(db: Path) -> None:
    db.touch()
    db.chmod(0o440)
    owner_only(db)
    assert mode(db) == 0o400
