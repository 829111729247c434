"""Posting an ask: every part in Slack once, in its channel's order, recorded as it goes.

An ask is placed first (its session's channel and thread, opening the thread if need be),
then posted now (`post`) or queued in its channel's lane (`post_soon`, holding no task while
it waits). Each part is posted under the ask's posting lease, so two replicas never post one
ask, and recorded with compare-and-set, so a part posted is never recorded twice. After a
restart (`recover`), and periodically on every store for what was left (`sweep`: a post whose
lease a dead process held, what other replicas leave), what is not fully posted is queued
again; a part that may already be in Slack is looked for before it is posted.
"""

from __future__ import annotations

import contextlib
import logging
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from bot.asks.lifecycle import ADVANCE_TRIES, RETRY_AFTER, Asks
from bot.asks.live import LiveAsk
from bot.asks.observers import Observers
from bot.clock import Clock
from bot.outcomes import Verdict
from bot.render import lay_out
from bot.review import auto_decider
from bot.slack.api import SlackCallFailed
from bot.slack.messages import AskMessages
from bot.slack.pacing import Dropped, QueuedTurn
from bot.slack.threads import NoChannel, Threads
from bot.store import AskRecord, AskStore, EventKind, ThreadRef
from bot.store.leases import LeaseKind, Leases
from bot.tasks import Tasks
from provider import ErrorCode, UserQuestionError

log = logging.getLogger("bot.asks.lifecycle")

RESHOW_RECENT = 200
# How long a replica may take to post an ask before another may take the work over.
POST_LEASE_S = 30.0


@dataclass(frozen=True)
class _Deferred:
    """Posting waits: Slack could not tell us whether the ask was already posted."""

    why: SlackCallFailed


_Failure = SlackCallFailed | NoChannel | _Deferred


class Posting:
    """Posts the asks `asks` holds, each part once; an ask Slack refuses fails (`settle`)."""

    def __init__(
        self,
        asks: Asks,
        *,
        store: AskStore,
        threads: Threads,
        messages: AskMessages,
        leases: Leases,
        clock: Clock,
        tasks: Tasks,
        shared: bool = False,
    ) -> None:
        self._asks = asks
        self._held = asks.held_asks
        self._observers: Observers = asks.observers
        self._store = store
        self._threads = threads
        self._messages = messages
        self._leases = leases
        self._clock = clock
        self._tasks = tasks
        # One bound method each for every queued post: an ask in its lane is one entry there.
        # (At shutdown it starts no more: what is still queued is posted at the next start.)
        self._spawn = tasks.spawn_queued
        self._on_turn = self._post_on_turn
        # Other processes post from the same store: read an ask again before posting it.
        self._shared = shared
        # Asks being posted, placed or waiting to be tried again (how many times each, as
        # those nest): the periodic pass leaves them alone.
        self._busy: Counter[str] = Counter()

    async def post(self, ask_id: str) -> AskRecord:
        """Post every part of the ask not yet posted (none twice); `ASK_FAILED` on refusal."""
        live = self._held.live(ask_id)
        if live is None:
            record = await self._store.get(ask_id)
            if record is None:
                raise KeyError(ask_id)
            return record
        with self._busy_with(live):
            await self._place(live)
            await self._post(live)
        return live.record

    @contextlib.contextmanager
    def _busy_with(self, live: LiveAsk) -> Iterator[None]:
        """Mark the ask as in this process's hands (the periodic pass skips it) meanwhile."""
        self._busy[live.record.id] += 1
        try:
            yield
        finally:
            self._done_with(live)

    def _done_with(self, live: LiveAsk) -> None:
        ask_id = live.record.id
        self._busy[ask_id] -= 1
        if not self._busy[ask_id]:
            del self._busy[ask_id]

    def post_soon(self, ask_id: str) -> None:
        """Post the ask in the background, in its channel's lane: it holds no task while it
        waits its turn (10,000 queued asks are 10,000 queue entries). A failure settles it
        as `ASK_FAILED` (and is logged); nothing to do for an ask posted, queued or ended."""
        live = self._held.live(ask_id)
        if live is None or live.in_lane or live.claimed or live.fully_posted:
            return
        live.in_lane = True
        if live.record.channel is not None:
            self._queue(live)
        else:
            self._tasks.spawn(self._place_and_queue(live), name=f"place {ask_id}")

    async def _place_and_queue(self, live: LiveAsk) -> None:
        # Where the session posts, first (its thread may need a root); then into the lane.
        try:
            await self._place(live)
        except UserQuestionError:
            live.in_lane = False  # it failed, and says so
            return
        if not self._held.holds(live) or live.claimed:
            live.in_lane = False
            return
        self._queue(live)

    def _queue(self, live: LiveAsk) -> None:
        self._messages.queue_post(live.record, self._on_turn, self._spawn)

    async def _post_on_turn(self, turn: QueuedTurn) -> None:
        # Its turn in the channel has come (the lane keys it by ask id): the first part goes
        # on it. Nobody awaits this work: a failure settles the ask as failed, and that is
        # logged with its ending.
        live = self._held.live(turn.key) if turn.key is not None else None
        if live is None:
            return
        live.in_lane = False
        if live.claimed:
            return
        with contextlib.suppress(UserQuestionError):
            await self._post(live, turn)

    async def _place(self, live: LiveAsk) -> None:
        """Give the ask the channel and thread of its session (opening the thread), once,
        before it is posted or queued; `ASK_FAILED` (the ask fails) if it has nowhere to go."""
        record = live.record
        if record.channel is not None:
            return
        try:
            where = await self._threads.for_session(
                record.agent_id, record.agent_name, ask_id=record.id
            )
        except (SlackCallFailed, NoChannel) as failure:
            await self._posting_ended(live, failure)
            return
        if live.record.channel is None:
            live.record = live.record.evolve(channel=where.channel, thread_ts=where.thread_ts)
            self._held.file_for_replies(live)

    async def recover(self) -> list[AskRecord]:
        """After a restart: take every pending ask back in hand, and show the decision of
        recent asks whose message never got to show it. What was never posted is queued in
        its channel (`post_soon`: in creation order, each under its posting lease when its
        turn comes): this returns once the asks are in hand, without waiting for Slack's
        posting rate (1,000 unposted asks in one channel take ~17 minutes to post). The
        observers hear which asks were taken back."""
        for record in await self._store.recent(limit=RESHOW_RECENT):
            if record.settled and not record.shown and auto_decider(record.decided_by) is None:
                # (A rule's or grant's decision has no card: `Announcements.recover` tells it.)
                # Its message may be in Slack unrecorded (settled by a click on it): looked for.
                ended = LiveAsk(record, lay_out(record.request), recovering=True)
                await self._asks.show(ended, where=await self._where_posted(record))
        resumed = []
        for record in await self._store.pending():
            live = self._held.take(record)
            if live is not None:
                resumed.append(live.record)
                self._resume(live)
        self._observers.recovered(resumed)
        return resumed

    async def _where_posted(self, record: AskRecord) -> ThreadRef | None:
        """Where the ask's message went if it was posted (a place given before a crash is
        saved with the first post only); None if it has no place (nothing was posted)."""
        if record.channel is not None:
            return ThreadRef(channel=record.channel, thread_ts=record.thread_ts)
        return await self._threads.known(record.agent_id)

    def _resume(self, live: LiveAsk) -> None:
        # An ask taken in hand: what is not posted yet is queued; a fully posted one is
        # told to the observers (its deadlines start again).
        if not live.fully_posted:
            self.post_soon(live.record.id)
        elif not live.claimed:
            self._observers.posted(live)

    async def _post(
        self, live: LiveAsk, turn: QueuedTurn | None = None, *, retry: bool = False
    ) -> None:
        """Post every part not yet posted; on failure the ask fails with Slack's error.
        `turn`: its lane's turn, when it was queued (its first post goes on it). `retry`:
        a try of `_post_later`, which tries again itself if Slack still cannot tell.

        Under the ask's posting lease, so two replicas never post one ask: the one without
        it leaves the work to the holder (or, if the holder dies, to whoever sweeps next)."""
        with self._busy_with(live):
            await self._post_leased(live, turn, retry)

    async def _post_leased(self, live: LiveAsk, turn: QueuedTurn | None, retry: bool) -> None:
        async with self._leases.hold(LeaseKind.POST, live.record.id, POST_LEASE_S) as lease:
            if lease is None:
                return  # the periodic pass tries again (the holder may have died)
            async with live.posting():
                if lease.lapsed is not None:
                    live.recovering = True  # its holder died: a part may be in Slack already
                if self._shared and not await self._catch_up(live):
                    return  # it ended elsewhere while it waited
                failure = await self._post_parts(live, turn)
        await self._posting_ended(live, failure, retry=retry)

    async def _catch_up(self, live: LiveAsk) -> bool:
        """Read the ask again before deciding which parts remain: while this copy waited
        its turn, another replica may have posted and recorded parts (and released the
        lease). False if it ended elsewhere. A place given here and not yet saved is kept."""
        placed = live.record
        if not await self._held.refresh(live):
            return False
        if live.record.channel is None and placed.channel is not None:
            live.record = live.record.evolve(channel=placed.channel, thread_ts=placed.thread_ts)
        return True

    async def _posting_ended(
        self, live: LiveAsk, failure: _Failure | None, *, retry: bool = False
    ) -> None:
        if failure is None:
            if self._held.live(live.record.id) is not None and not live.claimed:
                self._observers.posted(live)
            return
        if isinstance(failure, _Deferred):
            log.warning("ask %s stays pending until Slack answers: %s", live.record.id, failure.why)
            if retry:
                return  # its retries go on (one series of them, not one more per try)
            self._busy[live.record.id] += 1  # until its last try (`_post_later`)
            self._tasks.spawn(self._post_later(live), name=f"post later {live.record.id}")
            return
        await self._asks.settle(live.record.id, Verdict.FAILED, reason=str(failure))
        raise UserQuestionError(ErrorCode.ASK_FAILED, str(failure), cause=failure) from failure

    async def _post_parts(self, live: LiveAsk, turn: QueuedTurn | None) -> _Failure | None:
        try:
            record = live.record  # placed (`_place`) before it was posted or queued
            for part in range(len(record.message_ts), len(live.layout.parts)):
                if live.claimed:
                    return None  # settled while it waited to be posted: nothing more to show
                if part < len(live.record.message_ts):
                    continue  # recorded by another replica meanwhile (`_record_post`)
                try:
                    ts = await self._messages.find(record, part) if live.recovering else None
                except SlackCallFailed as unknown:
                    # We cannot tell whether it was posted: posting now could show it twice.
                    return _Deferred(unknown)
                if ts is None:
                    # (The turn serves the first post only: the lane takes it back then.)
                    ts = await self._messages.post(live.record, live.layout, part, on=turn)
                if not await self._record_post(live, part, ts):
                    # Settled elsewhere meanwhile (withdrawn, answered on another replica):
                    # the message just posted must not keep live buttons.
                    posted = live.record.evolve(message_ts=[*live.record.message_ts[:part], ts])
                    await self._asks.show(LiveAsk(posted, live.layout))
                    return None
                record = live.record
                self._held.file_for_replies(live)
        except (SlackCallFailed, NoChannel) as error:
            return error
        except Dropped:
            return None  # withdrawn (or otherwise settled) while it waited its turn
        return None

    async def _record_post(self, live: LiveAsk, part: int, ts: str) -> bool:
        """Save that part `part` is posted at `ts`; when another replica saved progress
        first, on its record. False if the ask ended meanwhile."""
        for _ in range(ADVANCE_TRIES):
            if part < len(live.record.message_ts):
                # Another replica recorded it first (a lease that lapsed mid-post): its ts
                # stands, and this one is never appended after it.
                if live.record.message_ts[part] != ts:
                    log.error(
                        "ask %s: part %s is in Slack twice (%s, %s)",
                        live.record.id,
                        part,
                        live.record.message_ts[part],
                        ts,
                    )
                return True
            record = live.record.evolve(
                message_ts=[*live.record.message_ts, ts], version=live.record.version + 1
            )
            event = self._asks.event(record, EventKind.POSTED, detail=f"part {part} at {ts}")
            if await self._store.advance(record, event):
                self._observers.saved(record, event)
                live.record = record
                return True
            if not await self._held.refresh(live):
                return False
        raise RuntimeError(f"ask {live.record.id}: part {part} at {ts} could not be recorded")

    async def _post_later(self, live: LiveAsk) -> None:
        # Meanwhile the periodic pass leaves it alone; after the last try it takes it up.
        try:
            await self._try_again(live)
        finally:
            self._done_with(live)

    async def _try_again(self, live: LiveAsk) -> None:
        start = self._clock.now()
        for delay in RETRY_AFTER:
            if not await self._tasks.wait_until(self._clock, start + delay):
                return  # shutting down: `recover` posts it at the next start
            if self._held.live(live.record.id) is None:
                return
            try:
                await self._post(live, retry=True)
            except UserQuestionError:
                return  # it failed for good, and says so
            if live.fully_posted:
                return

    async def sweep(self) -> None:
        """Post what was left unposted; run periodically on every store, it does not wait for
        the posts. Pending asks not yet (fully) posted, in no lane and not waiting to be
        tried again, are queued in their channel (posted once: under their lease, when their
        turn comes): an ask whose post lease was refused (a crashed process held it, under
        another name) is posted once that lease lapses.

        With replicas sharing the store it also takes in hand what other replicas left (an
        ask a dead replica never posted, an ask another replica created), and drops copies
        of asks that ended elsewhere. Alone on its store, this process holds every pending
        ask already: nothing is read."""
        if not self._shared:
            for live in self._held.all():
                if not (
                    live.fully_posted or live.claimed or live.in_lane or self._busy[live.record.id]
                ):
                    self.post_soon(live.record.id)
            return
        pending = {record.id: record for record in await self._store.pending()}
        for live in self._held.all():
            if live.record.id not in pending and not live.claimed:
                await self._held.refresh(live)
        for record in pending.values():
            held = self._held.take(record)
            if held is None or held.claimed or held.in_lane or self._busy[record.id]:
                continue  # (an ask in its lane is posted on its turn in its channel)
            if record.version > held.record.version:
                held.record = record
            self._resume(held)
