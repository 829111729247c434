"""Delegations in every store (in memory, SQLite, PostgreSQL): one per delegator, replaced
by the next, turned off once, kept across a reopen."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.store import AskStore, Delegation, MemoryStore
from bot.store.postgres import PostgresStore
from bot.store.sqlite import SqliteStore


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


def delegation(delegator: str, delegate: str, *, until: float = 2000.0) -> Delegation:
    return Delegation(
        delegator=delegator,
        delegate=delegate,
        starts_at=1000.0,
        until=until,
        time_zone="Europe/Berlin",
        set_by=delegator,
    )


async def test_a_stored_delegation_is_read_back_whole(store: AskStore) -> None:
    await store.set_delegation(delegation("U0ALICE", "U0BOB"))
    assert await store.delegations() == [delegation("U0ALICE", "U0BOB")]


async def test_a_new_delegation_replaces_the_delegators_previous_one(store: AskStore) -> None:
    await store.set_delegation(delegation("U0ALICE", "U0BOB"))
    await store.set_delegation(delegation("U0CAROL", "U0ALICE"))
    await store.set_delegation(delegation("U0ALICE", "U0DAVE", until=3000.0))
    assert await store.delegations() == [
        delegation("U0ALICE", "U0DAVE", until=3000.0),
        delegation("U0CAROL", "U0ALICE"),
    ]


async def test_turning_a_delegation_off_keeps_it_ended_at_its_first_end(store: AskStore) -> None:
    await store.set_delegation(delegation("U0ALICE", "U0BOB"))
    first = await store.end_delegation("U0ALICE", 1500.0)
    again = await store.end_delegation("U0ALICE", 1800.0)
    ended = delegation("U0ALICE", "U0BOB").model_copy(update={"ended_at": 1500.0})
    assert (first, again, await store.delegations()) == (ended, ended, [ended])
    assert not ended.active(1600.0)


async def test_turning_off_a_delegation_nobody_set_finds_none(store: AskStore) -> None:
    assert await store.end_delegation("U0ALICE", 1500.0) is None


async def test_a_delegation_survives_reopening_the_sqlite_file(tmp_path: Path) -> None:
    async with SqliteStore(tmp_path / "asks.db") as first:
        await first.set_delegation(delegation("U0ALICE", "U0BOB"))
    async with SqliteStore(tmp_path / "asks.db") as reopened:
        assert await reopened.delegations() == [delegation("U0ALICE", "U0BOB")]
