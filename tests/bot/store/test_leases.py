"""Leases: work done once across replicas, held in memory when no replica shares the store."""

from __future__ import annotations

import pytest

from bot.store import Lease, MemoryStore
from bot.store.leases import LeaseKind, Leases, lease_name, new_owner
from slack_emulator import ManualClock


class CountingStore(MemoryStore):
    """A `MemoryStore` that counts the lease calls it is asked."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[str] = []

    async def lease(self, name: str, owner: str, *, now: float, until: float) -> Lease | None:
        self.calls.append(f"lease {name} {owner}")
        return await super().lease(name, owner, now=now, until=until)

    async def release(self, name: str, owner: str) -> None:
        self.calls.append(f"release {name} {owner}")
        await super().release(name, owner)


def test_lease_names_are_stored_as_before_kind_colon_key() -> None:
    assert lease_name(LeaseKind.POST, "a1") == "post:a1"
    assert lease_name(LeaseKind.THREAD, "planner-7") == "thread:planner-7"
    assert lease_name(LeaseKind.REMIND, "a1") == "remind:a1"


def test_an_owner_names_its_replica_then_this_incarnation() -> None:
    first, second = new_owner("host-1:3000"), new_owner("host-1:3000")
    assert first.startswith("host-1:3000#")
    assert second.startswith("host-1:3000#")
    assert first != second
    assert new_owner().startswith("replica-")


async def test_unshared_a_restart_on_another_port_takes_a_dead_ones_lease_at_once() -> None:
    store, clock = CountingStore(), ManualClock(start=10.0)
    dead = Leases(store, new_owner("host-1:3000", shared=False), clock=clock, shared=False)
    await dead.take(LeaseKind.THREAD, "planner-7", 10.0)  # killed while it held it
    restarted = Leases(store, new_owner("host-1:3001", shared=False), clock=clock, shared=False)
    async with restarted.hold(LeaseKind.THREAD, "planner-7", 10.0) as lease:
        assert lease == Lease(lapsed=dead.owner)


async def test_an_unshared_post_lease_is_granted_without_asking_the_store() -> None:
    store = CountingStore()
    leases = Leases(store, "replica-a#1", clock=ManualClock(), shared=False)
    async with leases.hold(LeaseKind.POST, "a1", 30.0) as lease:
        assert lease == Lease()
    async with leases.hold(LeaseKind.REMIND, "a1", 300.0) as lease:
        assert lease == Lease()
    assert store.calls == []


async def test_an_unshared_thread_lease_is_stored_so_a_restart_sees_it_lapsed() -> None:
    store, clock = CountingStore(), ManualClock(start=10.0)
    # A crashed incarnation left its lease on the session's thread behind.
    await store.lease("thread:planner-7", "host-1#old", now=10.0, until=20.0)
    leases = Leases(store, "host-1#new", clock=clock, shared=False)
    async with leases.hold(LeaseKind.THREAD, "planner-7", 10.0) as lease:
        assert lease == Lease(lapsed="host-1#old")
    assert store.calls[1:] == [
        "lease thread:planner-7 host-1#new",
        "release thread:planner-7 host-1#new",
    ]


async def test_a_shared_lease_is_the_stores_and_a_second_owner_is_refused_until_released() -> None:
    store, clock = CountingStore(), ManualClock(start=10.0)
    mine = Leases(store, "replica-a#1", clock=clock, shared=True)
    theirs = Leases(store, "replica-b#1", clock=clock, shared=True)
    async with mine.hold(LeaseKind.POST, "a1", 30.0) as lease:
        assert lease == Lease()
        async with theirs.hold(LeaseKind.POST, "a1", 30.0) as refused:
            assert refused is None
    async with theirs.hold(LeaseKind.POST, "a1", 30.0) as lease:
        assert lease == Lease()
    assert store.calls == [
        "lease post:a1 replica-a#1",
        "lease post:a1 replica-b#1",  # refused: nothing to release
        "release post:a1 replica-a#1",
        "lease post:a1 replica-b#1",
        "release post:a1 replica-b#1",
    ]


async def test_a_shared_lease_is_released_when_its_work_raises() -> None:
    store = CountingStore()
    leases = Leases(store, "replica-a#1", clock=ManualClock(), shared=True)
    with pytest.raises(RuntimeError, match="Slack failed"):
        async with leases.hold(LeaseKind.POST, "a1", 30.0):
            raise RuntimeError("Slack failed")
    assert store.calls[-1] == "release post:a1 replica-a#1"
