"""The purge timer: soon after start, then every period; once per period across replicas;
never the asks held in memory; stopped by the shutdown drain."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Collection

import pytest

from bot.asks.retention import Retention
from bot.outcomes import Verdict
from bot.store import AskEvent, AskRecord, AskState, AskStore, EventKind, MemoryStore
from bot.store.leases import Leases
from bot.store.postgres import PostgresStore
from bot.tasks import Tasks
from provider import AskUserQuestionItem
from slack_emulator import ManualClock

DAY = 86400.0
HOUR = 3600.0
NAME = AskUserQuestionItem(id="name", question="Name the service")


async def add_settled(store: AskStore, ask_id: str, decided: float) -> None:
    record = AskRecord(id=ask_id, questions=[NAME], created_at=decided)
    await store.add(record)
    ended = record.evolve(state=AskState.ANSWERED, verdict=Verdict.ANSWERED, decided_at=decided)
    await store.settle(ended, AskEvent(ask_id=ask_id, at=decided, kind=EventKind.ANSWERED))


def retention(
    store: AskStore,
    clock: ManualClock,
    tasks: Tasks,
    *,
    shared: bool = False,
    owner: str = "a#1",
    held: frozenset[str] = frozenset(),
) -> Retention:
    leases = Leases(store, owner, clock=clock, shared=shared)
    return Retention(
        store, leases, clock, tasks, keep_for=90 * DAY, held=lambda: held, first_after=60.0
    )


async def test_the_timer_purges_soon_after_start_then_every_hour(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock, store, tasks = ManualClock(), MemoryStore(), Tasks()
    await add_settled(store, "old", clock.now() - 91 * DAY)
    await add_settled(store, "later", clock.now() - 90 * DAY + 30 * 60)
    timer = retention(store, clock, tasks)
    caplog.set_level(logging.INFO, logger="bot.asks.retention")
    timer.start()
    await clock.sleeping()
    clock.advance(60)
    await timer.ran(1)
    assert await store.get("old") is None
    assert await store.get("later") is not None  # 30 minutes short of its 90 days
    await clock.sleeping()
    clock.advance(HOUR)
    await timer.ran(2)
    assert await store.get("later") is None
    assert [r.getMessage() for r in caplog.records] == [
        "retention: purged 1 settled ask(s) older than 90d",
        "retention: purged 1 settled ask(s) older than 90d",
    ]
    await timer.close()
    await tasks.drain()


async def test_the_timer_between_runs_is_no_tracked_work_and_the_drain_stops_it() -> None:
    clock, tasks = ManualClock(), Tasks()
    timer = retention(MemoryStore(), clock, tasks)
    timer.start()
    await clock.sleeping()
    await tasks.idle()  # returns: waiting for idle work never waits for the next purge
    await tasks.drain(grace=5.0)
    await timer.close()
    assert clock.sleepers == 0
    assert timer.runs == 0


async def test_a_purge_in_progress_at_shutdown_finishes_in_the_drain() -> None:
    clock, tasks = ManualClock(), Tasks()
    store = SlowPurge()
    await add_settled(store, "old", clock.now() - 91 * DAY)
    timer = retention(store, clock, tasks)
    timer.start()
    await clock.sleeping()
    clock.advance(60)
    await store.purging.wait()
    await timer.close()
    draining = asyncio.create_task(tasks.drain(grace=5.0))
    store.go.set()
    await draining
    assert timer.runs == 1
    assert await store.get("old") is None


class SlowPurge(MemoryStore):
    """A store whose purge waits for the test's word."""

    def __init__(self) -> None:
        super().__init__()
        self.purging, self.go = asyncio.Event(), asyncio.Event()

    async def purge(self, before: float, *, keep: Collection[str] = ()) -> int:
        self.purging.set()
        await self.go.wait()
        return await super().purge(before, keep=keep)


async def test_an_ask_held_in_memory_is_left_for_a_later_run() -> None:
    clock, store, tasks = ManualClock(), MemoryStore(), Tasks()
    await add_settled(store, "held", clock.now() - 91 * DAY)
    assert await retention(store, clock, tasks, held=frozenset({"held"})).purge_once() == 0
    assert await store.get("held") is not None


async def test_two_replicas_on_one_postgresql_purge_once_per_period(postgres_url: str) -> None:
    clock, tasks = ManualClock(), Tasks()
    async with PostgresStore(postgres_url) as one, PostgresStore(postgres_url) as two:
        a = retention(one, clock, tasks, shared=True, owner="a#1")
        b = retention(two, clock, tasks, shared=True, owner="b#1")
        await add_settled(one, "old", clock.now() - 91 * DAY)
        assert await a.purge_once() == 1
        assert await b.purge_once() is None  # A holds this period's lease
        clock.advance(HOUR - 1)
        await add_settled(one, "older", clock.now() - 91 * DAY)
        assert await b.purge_once() is None  # still A's period
        assert await a.purge_once() == 1  # the holder purges again: one purger at a time
        clock.advance(2 * HOUR)  # A died (took no turn): its lease lapsed
        await add_settled(one, "oldest", clock.now() - 91 * DAY)
        assert await b.purge_once() == 1
        assert await a.purge_once() is None
