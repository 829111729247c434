"""Work done once across replicas: one helper for every lease this process takes.

A lease (`AskStore.lease`) lets one replica do what must happen once — post an ask, open a
session's thread, remind a review's reviewers — and passes to another when its holder dies.
`Leases.hold` takes one for the length of a `with` block and gives it back after.

A process whose store no replica shares needs them only where they outlive it: an owner
always takes its own lease again, so in one process a lease never keeps anybody out. What a
lease still tells there is what a crash left behind — a lapsed thread lease says a root may
be in Slack unrecorded — so `THREAD` leases stay in the store, and `POST` and `REMIND`
leases are granted in memory (a restart takes every pending ask back as recovering anyway):
2 of the 5 store round trips of a post saved. Every process there is the same replica
(`ALONE`), so a restart on another port or host takes what a dead one held at once.

Stored lease names are `<kind>:<key>` (`post:<ask id>`…), the same for every version, so
replicas of different versions keep excluding each other.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from enum import StrEnum

from bot.clock import Clock
from bot.store.protocol import AskStore
from bot.store.vocabulary import Lease


class LeaseKind(StrEnum):
    """What a lease is for; its value starts the stored lease name."""

    POST = "post"  # key: the ask id
    THREAD = "thread"  # key: the agent session
    REMIND = "remind"  # key: the ask id
    ESCALATE = "escalate"  # key: the ask id (its SLA ladder's escalation step)
    PURGE = "purge"  # key: "retention"; kept for a whole period, so replicas purge once in it
    LAPSE = "lapse"  # key: the ask id (its claim running out)

    @property
    def outlives_the_process(self) -> bool:
        """Whether its lapse tells a restarted process something (then it is stored even
        when no replica shares the store): a thread root may be posted but not recorded."""
        return self is LeaseKind.THREAD


def lease_name(kind: LeaseKind, key: str) -> str:
    """The name a lease is stored under (unchanged across versions: `post:a1`)."""
    return f"{kind.value}:{key}"


# The replica name of every process on a store no replica shares: one process uses it at a
# time, so a lease another owner holds there was left by a dead one, whatever its host and port.
ALONE = "alone"


def new_owner(replica: str | None = None, *, shared: bool = True) -> str:
    """This process as a lease owner: the replica (a name stable across restarts, so a
    restarted replica takes its predecessor's leases at once), then this incarnation. Not
    `shared`: the replica is `ALONE`, so a restart under another name (port, host) takes
    over at once too."""
    name = replica if shared else ALONE
    return f"{name or 'replica-' + secrets.token_hex(6)}#{secrets.token_hex(4)}"


_GRANTED = Lease()


class Leases:
    """This process's leases: `owner` in the store when `shared` (or when the lease outlives
    the process), else granted at once with no store call."""

    def __init__(self, store: AskStore, owner: str, *, clock: Clock, shared: bool) -> None:
        self._store = store
        self.owner = owner
        self._clock = clock
        self._shared = shared

    @asynccontextmanager
    async def hold(self, kind: LeaseKind, key: str, seconds: float) -> AsyncIterator[Lease | None]:
        """The lease on `kind` `key` for `seconds`, held while the block runs and released
        after; None (and nothing to release) while another owner holds it."""
        if not self._shared and not kind.outlives_the_process:
            yield _GRANTED
            return
        name = lease_name(kind, key)
        now = self._clock.now()
        lease = await self._store.lease(name, self.owner, now=now, until=now + seconds)
        if lease is None:
            yield None
            return
        try:
            yield lease
        finally:
            await self._store.release(name, self.owner)

    async def take(self, kind: LeaseKind, key: str, seconds: float) -> Lease | None:
        """The lease on `kind` `key` for `seconds`, kept until it lapses (never released):
        work done once per period across replicas. None while another owner holds it;
        granted at once when no replica shares the store."""
        if not self._shared and not kind.outlives_the_process:
            return _GRANTED
        now = self._clock.now()
        return await self._store.lease(
            lease_name(kind, key), self.owner, now=now, until=now + seconds
        )
