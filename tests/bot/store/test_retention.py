"""Retention on every store (memory, SQLite, PostgreSQL): `purge` deletes settled asks past
the retention with everything that names them, `erase` one settled ask now; pending asks stay."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import psycopg
import pytest

from bot.outcomes import Verdict
from bot.store import (
    AskEvent,
    AskRecord,
    AskState,
    AskStore,
    EventKind,
    InboxItem,
    InboxKind,
    Lease,
    ThreadRef,
)
from bot.store.leases import LeaseKind, lease_name
from bot.store.postgres import PostgresStore
from bot.store.postgres_connect import Target
from bot.store.postgres_pool import MIGRATIONS as PG_MIGRATIONS
from bot.store.postgres_pool import migrate as pg_migrate
from bot.store.protocol import named_leases, thread_lease
from bot.store.sqlite import SqliteStore
from bot.store.sqlite_file import MIGRATIONS, migrate

from .sqlite_files import raw
from .test_contract import ask, store

__all__ = ["store"]  # the contract's fixture: every store, memory, SQLite and PostgreSQL

DAY = 86400.0
NOW = 1000 * DAY
CUTOFF = NOW - 90 * DAY


def settled(
    ask_id: str, *, created: float, decided: float | None, agent_id: str | None = None
) -> AskRecord:
    return ask(ask_id, at=created, agent_id=agent_id).evolve(
        state=AskState.ANSWERED, verdict=Verdict.ANSWERED, decided_by="U1", decided_at=decided
    )


async def add_settled(
    store: AskStore,
    ask_id: str,
    *,
    created: float,
    decided: float | None,
    agent_id: str | None = None,
    key: str | None = None,
) -> None:
    await store.add(ask(ask_id, at=created, key=key, agent_id=agent_id))
    record = settled(ask_id, created=created, decided=decided, agent_id=agent_id)
    record = record.evolve(idempotency_key=key)
    await store.settle(record, AskEvent(ask_id=ask_id, at=created, kind=EventKind.ANSWERED))


def inbox(item_id: str, at: float, body: str = "{}") -> InboxItem:
    return InboxItem(id=item_id, received_at=at, kind=InboxKind.BLOCK_ACTIONS, body=body)


async def test_a_purge_deletes_an_expired_asks_row_events_and_old_inbox_rows(
    store: AskStore,
) -> None:
    await add_settled(store, "old", created=CUTOFF - 2 * DAY, decided=CUTOFF - DAY)
    await store.inbox_add(inbox("i-old", CUTOFF - DAY))
    await store.inbox_add(inbox("i-new", CUTOFF + DAY))
    assert await store.purge(CUTOFF) == 1
    assert await store.get("old") is None
    assert await store.events("old") == []
    assert [item.id for item in await store.inbox_pending()] == ["i-new"]


async def test_a_purge_keeps_pending_asks_recent_decisions_and_asks_held_live(
    store: AskStore,
) -> None:
    await store.add(ask("pending", at=CUTOFF - 10 * DAY))
    # Created long ago, decided lately: retention counts from the decision.
    await add_settled(store, "recent", created=CUTOFF - 10 * DAY, decided=CUTOFF + 1)
    await add_settled(store, "held", created=CUTOFF - 2 * DAY, decided=CUTOFF - DAY)
    assert await store.purge(CUTOFF, keep={"held"}) == 0
    assert {r.id for r in await store.recent()} == {"pending", "recent", "held"}
    assert len(await store.events("recent")) == 2


async def test_a_settled_ask_with_no_decision_time_is_purged_by_its_creation(
    store: AskStore,
) -> None:
    await add_settled(store, "undated", created=CUTOFF - 1, decided=None)
    await add_settled(store, "young", created=CUTOFF + 1, decided=None)
    assert await store.purge(CUTOFF) == 1
    assert [r.id for r in await store.recent()] == ["young"]


async def test_a_purge_drops_the_thread_of_a_session_left_with_no_ask_and_keeps_others(
    store: AskStore,
) -> None:
    for session in ("gone", "busy", "routed"):
        await store.set_thread(session, ThreadRef(channel="C1", thread_ts=f"{session}.1"))
    await add_settled(store, "a1", created=1.0, decided=2.0, agent_id="gone")
    await add_settled(store, "a2", created=1.0, decided=2.0, agent_id="busy")
    await store.add(ask("a3", at=3.0, agent_id="busy"))
    assert await store.purge(CUTOFF) == 2
    assert await store.thread("gone") is None
    assert await store.thread("busy") == ThreadRef(channel="C1", thread_ts="busy.1")
    # Routed by its host before asking anything: nothing purged named it.
    assert await store.thread("routed") == ThreadRef(channel="C1", thread_ts="routed.1")


async def test_a_purge_drops_the_leases_named_for_the_asks_and_sessions_it_deletes(
    store: AskStore,
) -> None:
    await add_settled(store, "a1", created=1.0, decided=2.0, agent_id="s1")
    await store.claim_thread("s1", ThreadRef(channel="C1", thread_ts="1.1"))
    for name in (*named_leases("a1"), thread_lease("s1")):
        assert await store.lease(name, "dead#1", now=1.0, until=2.0) is not None
    await store.purge(CUTOFF)
    # A lease left behind would tell the next holder a crash may have left work half done.
    for name in (*named_leases("a1"), thread_lease("s1")):
        assert await store.lease(name, "next#1", now=3.0, until=4.0) == Lease()


async def test_the_purge_reaches_each_ask_by_the_lease_names_leases_gives_them() -> None:
    assert named_leases("a1") == (
        lease_name(LeaseKind.POST, "a1"),
        lease_name(LeaseKind.REMIND, "a1"),
    )
    assert thread_lease("s1") == lease_name(LeaseKind.THREAD, "s1")


async def test_erasing_a_settled_ask_deletes_its_rows_and_the_inbox_rows_naming_it(
    store: AskStore,
) -> None:
    await add_settled(store, "ab12", created=NOW, decided=NOW)
    await add_settled(store, "other", created=NOW, decided=NOW)
    await store.inbox_add(inbox("i1", NOW, body='payload={"value":"ab12/0"}'))
    await store.inbox_add(inbox("i2", NOW, body='payload={"value":"other/0"}'))
    assert await store.erase("ab12") is True
    assert await store.get("ab12") is None
    assert await store.events("ab12") == []
    assert [item.id for item in await store.inbox_pending()] == ["i2"]
    assert (await store.get("other")) is not None


async def test_erasing_a_pending_ask_is_refused_and_deletes_nothing(store: AskStore) -> None:
    await store.add(ask("p1", at=NOW))
    assert await store.erase("p1") is False
    assert await store.get("p1") == ask("p1", at=NOW)
    assert len(await store.events("p1")) == 1


async def test_erasing_an_unknown_ask_is_a_key_error(store: AskStore) -> None:
    with pytest.raises(KeyError):
        await store.erase("missing")


async def test_an_erased_asks_idempotency_key_makes_a_new_ask(store: AskStore) -> None:
    await add_settled(store, "k1", created=NOW, decided=NOW, key="same")
    await store.erase("k1")
    assert (await store.add(ask("k2", at=NOW, key="same")))[1] is True


# --- the event log stays append-only, and older files migrate -------------------------------


async def test_sqlite_events_still_refuse_a_lone_delete_or_update(tmp_path: Path) -> None:
    db = tmp_path / "asks.db"
    async with SqliteStore(db) as opened:
        await add_settled(opened, "a1", created=1.0, decided=2.0)
    with raw(db) as conn:
        with pytest.raises(sqlite3.IntegrityError, match="deleted only with their ask"):
            conn.execute("DELETE FROM events WHERE ask_id = 'a1'")
        with pytest.raises(sqlite3.IntegrityError, match="events are append-only"):
            conn.execute("UPDATE events SET detail = 'rewritten'")
        assert conn.execute("SELECT count(*) FROM events").fetchone()[0] == 2


async def test_a_sqlite_file_of_the_previous_schema_migrates_and_purges(tmp_path: Path) -> None:
    db = tmp_path / "asks.db"
    previous = len(MIGRATIONS) - 1
    with raw(db) as conn:
        migrate(conn, db, MIGRATIONS[:previous])
        conn.execute("PRAGMA foreign_keys = ON")
        record = settled("a1", created=1.0, decided=2.0)
        conn.execute(
            "INSERT INTO asks (id, state, created_at, record) VALUES (?, ?, ?, ?)",
            ("a1", "answered", 1.0, record.model_dump_json()),
        )
        conn.execute(
            "INSERT INTO events (ask_id, at, kind, detail) VALUES ('a1', 1.0, 'created', '')"
        )
    async with SqliteStore(db) as opened:
        assert await opened.purge(CUTOFF) == 1
        assert await opened.events("a1") == []
    with raw(db) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
        assert conn.execute("SELECT count(*) FROM events").fetchone()[0] == 0


async def test_postgres_events_still_refuse_a_lone_delete_update_or_truncate(
    postgres_url: str,
) -> None:
    async with PostgresStore(postgres_url) as opened:
        await add_settled(opened, "a1", created=1.0, decided=2.0)
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        for change, refusal in (
            ("DELETE FROM events", "deleted only with their ask"),
            ("UPDATE events SET detail = 'x'", "events are append-only"),
            ("TRUNCATE events", "events are append-only"),
        ):
            with pytest.raises(psycopg.errors.RaiseException, match=refusal):
                conn.execute(change.encode())
        assert conn.execute("SELECT count(*) FROM events").fetchone() == (2,)


async def test_a_postgres_database_of_the_previous_schema_migrates_and_purges(
    postgres_url: str,
) -> None:
    previous = len(PG_MIGRATIONS) - 1
    async with await psycopg.AsyncConnection.connect(postgres_url, autocommit=True) as conn:
        await pg_migrate(conn, Target(postgres_url), PG_MIGRATIONS[:previous])
        record = settled("a1", created=1.0, decided=2.0)
        await conn.execute(
            "INSERT INTO asks (id, state, created_at, record) VALUES ('a1', 'answered', 1.0, %s)",
            (record.model_dump_json(),),
        )
        await conn.execute(
            "INSERT INTO events (ask_id, at, kind, detail) VALUES ('a1', 1.0, 'created', '')"
        )
    async with PostgresStore(postgres_url) as opened:
        assert await opened.purge(CUTOFF) == 1
        assert await opened.events("a1") == []
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        assert conn.execute("SELECT max(version) FROM schema_migrations").fetchone() == (
            len(PG_MIGRATIONS),
        )
