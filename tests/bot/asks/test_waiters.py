"""`Waiters`: a local settle hands over the record; another replica's settle wakes the waiter
through the notifier; a reconnect makes every waiter re-read; the timer is the safety net."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from bot.asks.waiters import Waiters
from bot.store import AskRecord, MemoryStore
from bot.store.postgres import PostgresStore
from bot.store.postgres_notify import AskNotifier

from ..store.test_postgres_notify import answered_by, ask

WAKE_S = 10.0  # generous: a wake-up that comes at all comes in milliseconds


class CountingStore(MemoryStore):
    """Counts reads, so a test can tell a handed-over record from a re-read."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    async def get(self, ask_id: str) -> AskRecord | None:
        self.reads += 1
        return await super().get(ask_id)


async def started(waiters: Waiters, ask_id: str) -> asyncio.Task[AskRecord]:
    """A waiter on `ask_id` that has registered and read the ask once."""
    before = waiters.waiting()
    task = asyncio.create_task(waiters.wait(ask_id))
    await asyncio.sleep(0)  # its first step registers it, before its read
    assert waiters.waiting() == before + 1
    await asyncio.sleep(0.01)  # and its read finds the ask pending
    return task


async def test_a_settled_ask_is_returned_at_once() -> None:
    store = MemoryStore()
    await store.add(ask("a1"))
    record, done = answered_by("a1", "U_ALICE")
    await store.settle(record, done)
    assert await Waiters(store.get).wait("a1") == record


async def test_an_unknown_ask_is_a_key_error() -> None:
    with pytest.raises(KeyError, match="missing"):
        await Waiters(MemoryStore().get).wait("missing")


async def test_a_local_settle_hands_the_record_to_every_waiter_without_a_read() -> None:
    store = CountingStore()
    await store.add(ask("a1"))
    waiters = Waiters(store.get)
    first, second = await started(waiters, "a1"), await started(waiters, "a1")
    reads = store.reads
    record, _ = answered_by("a1", "U_ALICE")
    waiters.settled(record)
    assert list(await asyncio.wait_for(asyncio.gather(first, second), WAKE_S)) == [record, record]
    assert store.reads == reads
    assert waiters.waiting() == 0


async def test_a_held_ask_is_waited_on_without_any_read_and_handed_its_record() -> None:
    store = CountingStore()
    await store.add(ask("a1"))
    waiters = Waiters(store.get)
    waiting = asyncio.create_task(waiters.wait("a1", held=True))
    await asyncio.sleep(0)
    assert waiters.waiting("a1") == 1
    record, _ = answered_by("a1", "U_ALICE")
    waiters.settled(record)
    assert await asyncio.wait_for(waiting, WAKE_S) == record
    assert store.reads == 0


async def test_a_held_waiter_told_the_ask_changed_reads_it() -> None:
    store = CountingStore()
    await store.add(ask("a1"))
    waiters = Waiters(store.get, re_read_s=60.0)
    waiting = asyncio.create_task(waiters.wait("a1", held=True))
    await asyncio.sleep(0)
    record, done = answered_by("a1", "U_ALICE")
    await store.settle(record, done)
    waiters.changed("a1")
    assert await asyncio.wait_for(waiting, WAKE_S) == record
    assert store.reads == 1


async def test_nobody_waiting_on_an_ask_leaves_nothing_behind() -> None:
    store = MemoryStore()
    await store.add(ask("a1"))
    waiters = Waiters(store.get)
    assert waiters.waiting("a1") == 0
    waiting = await started(waiters, "a1")
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert waiters.waiting() == 0


async def test_a_waiter_that_stops_leaves_the_others_on_the_ask_waiting() -> None:
    store = MemoryStore()
    await store.add(ask("a1"))
    waiters = Waiters(store.get)
    leaving, staying = await started(waiters, "a1"), await started(waiters, "a1")
    leaving.cancel()
    with pytest.raises(asyncio.CancelledError):
        await leaving
    assert waiters.waiting("a1") == 1
    record, _ = answered_by("a1", "U_ALICE")
    waiters.settled(record)
    assert await asyncio.wait_for(staying, WAKE_S) == record


async def test_a_change_elsewhere_makes_the_waiter_read_the_ask_again() -> None:
    store = MemoryStore()
    await store.add(ask("a1"))
    waiters = Waiters(store.get, re_read_s=60.0)
    waiting = await started(waiters, "a1")
    record, done = answered_by("a1", "U_ALICE")
    await store.settle(record, done)
    waiters.changed("a1")
    assert await asyncio.wait_for(waiting, WAKE_S) == record


async def test_without_any_wake_up_the_periodic_re_read_finds_the_settle() -> None:
    store = MemoryStore()
    await store.add(ask("a1"))
    waiters = Waiters(store.get, re_read_s=0.05)
    waiting = await started(waiters, "a1")
    record, done = answered_by("a1", "U_ALICE")
    await store.settle(record, done)  # nobody is told
    assert await asyncio.wait_for(waiting, WAKE_S) == record


@pytest.fixture
async def store(postgres_url: str) -> AsyncIterator[PostgresStore]:
    async with PostgresStore(postgres_url) as opened:
        for ask_id in ("a1", "a2"):
            await opened.add(ask(ask_id))
        yield opened


async def test_another_replicas_settle_wakes_the_waiter_through_the_notifier(
    postgres_url: str, store: PostgresStore
) -> None:
    waiters = Waiters(store.get, re_read_s=60.0)  # only the notification can wake it in time
    async with AskNotifier(postgres_url) as notifier:
        notifier.hear(waiters)
        waiting = await started(waiters, "a1")
        record, done = answered_by("a1", "U_ALICE")
        assert await store.settle(record, done)  # replica B's write
        assert await asyncio.wait_for(waiting, WAKE_S) == record


async def test_a_reconnect_makes_every_waiter_read_its_ask_again() -> None:
    store = CountingStore()
    for ask_id in ("a1", "a2"):
        await store.add(ask(ask_id))
    waiters = Waiters(store.get, re_read_s=60.0)
    one, two = await started(waiters, "a1"), await started(waiters, "a2")
    assert store.reads == 2
    for ask_id in ("a1", "a2"):
        record, done = answered_by(ask_id, "U_ALICE")
        await store.settle(record, done)  # committed while the notifier was away
    waiters.reconnected()
    settled = await asyncio.wait_for(asyncio.gather(one, two), WAKE_S)
    assert [r.decided_by for r in settled] == ["U_ALICE", "U_ALICE"]
    assert store.reads == 4
