"""The tamper-evident decision log: every ask event chained (HMAC), `verify` naming the first
broken link when a row is altered, deleted or reordered by SQL, the tail checked against the
published head, a purge that keeps the chain verifiable, and two PostgreSQL replicas writing
at once into one chain."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import psycopg
import pytest

from bot.outcomes import Verdict
from bot.service.audit_command import main as audit_main
from bot.store import AskEvent, AskRecord, AskState, AskStore, EventKind, MemoryStore
from bot.store.audit import (
    OFFLINE_AUDIT_KEY,
    AuditEntry,
    AuditKind,
    verify,
)
from bot.store.postgres import PostgresStore
from bot.store.sqlite import SqliteStore
from provider import AskUserQuestionAnswer, AskUserQuestionAnswerItem, AskUserQuestionItem

KEY = b"k" * 32
NAME = AskUserQuestionItem(id="name", question="Name?", options=None)


def ask(ask_id: str, at: float = 1000.0) -> AskRecord:
    return AskRecord(id=ask_id, questions=[NAME], created_at=at)


def answered(record: AskRecord, who: str, at: float) -> tuple[AskRecord, AskEvent]:
    settled = record.evolve(
        state=AskState.ANSWERED,
        verdict=Verdict.ANSWERED,
        answer=AskUserQuestionAnswer(answers=[AskUserQuestionAnswerItem(id="name", custom=who)]),
        decided_by=who,
        decided_at=at,
    )
    return settled, AskEvent(ask_id=record.id, at=at, kind=EventKind.ANSWERED, actor=who)


async def history(store: AskStore) -> None:
    """Three asks: created, posted, answered (9 events)."""
    for n in range(3):
        record = ask(f"a{n}", at=1000.0 + n)
        await store.add(record)
        await store.log(AskEvent(ask_id=record.id, at=1000.5 + n, kind=EventKind.POSTED))
        assert await store.settle(*answered(record, "U1", 1001.0 + n))


async def verdict_of(store: AskStore, key: bytes = KEY) -> str:
    rows = await store.audit_rows()
    anchor = await store.audit_anchor()
    published = await store.audit_published()
    return verify(key, rows, anchor=anchor, published=published).line()


@pytest.fixture
async def sqlite_store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    async with SqliteStore(tmp_path / "asks.db", audit_key=KEY) as store:
        yield store


async def test_every_ask_event_is_chained_and_verifies_intact(sqlite_store: SqliteStore) -> None:
    await history(sqlite_store)
    rows = await sqlite_store.audit_rows()
    assert [(row.seq, row.kind, row.ask_id) for row in rows[:3]] == [
        (1, "created", "a0"),
        (2, "posted", "a0"),
        (3, "answered", "a0"),
    ]
    assert await verdict_of(sqlite_store) == f"intact (9 events, head seq 9, {rows[-1].mac})"


async def test_the_memory_store_chains_the_same_macs_as_sqlite(sqlite_store: SqliteStore) -> None:
    memory = MemoryStore(audit_key=KEY)
    await history(memory)
    await history(sqlite_store)
    assert await memory.audit_rows() == await sqlite_store.audit_rows()


def tamper(db: Path, *statements: str) -> None:
    conn = sqlite3.connect(db)
    with conn:
        for statement in statements:
            conn.execute(statement)
    conn.close()


@pytest.mark.parametrize(
    ("statements", "expected"),
    [
        (
            ("UPDATE audit SET actor = 'U2' WHERE seq = 6",),
            "broken at seq 6: mac mismatch: the row's content was altered (or the key is wrong)"
            ' — it holds kind=answered ask=a1 actor=U2 at=1002.0 payload={"detail":""}',
        ),
        (
            ("DELETE FROM audit WHERE seq = 4",),
            "broken at seq 5: gap: seq 4..4 missing (deleted)"
            ' — it holds kind=posted ask=a1 actor=None at=1001.5 payload={"detail":""}',
        ),
        (
            (
                "UPDATE audit SET seq = -1 WHERE seq = 4",
                "UPDATE audit SET seq = 4 WHERE seq = 5",
                "UPDATE audit SET seq = 5 WHERE seq = -1",
            ),
            "broken at seq 4: reorder: chained after another row than seq 3 (its prev_mac is"
            " not that row's mac) — it holds kind=posted ask=a1 actor=None at=1001.5"
            ' payload={"detail":""}',
        ),
    ],
    ids=["altered", "deleted", "reordered"],
)
async def test_sql_tampering_makes_verify_name_the_first_broken_link_on_sqlite(
    sqlite_store: SqliteStore, statements: tuple[str, ...], expected: str
) -> None:
    await history(sqlite_store)
    tamper(sqlite_store.path, *statements)
    assert await verdict_of(sqlite_store) == expected


async def test_truncating_the_tail_is_caught_against_the_published_head(
    sqlite_store: SqliteStore,
) -> None:
    await history(sqlite_store)
    head = await sqlite_store.audit_publish(2000.0)
    assert head is not None
    assert head.seq == 9
    tamper(
        sqlite_store.path,
        "DELETE FROM audit WHERE seq >= 8",
        "UPDATE audit_head SET seq = 7, mac = (SELECT mac FROM audit WHERE seq = 7)",
    )
    assert await verdict_of(sqlite_store) == (
        f"broken at seq 9: truncated: the last published head is seq 9 ({head.mac}),"
        " the chain ends at seq 7"
    )


async def test_a_purge_is_logged_and_the_chain_still_verifies(sqlite_store: SqliteStore) -> None:
    await history(sqlite_store)
    assert await sqlite_store.purge(1001.9) == 1  # a0 settled at 1001.0
    rows = await sqlite_store.audit_rows()
    anchor = await sqlite_store.audit_anchor()
    # The rows written before 1001.9: a0's three, a1's created and posted (seq 1..5).
    assert anchor is not None
    assert anchor.seq == 5
    assert rows[0].seq == 6
    assert (rows[-1].kind, rows[-1].payload) == (
        "purged",
        f'{{"anchor_mac":"{anchor.mac}","detail":"","purged_asks":1,"through_seq":5}}',
    )
    assert (await verdict_of(sqlite_store)).startswith("intact (5 events, head seq 10, ")


async def test_deleting_the_start_without_a_purge_is_caught(sqlite_store: SqliteStore) -> None:
    await history(sqlite_store)
    await sqlite_store.purge(1001.9)
    # The rows up to seq 6 deleted, and the anchor moved to seq 6's real mac: every link
    # left is sound, but no purge (a row only the key could write) set that anchor.
    tamper(
        sqlite_store.path,
        "UPDATE audit_anchor SET seq = 6, mac = (SELECT mac FROM audit WHERE seq = 6)",
        "DELETE FROM audit WHERE seq <= 6",
    )
    assert await verdict_of(sqlite_store) == (
        "broken at seq 6: the chain starts after seq 6, but no purge logged that anchor"
        " (rows deleted from the start)"
    )


async def test_another_key_does_not_verify(sqlite_store: SqliteStore) -> None:
    await history(sqlite_store)
    assert (await verdict_of(sqlite_store, key=OFFLINE_AUDIT_KEY)).startswith(
        "broken at seq 1: mac mismatch"
    )


async def test_an_appended_rule_decision_is_chained(sqlite_store: SqliteStore) -> None:
    await history(sqlite_store)
    row = await sqlite_store.audit_append(
        AuditEntry(at=3000.0, kind=AuditKind.RULE_DECIDED, ask_id="a0", actor="rule:ls")
    )
    assert (row.seq, row.prev_mac) == (10, (await sqlite_store.audit_rows())[8].mac)
    assert (await verdict_of(sqlite_store)).startswith("intact (10 events")


def test_verify_command_prints_intact_and_exits_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "asks.db"

    async def write() -> None:
        async with SqliteStore(db, audit_key=KEY) as store:
            await history(store)

    asyncio.run(write())
    env = {"SLACK_QUESTIONS_AUDIT_KEY": KEY.decode()}
    assert audit_main(["verify", "--db", str(db)], env=env) == 0
    assert capsys.readouterr().out.startswith("intact (9 events, head seq 9, ")
    tamper(db, "DELETE FROM audit WHERE seq = 2")
    assert audit_main(["verify", "--db", str(db)], env=env) == 1
    assert capsys.readouterr().out.startswith("broken at seq 3: gap: seq 2..2 missing (deleted)")


def test_verify_command_refuses_a_short_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    env = {"SLACK_QUESTIONS_AUDIT_KEY": "short"}
    assert audit_main(["verify", "--db", str(tmp_path / "none.db")], env=env) == 2
    assert "at least 32 characters" in capsys.readouterr().err


# --- PostgreSQL -------------------------------------------------------------------------------


@pytest.fixture
async def pg_store(postgres_url: str) -> AsyncIterator[PostgresStore]:
    async with PostgresStore(postgres_url, audit_key=KEY) as store:
        yield store


def pg_tamper(url: str, *statements: str) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        for statement in statements:
            conn.execute(statement)


@pytest.mark.parametrize(
    ("statements", "broken"),
    [
        (("UPDATE audit SET actor = 'U2' WHERE seq = 6",), "broken at seq 6: mac mismatch"),
        (("DELETE FROM audit WHERE seq = 4",), "broken at seq 5: gap: seq 4..4 missing"),
        (
            (
                "UPDATE audit SET seq = -1 WHERE seq = 4",
                "UPDATE audit SET seq = 4 WHERE seq = 5",
                "UPDATE audit SET seq = 5 WHERE seq = -1",
            ),
            "broken at seq 4: reorder: chained after another row than seq 3",
        ),
    ],
    ids=["altered", "deleted", "reordered"],
)
async def test_sql_tampering_makes_verify_name_the_first_broken_link_on_postgres(
    pg_store: PostgresStore, postgres_url: str, statements: tuple[str, ...], broken: str
) -> None:
    await history(pg_store)
    assert (await verdict_of(pg_store)).startswith("intact (9 events, head seq 9, ")
    pg_tamper(postgres_url, *statements)
    assert (await verdict_of(pg_store)).startswith(broken)


async def test_a_purge_keeps_the_chain_verifiable_on_postgres(pg_store: PostgresStore) -> None:
    await history(pg_store)
    assert await pg_store.purge(1001.9) == 1
    assert (await verdict_of(pg_store)).startswith("intact (5 events, head seq 10, ")


async def test_truncating_the_tail_is_caught_on_postgres(
    pg_store: PostgresStore, postgres_url: str
) -> None:
    await history(pg_store)
    await pg_store.audit_publish(2000.0)
    pg_tamper(postgres_url, "DELETE FROM audit WHERE seq = 9", "UPDATE audit_head SET seq = 8")
    assert (await verdict_of(pg_store)).startswith(
        "broken at seq 9: truncated: the last published head is seq 9"
    )


async def test_two_replicas_writing_at_once_yield_one_valid_chain(postgres_url: str) -> None:
    async with (
        PostgresStore(postgres_url, audit_key=KEY) as a,
        PostgresStore(postgres_url, audit_key=KEY) as b,
    ):
        records = [ask(f"r{n}", at=1000.0 + n) for n in range(40)]
        for record in records:
            await a.add(record)

        def settle_on(store: PostgresStore) -> Callable[[AskRecord], asyncio.Future[bool]]:
            return lambda record: asyncio.ensure_future(
                store.settle(*answered(record, "U1", 1100.0))
            )

        won = await asyncio.gather(
            *(settle_on(a)(record) for record in records),
            *(settle_on(b)(record) for record in records),
            *(a.log(AskEvent(ask_id=r.id, at=1050.0, kind=EventKind.POSTED)) for r in records),
            *(b.log(AskEvent(ask_id=r.id, at=1050.0, kind=EventKind.REMINDED)) for r in records),
        )
        assert won[:80].count(True) == 40
        rows = await a.audit_rows()
        assert [row.seq for row in rows] == list(range(1, 40 + 40 + 80 + 1))
        assert (await verdict_of(b)).startswith("intact (160 events, head seq 160, ")
