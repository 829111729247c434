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

Known gap: a replica that dies with lines unposted leaves them to the next replica that
*starts* (`recover`); the periodic sweep looks for unposted asks, not for these lines.
"""

from __future__ import annotations

import logging
from typing import Final

from bot.asks.observers import AskObserver, Observers
from bot.clock import Clock
from bot.render.automatic import automatic_line
from bot.review import auto_decider
from bot.slack.api import SlackCallFailed
from bot.slack.lines import ThreadLines
from bot.slack.pacing import Dropped
from bot.slack.threads import NoChannel, Threads
from bot.store import AskEvent, AskRecord, AskStore, EventKind, Grant, ThreadRef
from bot.store.leases import LeaseKind, Leases
from bot.tasks import Tasks

log = logging.getLogger("bot.asks.lifecycle")

# How many recent asks a restart looks through for a line never posted.
RECOVER_RECENT: Final = 200
# How long a replica may take to post a line before another may take the work over.
LINE_LEASE_S: Final = 30.0


def unannounced(record: AskRecord) -> bool:
    """Whether `record` was decided by a rule or a grant and its line is not posted yet."""
    return record.settled and not record.shown and auto_decider(record.decided_by) is not None


class Announcements(AskObserver):
    """Posts the thread line of each automatic decision once it is stored; `recover` posts
    those a crash left unposted."""

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
    ) -> None:
        self._store = store
        self._threads = threads
        self._lines = lines
        self._leases = leases
        self._tasks = tasks
        self._clock = clock
        self._observers = observers

    def saved(self, record: AskRecord, event: AskEvent) -> None:
        """See `AskObserver.saved`: a rule's or grant's settlement gets its line, later."""
        if event.kind is EventKind.ANSWERED and unannounced(record):
            self._tasks.spawn(self.announce(record.id), name=f"announce {record.id}")

    async def recover(self) -> None:
        """After a restart: post the line of each recent automatic decision that has none,
        each in the background (in its channel's turn), looking for it in Slack first."""
        for record in await self._store.recent(limit=RECOVER_RECENT):
            if unannounced(record):
                self._tasks.spawn(
                    self.announce(record.id, recovering=True), name=f"announce {record.id}"
                )

    async def announce(self, ask_id: str, *, recovering: bool = False) -> bool:
        """Post the ask's line unless it is posted (or another replica posts it now); True
        if this call posted or found it. A failure is logged and left to the next start.
        `recovering`: it may be in Slack unrecorded, so it is looked for first."""
        async with self._leases.hold(LeaseKind.POST, ask_id, LINE_LEASE_S) as lease:
            if lease is None:
                return False  # another replica is posting it
            record = await self._store.get(ask_id)  # read under the lease: it may be done
            if record is None or not unannounced(record):
                return False
            content = automatic_line(record, await self._grant_of(record))
            if content is None:
                return False
            try:
                where = await self._where(record)
                found = (
                    await self._lines.find(record, where)
                    if recovering or lease.lapsed is not None
                    else None
                )
                ts = found or await self._lines.post(record, where, content)
            except Dropped:
                return False  # shutting down: posted at the next start
            except (SlackCallFailed, NoChannel) as failed:
                log.warning("ask %s: its automatic decision was not told: %s", ask_id, failed)
                return False
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
            return True

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
