"""Claims in every store (in memory, SQLite, PostgreSQL): who holds a pending ask and since
when are saved with its progress and read back, and the durable stores keep the holder in a
column of its own, read from the record (the step MIGRATIONS appends)."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import psycopg
import pytest

from bot.store import AskEvent, AskRecord, AskStore, EventKind, MemoryStore
from bot.store.postgres import PostgresStore
from bot.store.sqlite import SqliteStore
from provider import AskUserQuestionItem

NAME = AskUserQuestionItem(id="name", question="Name the service")
ALICE = "U0ALICE001"


@pytest.fixture(params=["memory", "sqlite", "postgres"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[AskStore]:
    chosen: AskStore
    if request.param == "memory":
        chosen = MemoryStore()
    elif request.param == "sqlite":
        chosen = await SqliteStore.open(tmp_path / "asks.db")
    else:
        chosen = await PostgresStore.open(request.getfixturevalue("postgres_url"))
    try:
        yield chosen
    finally:
        await chosen.close()


async def claimed(store: AskStore) -> AskRecord:
    """Ask a1, stored and then claimed by alice at 1500 (one progress save)."""
    record, _ = await store.add(AskRecord(id="a1", questions=[NAME], created_at=1000.0))
    held = record.model_copy(update={"holder": ALICE, "claimed_at": 1500.0, "version": 1})
    event = AskEvent(ask_id="a1", at=1500.0, kind=EventKind.CLAIMED, actor=ALICE)
    assert await store.advance(held, event)
    return held


async def test_a_claim_saved_with_progress_reads_back_with_its_holder_and_time(
    store: AskStore,
) -> None:
    held = await claimed(store)
    stored = await store.get("a1")
    assert stored == held
    assert stored is not None
    assert (stored.holder, stored.claimed_at) == (ALICE, 1500.0)
    assert [e.kind for e in await store.events("a1")] == [EventKind.CREATED, EventKind.CLAIMED]


async def test_an_ask_stored_before_claims_reads_back_held_by_nobody(store: AskStore) -> None:
    await store.add(AskRecord(id="a1", questions=[NAME], created_at=1000.0))
    stored = await store.get("a1")
    assert stored is not None
    assert (stored.holder, stored.claimed_at) == (None, None)


async def test_sqlite_keeps_the_holder_in_its_own_column(tmp_path: Path) -> None:
    async with SqliteStore(tmp_path / "asks.db") as store:
        await claimed(store)
    with sqlite3.connect(tmp_path / "asks.db") as conn:
        rows = conn.execute("SELECT id FROM asks WHERE holder = ?", (ALICE,)).fetchall()
    assert rows == [("a1",)]


async def test_postgres_keeps_the_holder_in_its_own_column(postgres_url: str) -> None:
    store = await PostgresStore.open(postgres_url)
    try:
        await claimed(store)
    finally:
        await store.close()
    async with await psycopg.AsyncConnection.connect(postgres_url) as conn:
        cursor = await conn.execute("SELECT id FROM asks WHERE holder = %s", (ALICE,))
        rows = await cursor.fetchall()
    assert rows == [("a1",)]
