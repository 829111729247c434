"""`Grants` on every store (memory, SQLite, PostgreSQL): a grant made and a grant revoked are
links of the audit chain, which still verifies; a second revoke keeps the first and adds no
link; the active list leaves out what is revoked or expired."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.asks.grants import Grants
from bot.store import AskStore, Grant, MemoryStore
from bot.store.audit import verify
from bot.store.postgres import PostgresStore
from bot.store.sqlite import SqliteStore
from slack_emulator import ManualClock

KEY = b"k" * 32
ALICE, BOB = "U0ALICE001", "U0BOB00002"


def grant(grant_id: str = "g1", **changes: object) -> Grant:
    made = Grant(
        id=grant_id,
        tool="Bash",
        args={"command": "make *"},
        scope="agent",
        subject="ci",
        granted_by=ALICE,
        created_at=1_700_000_000.0,
        expires_at=1_700_003_600.0,
    )
    return made.model_copy(update=changes)


@pytest.fixture(params=["memory", "sqlite", "postgres"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[AskStore]:
    if request.param == "memory":
        yield MemoryStore(audit_key=KEY)
    elif request.param == "sqlite":
        async with SqliteStore(tmp_path / "asks.db", audit_key=KEY) as sqlite:
            yield sqlite
    else:
        url = request.getfixturevalue("postgres_url")
        async with PostgresStore(url, audit_key=KEY) as postgres:
            yield postgres


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(1_700_000_100.0)


async def intact(store: AskStore) -> bool:
    rows = await store.audit_rows()
    return verify(KEY, rows, anchor=await store.audit_anchor()).intact


async def test_a_grant_made_is_a_link_naming_its_ask_and_granter(
    store: AskStore, clock: ManualClock
) -> None:
    await Grants(store, clock).add(grant(), ask_id="ask-1")
    [row] = await store.audit_rows()
    assert (row.kind, row.ask_id, row.actor, row.at) == (
        "grant_created",
        "ask-1",
        ALICE,
        1_700_000_000.0,
    )
    assert await intact(store)


async def test_a_revoke_is_a_link_and_a_second_one_keeps_the_first(
    store: AskStore, clock: ManualClock
) -> None:
    grants = Grants(store, clock)
    await grants.add(grant())
    first = await grants.revoke("g1", BOB)
    clock.advance(5)
    again = await grants.revoke("g1", ALICE)
    assert (first.now, again.now) == (True, False)
    assert again.grant == first.grant
    assert first.grant is not None
    assert (first.grant.revoked_by, first.grant.revoked_at) == (BOB, 1_700_000_100.0)
    rows = await store.audit_rows()
    assert [(r.kind, r.actor) for r in rows] == [("grant_created", ALICE), ("grant_revoked", BOB)]
    assert await intact(store)


async def test_revoking_an_unknown_grant_finds_nothing_and_adds_no_link(
    store: AskStore, clock: ManualClock
) -> None:
    revoked = await Grants(store, clock).revoke("nope", ALICE)
    assert (revoked.grant, revoked.now) == (None, False)
    assert await store.audit_rows() == []


async def test_the_active_grants_leave_out_the_revoked_and_the_expired(
    store: AskStore, clock: ManualClock
) -> None:
    grants = Grants(store, clock)
    await grants.add(grant("live"))
    await grants.add(grant("gone", expires_at=1_700_000_050.0))
    await grants.add(grant("ended"))
    await grants.revoke("ended", ALICE)
    assert [g.id for g in await grants.active()] == ["live"]
