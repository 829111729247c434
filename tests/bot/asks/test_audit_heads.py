"""The decision log's head, recorded and posted to the audit channel each period, once
across replicas."""

from __future__ import annotations

from bot.asks.audit_heads import HeadPublisher
from bot.store import AskRecord, MemoryStore
from bot.store.audit import OFFLINE_AUDIT_KEY, verify
from bot.store.leases import Leases
from bot.tasks import Tasks
from provider import AskUserQuestionItem
from slack_emulator import ManualClock

NAME = AskUserQuestionItem(id="name", question="Name the service")


async def test_each_period_the_head_is_recorded_and_posted() -> None:
    clock, store, tasks = ManualClock(), MemoryStore(), Tasks()
    await store.add(AskRecord(id="a1", questions=[NAME], created_at=clock.now()))
    posted: list[str] = []

    async def post(text: str) -> None:
        posted.append(text)

    publisher = HeadPublisher(
        store, Leases(store, "a#1", clock=clock, shared=False), clock, tasks, post, every=60.0
    )
    publisher.start()
    await clock.sleeping()
    clock.advance(60)
    await publisher.ran(1)
    head = await store.audit_published()
    assert head is not None
    assert head.seq == 1
    assert posted == [f"Decision log head: seq 1, mac {head.mac} (verify --head 1:{head.mac})"]
    await publisher.close()
    await tasks.drain()


async def test_a_second_replica_does_not_publish_in_the_same_period() -> None:
    clock, store = ManualClock(), MemoryStore()
    await store.add(AskRecord(id="a1", questions=[NAME], created_at=clock.now()))
    posted: list[str] = []

    async def post(text: str) -> None:
        posted.append(text)

    one, two = (
        HeadPublisher(store, Leases(store, owner, clock=clock, shared=True), clock, Tasks(), post)
        for owner in ("a#1", "b#1")
    )
    assert await one.publish_once() is not None
    assert await two.publish_once() is None
    assert len(posted) == 1


async def test_cutting_the_tail_after_a_publication_is_caught() -> None:
    clock, store = ManualClock(), MemoryStore()
    for n in range(3):
        await store.add(AskRecord(id=f"a{n}", questions=[NAME], created_at=clock.now()))

    async def post(text: str) -> None:
        return None

    await HeadPublisher(
        store, Leases(store, "a#1", clock=clock, shared=False), clock, Tasks(), post
    ).publish_once()
    rows = await store.audit_rows()
    verdict = verify(OFFLINE_AUDIT_KEY, rows[:2], published=await store.audit_published())
    assert verdict.reason.startswith("truncated: the last published head is seq 3")
