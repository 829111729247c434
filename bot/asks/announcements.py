"""Automatic decisions told to the team: one line in the agent session's thread for every
tool call a rule or a grant decided (`bot/asks/automatic.py`), so people see what ran.

The decision comes first: the ask is settled and its agent answered before the line is
posted (the line is spawned once the settlement is stored, and waits its channel's turn
like every post). The line is the ask's one message: until it is posted the settled ask is
stored not `shown`, so a crash between the decision and the post leaves it to `recover`
at the next start, which looks for the line in Slack first (by its metadata: a crash after
the post and before its record must not post it twice). Posting is under the ask's posting
lease, so two replicas never post one line. The line opens its session's thread when the
session has none yet: the thread is where the session's asks are read, and a session whose
every call was allowed by rules still ran them (a call with no session: the channel's top
level, where its card would have gone). `announce_automatic = false` in the policy file
stores the decisions `shown` at once: nothing is posted.

The line takes the lease on its turn, not while it waits in the lane (a busy channel's
queue can outlast any lease). With replicas, a replica that dies with lines unposted leaves
them to the next replica that starts (`recover`) or to another's `sweep`, which takes over
decisions left untold for `SWEEP_EVERY_S`.
"""

from __future__ import annotations

import logging
from collections.abc import Coroutine
from functools import partial
from typing import Any, Final

from bot.asks.observers import AskObserver, Observers
from bot.clock import Clock
from bot.render.automatic import automatic_line
from bot.review import auto_decider
from bot.slack.api import SlackCallFailed
from bot.slack.lines import ThreadLines
from bot.slack.pacing import Dropped, QueuedTurn
from bot.slack.threads import NoChannel, Threads
from bot.slack.users import Users
from bot.store import AskEvent, AskRecord, AskStore, EventKind, Grant, ThreadRef
from bot.store.leases import LeaseKind, Leases
from bot.tasks import Tasks

log = logging.getLogger("bot.asks.lifecycle")

# How many recent asks a restart (or the sweep) looks through for a line never posted.
RECOVER_RECENT: Final = 200
# How long a replica may take to post a line, once its turn came, before another may.
LINE_LEASE_S: Final = 30.0
# With replicas: how often the sweep looks for lines a dead replica left, and how old a
# decision must be for it to be taken over (its own replica is telling it meanwhile).
SWEEP_EVERY_S: Final = 30.0


def unannounced(record: AskRecord) -> bool:
    """Whether `record` was decided by a rule or a grant and its line is not posted yet."""
    return record.settled and not record.shown and auto_decider(record.decided_by) is not None


class Announcements(AskObserver):
    """Posts the thread line of each automatic decision once it is stored; `recover` and
    (with replicas) `sweep` post those a crash left unposted."""

    def __init__(
        self,
        *,
        store: AskStore,
        threads: Threads,
        lines: ThreadLines,
        leases: Leases,
        tasks: Tasks,
        clock: Clock,
        observers: Observers,
        users: Users | None = None,
        shared: bool = False,
    ) -> None:
        self._store = store
        self._threads = threads
        self._lines = lines
        self._leases = leases
        self._tasks = tasks
        self._clock = clock
        self._observers = observers
        self._users = users  # names the granter of a grant's decision; None: by id
        self._shared = shared
        # Lines this process is placing or has queued: neither the sweep nor a second
        # recovery queues one twice.
        self._busy: set[str] = set()
        self._next_sweep = 0.0

    def saved(self, record: AskRecord, event: AskEvent) -> None:
        """See `AskObserver.saved`: a rule's or grant's settlement gets its line, later."""
        if event.kind is EventKind.ANSWERED and unannounced(record):
            self._start(record.id, recovering=False)

    async def recover(self) -> None:
        """After a restart: queue the line of each recent automatic decision that has none
        (each looked for in Slack first, on its turn)."""
        for record in await self._store.recent(limit=RECOVER_RECENT):
            if unannounced(record):
                self._start(record.id, recovering=True)

    async def sweep(self) -> None:
        """With replicas sharing the store, every `SWEEP_EVERY_S` at most: take over the
        lines of decisions older than that which no replica has told (their replica died
        before it posted them). Alone on its store, a process has them all in hand."""
        now = self._clock.now()
        if not self._shared or now < self._next_sweep:
            return
        self._next_sweep = now + SWEEP_EVERY_S
        for record in await self._store.recent(limit=RECOVER_RECENT):
            decided = record.decided_at if record.decided_at is not None else record.created_at
            if unannounced(record) and decided < now - SWEEP_EVERY_S:
                self._start(record.id, recovering=False)  # a lapsed lease says: look first

    def _start(self, ask_id: str, *, recovering: bool) -> None:
        if ask_id in self._busy:
            return
        self._busy.add(ask_id)
        if self._tasks.spawn(self._place(ask_id, recovering), name=f"announce {ask_id}") is None:
            self._busy.discard(ask_id)

    async def _place(self, ask_id: str, recovering: bool) -> None:
        """Find (or open) where the line goes, then queue it in that channel's lane."""
        record = await self._store.get(ask_id)
        if record is None or not unannounced(record):
            self._busy.discard(ask_id)
            return
        try:
            where = await self._where(record)
        except (SlackCallFailed, NoChannel) as failed:
            self._busy.discard(ask_id)
            log.warning("ask %s: its automatic decision was not told: %s", ask_id, failed)
            return
        self._lines.queue(
            record, where, partial(self._tell, ask_id, where, recovering), self._queued
        )

    def _queued(self, work: Coroutine[Any, Any, None]) -> object | None:
        started = self._tasks.spawn_queued(work)
        if started is None:
            self._busy.clear()  # shutting down: every line left is posted at the next start
        return started

    async def _tell(
        self, ask_id: str, where: ThreadRef, recovering: bool, turn: QueuedTurn
    ) -> None:
        """On the line's turn in its channel: post it, under the ask's posting lease (two
        replicas never post one line), and record it. `recovering`: it may be in Slack
        unrecorded, so it is looked for first."""
        try:
            await self._tell_leased(ask_id, where, recovering, turn)
        finally:
            self._busy.discard(ask_id)

    async def _tell_leased(
        self, ask_id: str, where: ThreadRef, recovering: bool, turn: QueuedTurn
    ) -> None:
        async with self._leases.hold(LeaseKind.POST, ask_id, LINE_LEASE_S) as lease:
            if lease is None:
                return  # another replica is posting it
            record = await self._store.get(ask_id)  # read under the lease: it may be done
            if record is None or not unannounced(record):
                return
            grant = await self._grant_of(record)
            granter = (
                await self._users.handle_of(grant.granted_by)
                if grant is not None and self._users is not None
                else None
            )
            content = automatic_line(record, grant, granter)
            if content is None:
                return
            try:
                look = recovering or lease.lapsed is not None
                found = await self._lines.find(record, where) if look else None
                ts = found or await self._lines.post(record, where, content, on=turn)
            except Dropped:
                return  # shutting down: posted at the next start
            except SlackCallFailed as failed:
                log.warning("ask %s: its automatic decision was not told: %s", ask_id, failed)
                return
            told = record.evolve(
                channel=where.channel, thread_ts=where.thread_ts, message_ts=[ts], shown=True
            )
            event = AskEvent(
                ask_id=ask_id,
                at=self._clock.now(),
                kind=EventKind.SHOWN,
                actor=record.decided_by,
                detail=f"told in the thread at {ts}" + (" (found after a crash)" if found else ""),
            )
            await self._store.save(told, event)
            self._observers.saved(told, event)

    async def _where(self, record: AskRecord) -> ThreadRef:
        """Where the line goes: the ask's route, else its session's thread (opened if new)."""
        if record.channel is not None:
            return ThreadRef(channel=record.channel, thread_ts=record.thread_ts)
        return await self._threads.for_session(record.agent_id, record.agent_name, ask_id=record.id)

    async def _grant_of(self, record: AskRecord) -> Grant | None:
        decider = auto_decider(record.decided_by)
        if decider is None or decider.kind != "grant":
            return None
        return next((g for g in await self._store.grants() if g.id == decider.name), None)
