"""The life of an ask: stored, posted, waited on, settled once — whoever settles it.

Every way an ask can end (bot/outcomes.py: an answer, a withdrawal, a closed form, a Slack
failure…) goes through `settle()`, which lets only the first one through, saves it with the
state, event and error its ending names, wakes the waiters and then shows it in Slack.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

from bot.asks.reply_index import ReplyIndex
from bot.asks.waiters import Waiters
from bot.clock import Clock, SystemClock
from bot.outcomes import ENDINGS, Verdict
from bot.render import AskLayout, Unshowable, lay_out
from bot.slack.api import SlackCallFailed
from bot.slack.messages import AskMessages
from bot.slack.pacing import Dropped
from bot.slack.threads import NoChannel, Threads
from bot.store import (
    AskEvent,
    AskRecord,
    AskState,
    AskStore,
    EventKind,
    ThreadRef,
    compact_questions,
)
from bot.store.leases import LeaseKind, Leases
from bot.tasks import Tasks
from provider import (
    AskUserQuestionAnswer,
    AskUserQuestionRequest,
    ErrorCode,
    UserQuestionError,
)

log = logging.getLogger(__name__)

# When to try again (seconds after the first try): a refused final update, a deferred post.
RETRY_AFTER = (5.0, 30.0, 120.0)
RESHOW_RECENT = 200
# How long a replica may take to post an ask before another may take the work over.
POST_LEASE_S = 30.0
# How often a progress save re-reads and re-applies its change when another write came first.
ADVANCE_TRIES = 5

# A change of an open ask's progress, applied to the freshest record; None: nothing to do.
Change = Callable[[AskRecord], AskRecord | None]


@dataclass(eq=False, slots=True)
class LiveAsk:
    """A pending ask in memory: its record and its layout (who waits for it waits in
    `Waiters`, made only then). Slotted: thousands may be pending at once."""

    record: AskRecord
    layout: AskLayout
    deciding: bool = False
    # Taken back from the store after a restart: a part may be posted but not recorded.
    recovering: bool = False
    # Its post waits in its channel's queue (`post_soon`), holding no task.
    queued: bool = False
    _posting: asyncio.Lock | None = None

    @property
    def posting(self) -> asyncio.Lock:
        """Held while parts are posted, so a settlement waits for every message it must
        update (made when first needed: a queued ask has none)."""
        if self._posting is None:
            self._posting = asyncio.Lock()
        return self._posting


class _QueuedPost:
    """The work of an ask queued in its channel (one per queued ask: two slots)."""

    __slots__ = ("asks", "live")

    def __init__(self, asks: Asks, live: LiveAsk) -> None:
        self.asks = asks
        self.live = live

    def __call__(self) -> Awaitable[None]:
        return self.asks._post_queued(self.live)


@dataclass(frozen=True)
class _Deferred:
    """Posting waits: Slack could not tell us whether the ask was already posted."""

    why: SlackCallFailed


def new_ask_id() -> str:
    """A fresh, unguessable ask id (short: it travels in every button value)."""
    return secrets.token_hex(8)


def error_of(record: AskRecord) -> UserQuestionError:
    """The seam error a failed ask stands for."""
    assert record.error is not None
    return UserQuestionError(record.error.code, record.error.message)


class PostedListener(Protocol):
    """Told when an ask is fully posted (deadlines start their timers here)."""

    def posted(self, asks: Asks, live: LiveAsk) -> None:
        """`live` is in Slack now, every part of it; `asks` holds it."""
        ...


class Asks:
    """Creates, tracks and settles asks; the one place their state changes.

    Its collaborators are given, not reached through: the store keeps asks, `threads` says
    where a session posts, `messages` is all Slack I/O of an ask, `listener` hears of posts.
    """

    def __init__(
        self,
        *,
        store: AskStore,
        threads: Threads,
        messages: AskMessages,
        clock: Clock | None = None,
        tasks: Tasks | None = None,
        listener: PostedListener | None = None,
        leases: Leases,
        waiters: Waiters | None = None,
        shared: bool = False,
    ) -> None:
        self._store = store
        self._threads = threads
        self._messages = messages
        self._clock: Clock = clock or SystemClock()
        self._tasks = tasks if tasks is not None else Tasks()  # an empty Tasks is falsy
        self._spawn = self._tasks.spawn  # one bound method for every queued post
        self._listener = listener
        self._live: dict[str, LiveAsk] = {}
        self.waiters = waiters or Waiters(store.get)
        self.leases = leases
        # Other processes write the same store: a live copy may be stale, so settling reads
        # the row first (progress saves are compare-and-set on every store anyway).
        self._shared = shared
        # What a thread reply and a new plan review look up, so neither scans every ask.
        self._replies = ReplyIndex()
        self._latest_plan: dict[str, str] = {}  # agent session → its latest plan review

    # --- reading ---------------------------------------------------------------------------

    def live(self, ask_id: str) -> LiveAsk | None:
        """The pending ask with this id, if it is still open."""
        return self._live.get(ask_id)

    async def held(self, ask_id: str) -> LiveAsk | None:
        """The open ask with this id: the live copy, or one another replica made or posted
        (taken in hand from the store). None once it has ended."""
        live = self._live.get(ask_id)
        if live is not None:
            return live
        record = await self._store.get(ask_id)
        if record is None or record.settled:
            return None
        self._take(record)
        return self._live.get(ask_id)

    def reply_target(self, channel: str, thread_ts: str) -> LiveAsk | None:
        """The open lone text question a reply in this thread answers (the newest there)."""
        ask_id = self._replies.newest(channel, thread_ts)
        return self._live.get(ask_id) if ask_id is not None else None

    def _file_for_replies(self, live: LiveAsk) -> None:
        record, questions = live.record, live.layout.questions
        if record.channel is None or len(questions) != 1 or questions[0].has_options:
            return
        for thread_ts in (record.thread_ts, *record.message_ts[:1]):
            if thread_ts is not None:
                self._replies.file(record.id, record.created_at, record.channel, thread_ts)

    async def record(self, ask_id: str) -> AskRecord | None:
        """The ask as it stands now: the live copy while open, else the stored one."""
        live = self._live.get(ask_id)
        return live.record if live is not None else await self._store.get(ask_id)

    async def stored(self, ask_id: str) -> AskRecord | None:
        """The ask as last saved (the store is the truth others read)."""
        return await self._store.get(ask_id)

    async def recent(self, *, state: AskState | None = None, limit: int = 50) -> list[AskRecord]:
        """Stored asks newest first, optionally only in one state."""
        return await self._store.recent(state=state, limit=limit)

    # --- creating --------------------------------------------------------------------------

    async def open(
        self,
        request: AskUserQuestionRequest,
        *,
        agent_id: str | None = None,
        agent_name: str | None = None,
        idempotency_key: str | None = None,
        route: ThreadRef | None = None,
        ask_id: str | None = None,
    ) -> AskRecord:
        """Store the ask, then post it; `ASK_FAILED` if Slack cannot show it or refuses it."""
        record, _ = await self.create(
            request,
            agent_id=agent_id,
            agent_name=agent_name,
            idempotency_key=idempotency_key,
            route=route,
            ask_id=ask_id,
        )
        return await self.post(record.id)

    async def create(
        self,
        request: AskUserQuestionRequest,
        *,
        agent_id: str | None = None,
        agent_name: str | None = None,
        idempotency_key: str | None = None,
        route: ThreadRef | None = None,
        ask_id: str | None = None,
    ) -> tuple[AskRecord, bool]:
        """Store the ask without posting it (stored before shown). A request Slack cannot
        show is refused here, stored nowhere; a known idempotency key returns its ask.
        The flag says whether this call created the ask."""
        # Kept while the ask is pending, by its record and its layout: compact.
        questions = AskUserQuestionRequest(questions=compact_questions(request.questions))
        try:
            layout = lay_out(questions)
        except Unshowable as error:
            raise UserQuestionError(
                ErrorCode.ASK_FAILED, f"Slack cannot show this ask: {error}", cause=error
            ) from error
        revises = await self._declined_plan(agent_id) if layout.plan_review else None
        record, created = await self._store.add(
            AskRecord(
                id=ask_id or new_ask_id(),
                questions=questions.questions,
                created_at=self._clock.now(),
                agent_id=agent_id,
                agent_name=agent_name,
                idempotency_key=idempotency_key,
                channel=route.channel if route else None,
                thread_ts=route.thread_ts if route else None,
                revision=revises.revision + 1 if revises else 1,
                revises=revises.id if revises else None,
            )
        )
        if created:
            self._live[record.id] = live = LiveAsk(record, layout)
            self._file_for_replies(live)
            if layout.plan_review and agent_id is not None:
                self._latest_plan[agent_id] = record.id
        else:
            self._take(record)
        return record, created

    async def _declined_plan(self, agent_id: str | None) -> AskRecord | None:
        """The agent session's latest plan review, if it ended without approval."""
        if agent_id is None:
            return None
        known = self._latest_plan.get(agent_id)
        if known is not None:
            latest = await self._store.get(known)
            if latest is not None:
                return None if latest.approved or not latest.settled else latest
        # Not made since this process started (a restart): look among the recent asks.
        for record in await self._store.recent(limit=200):
            if record.agent_id != agent_id or not record.is_plan_review:
                continue
            return None if record.approved or not record.settled else record
        return None

    async def post(self, ask_id: str) -> AskRecord:
        """Post every part of the ask not yet posted (none twice); `ASK_FAILED` on refusal."""
        live = self._live.get(ask_id)
        if live is None:
            record = await self._store.get(ask_id)
            if record is None:
                raise KeyError(ask_id)
            return record
        await self._post(live)
        return live.record

    def post_soon(self, ask_id: str) -> None:
        """Post the ask in the background, in its channel's queue: it holds no task while it
        waits its turn (10,000 queued asks are 10,000 queue entries). A failure settles it
        as `ASK_FAILED` (and is logged); nothing to do for an ask posted, queued or ended."""
        live = self._live.get(ask_id)
        if live is None or live.queued or live.deciding:
            return
        if len(live.record.message_ts) == len(live.layout.parts):
            return
        live.queued = True
        if live.record.channel is not None:
            self._queue(live)
        else:
            self._tasks.spawn(self._place_and_queue(live), name=f"place {ask_id}")

    async def _place_and_queue(self, live: LiveAsk) -> None:
        # Where the session posts, first (its thread may need a root); then into the queue.
        try:
            await self._place(live)
        except (SlackCallFailed, NoChannel) as failure:
            live.queued = False
            with contextlib.suppress(UserQuestionError):
                await self._posting_ended(live, failure)
            return
        if self._live.get(live.record.id) is not live or live.deciding:
            live.queued = False
            return
        self._queue(live)

    def _queue(self, live: LiveAsk) -> None:
        self._messages.queue_post(live.record, _QueuedPost(self, live), self._spawn)

    async def _post_queued(self, live: LiveAsk) -> None:
        # Its turn in the channel has come: the first part goes on it. Nobody awaits this
        # work: a failure settles the ask as failed, and that is logged with its ending.
        live.queued = False
        if self._live.get(live.record.id) is not live or live.deciding:
            return
        with contextlib.suppress(UserQuestionError):
            await self._post(live)

    async def _place(self, live: LiveAsk) -> None:
        """Give the ask the channel and thread of its session (opening the thread)."""
        record = live.record
        if record.channel is not None:
            return
        where = await self._threads.for_session(
            record.agent_id, record.agent_name, ask_id=record.id
        )
        if live.record.channel is None:
            live.record = live.record.evolve(channel=where.channel, thread_ts=where.thread_ts)
            self._file_for_replies(live)

    async def recover(self) -> list[AskRecord]:
        """After a restart: take every pending ask back in hand, and show the decision of
        recent asks whose message never got to show it. What was never posted is queued in
        its channel (`post_soon`: in creation order, each under its posting lease when its
        turn comes): this returns once the asks are in hand, without waiting for Slack's
        posting rate (1,000 unposted asks in one channel take ~17 minutes to post)."""
        for record in await self._store.recent(limit=RESHOW_RECENT):
            if record.settled and not record.shown and record.message_ts:
                await self.show(LiveAsk(record, lay_out(record.request)))
        resumed = []
        for record in await self._store.pending():
            self._take(record)
            live = self._live.get(record.id)
            if live is not None:
                resumed.append(live.record)
                self._resume(live)
        return resumed

    def _resume(self, live: LiveAsk) -> None:
        # An ask taken in hand: what is not posted yet is queued; a fully posted one is
        # told to the listener (its deadlines start again).
        if len(live.record.message_ts) < len(live.layout.parts):
            self.post_soon(live.record.id)
        elif self._listener is not None and not live.deciding:
            self._listener.posted(self, live)

    def _take(self, record: AskRecord) -> None:
        if not record.settled and record.id not in self._live:
            self._live[record.id] = live = LiveAsk(record, lay_out(record.request), recovering=True)
            self._file_for_replies(live)

    async def _post(self, live: LiveAsk) -> None:
        """Post every part not yet posted; on failure the ask fails with Slack's error.

        Under the ask's posting lease, so two replicas never post one ask: the one without
        it leaves the work to the holder (or, if the holder dies, to whoever sweeps next)."""
        async with self.leases.hold(LeaseKind.POST, live.record.id, POST_LEASE_S) as lease:
            if lease is None:
                return
            async with live.posting:
                if lease.lapsed is not None:
                    live.recovering = True  # its holder died: a part may be in Slack already
                if self._shared and not await self._catch_up(live):
                    return  # it ended elsewhere while it waited
                failure = await self._post_parts(live)
        await self._posting_ended(live, failure)

    async def _catch_up(self, live: LiveAsk) -> bool:
        """Read the ask again before deciding which parts remain: while this copy waited
        its turn, another replica may have posted and recorded parts (and released the
        lease). False if it ended elsewhere. A place given here and not yet saved is kept."""
        placed = live.record
        if not await self._refresh(live):
            return False
        if live.record.channel is None and placed.channel is not None:
            live.record = live.record.evolve(channel=placed.channel, thread_ts=placed.thread_ts)
        return True

    async def _posting_ended(
        self, live: LiveAsk, failure: SlackCallFailed | NoChannel | _Deferred | None
    ) -> None:
        if failure is None:
            if self._listener is not None and live.record.id in self._live and not live.deciding:
                self._listener.posted(self, live)
            return
        if isinstance(failure, _Deferred):
            log.warning("ask %s stays pending until Slack answers: %s", live.record.id, failure.why)
            self._tasks.spawn(self._post_later(live), name=f"post later {live.record.id}")
            return
        await self.settle(live.record.id, Verdict.FAILED, reason=str(failure))
        raise UserQuestionError(ErrorCode.ASK_FAILED, str(failure), cause=failure) from failure

    async def _post_parts(self, live: LiveAsk) -> SlackCallFailed | NoChannel | _Deferred | None:
        try:
            await self._place(live)
            record = live.record
            for part in range(len(record.message_ts), len(live.layout.parts)):
                if live.deciding:
                    return None  # settled while it waited to be posted: nothing more to show
                if part < len(live.record.message_ts):
                    continue  # recorded by another replica meanwhile (`_record_post`)
                try:
                    ts = await self._messages.find(record, part) if live.recovering else None
                except SlackCallFailed as unknown:
                    # We cannot tell whether it was posted: posting now could show it twice.
                    return _Deferred(unknown)
                if ts is None:
                    ts = await self._messages.post(live.record, live.layout, part)
                if not await self._record_post(live, part, ts):
                    return None  # settled meanwhile (withdrawn, answered elsewhere)
                record = live.record
                self._file_for_replies(live)
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
            event = self.event(record, EventKind.POSTED, detail=f"part {part} at {ts}")
            if await self._store.advance(record, event):
                live.record = record
                return True
            if not await self._refresh(live):
                return False
        raise RuntimeError(f"ask {live.record.id}: part {part} at {ts} could not be recorded")

    async def _post_later(self, live: LiveAsk) -> None:
        start = self._clock.now()
        for delay in RETRY_AFTER:
            await self._clock.sleep_until(start + delay)
            if live.record.id not in self._live:
                return
            try:
                await self._post(live)
            except UserQuestionError:
                return  # it failed for good, and says so
            if len(live.record.message_ts) == len(live.layout.parts):
                return

    async def save_progress(
        self,
        live: LiveAsk,
        kind: EventKind,
        change: Change,
        *,
        actor: str | None = None,
        detail: str = "",
        show: tuple[int, ...] = (),
    ) -> AskRecord | None:
        """Apply `change` to the open ask and save it (re-rendering parts `show`) — unless it
        is being settled or has ended. The saved record, or None if nothing was saved.

        Under the settlement's lock, and compare-and-set in the store (`advance`): a save
        never lands over a decision, and when another replica saved first, the change is
        applied again to its record, so two part answers never lose one."""
        for _ in range(ADVANCE_TRIES):
            async with live.posting:
                if live.deciding or self._live.get(live.record.id) is not live:
                    return None
                changed = change(live.record)
                if changed is None:
                    return None
                record = changed.model_copy(update={"version": live.record.version + 1})
                if await self._store.advance(
                    record, self.event(record, kind, actor=actor, detail=detail)
                ):
                    live.record = record
                    for part in show:
                        view = await self._messages.open_view(record, live.layout, part)
                        await self._messages.update(record, part, view)
                    return record
            if not await self._refresh(live):
                return None
        log.error("ask %s: gave up saving %s after %d tries", live.record.id, kind, ADVANCE_TRIES)
        return None

    async def _refresh(self, live: LiveAsk) -> bool:
        """Read the ask again (another replica wrote it); False if it has ended, and then
        it is dropped here and its waiters get the record."""
        record = await self._store.get(live.record.id)
        if record is None or record.settled:
            self._ended(live, record or live.record)
            return False
        live.record = record
        return True

    def _ended(self, live: LiveAsk, record: AskRecord) -> None:
        """`live` has ended (here or elsewhere, as `record` says): stop holding it."""
        live.record = record
        if self._live.get(record.id) is live:
            del self._live[record.id]
        self._replies.remove(record.id)
        if record.settled:
            self.waiters.settled(record)  # handed over: no waiter reads it again
        else:
            self.waiters.changed(record.id)  # gone from the store: they read and see

    async def sweep(self) -> None:
        """Take in hand what other replicas leave: pending asks not yet (fully) posted are
        queued in their channel (posted once: under their lease, when their turn comes), and
        copies of asks that ended elsewhere dropped. Replicas sharing a store run this
        periodically; it does not wait for the posts."""
        pending = {record.id: record for record in await self._store.pending()}
        for live in list(self._live.values()):
            if live.record.id not in pending and not live.deciding:
                await self._refresh(live)
        for record in pending.values():
            self._take(record)
            held = self._live.get(record.id)
            if held is None or held.deciding or held.queued:
                continue  # (a queued ask is posted on its turn in its channel)
            if record.version > held.record.version:
                held.record = record
            self._resume(held)

    # --- waiting ---------------------------------------------------------------------------

    async def wait(self, ask_id: str) -> AskRecord:
        """The ask once settled (at once if it already is), by whichever replica.
        `KeyError` for an unknown id.

        In one process an open ask is settled only here, and its settle hands the record
        to the waiter: nothing is read. With replicas the waiter reads the store, and
        another replica's settle wakes it by notification."""
        return await self.waiters.wait(ask_id, held=not self._shared and ask_id in self._live)

    # --- settling --------------------------------------------------------------------------

    def claim(self, ask_id: str) -> LiveAsk | None:
        """Take the right to settle `ask_id`; None if it is settled or being settled.

        Synchronous on purpose: between two awaits only one handler can claim an ask, so
        the first valid answer wins however many people click at once.
        """
        live = self._live.get(ask_id)
        if live is None or live.deciding:
            return None
        live.deciding = True
        return live

    async def settle(
        self,
        ask_id: str,
        verdict: Verdict,
        *,
        actor: str | None = None,
        answer: AskUserQuestionAnswer | None = None,
        reason: str | None = None,
        detail: str | None = None,
        claimed: LiveAsk | None = None,
        show_later: bool = False,
    ) -> bool:
        """End the ask as `verdict` (if nobody did first), save it, wake waiters, update Slack.

        The one way an ask ends. `reason` is shown to people; `detail` (default: the reason)
        completes the seam error the ending gives the agent. An answer goes with `ANSWERED`.
        `show_later`: return once the ending is saved and the waiters woken, and update Slack
        in a tracked task (a click decided before its ack must not make the ack wait for it).
        """
        if (answer is not None) != (verdict is Verdict.ANSWERED):
            raise ValueError(f"an ask ends {verdict} {'without' if answer else 'with'} an answer")
        live = claimed or self.claim(ask_id)
        if live is None:
            return False
        if len(live.record.message_ts) < len(live.layout.parts):
            # A post still waiting for its channel's turn is not made (the lock comes free).
            self._messages.drop_queued(live.record)
        async with live.posting:
            return await self._settle(
                live, verdict, actor, answer, reason, detail or reason, show_later=show_later
            )

    async def _settle(
        self,
        live: LiveAsk,
        verdict: Verdict,
        actor: str | None,
        answer: AskUserQuestionAnswer | None,
        reason: str | None,
        detail: str | None,
        *,
        show_later: bool = False,
    ) -> bool:
        ending = ENDINGS[verdict]
        if self._shared and not await self._refresh(live):
            return False  # another replica ended it
        record = live.record.model_copy(
            update={
                "state": ending.state,
                "verdict": verdict,
                "answer": answer,
                "error": ending.error(detail),
                "decided_by": actor,
                "decided_at": self._clock.now(),
                "reason": reason,
            }
        )
        try:
            won = await self._store.settle(
                record, self.event(record, ending.event, actor=actor, detail=reason or "")
            )
        except BaseException:
            live.deciding = False  # nothing was decided: let the next answer try
            raise
        if not won:
            # Another replica settled it first: its record is the truth, and it shows it.
            await self._refresh(live)
            return False
        self._ended(live, record)

        async def show_or_retry() -> None:
            if not await self.show(live):
                await self._reshow(live)

        if show_later:
            # Spawned after the wake-up, so the waiting agent runs first.
            self._tasks.spawn(show_or_retry(), name=f"show {record.id}")
            return True
        # Wake first, then show: the waiting agent runs before the decided message is
        # rendered and sent (the answer is already saved; showing it is for people).
        await asyncio.sleep(0)
        if not await self.show(live):
            self._tasks.spawn(self._reshow(live), name=f"reshow {record.id}")
        return True

    async def show(self, live: LiveAsk) -> bool:
        """Replace the controls of every posted part with the settlement; once every part
        shows it, the record is marked `shown`. False if Slack refused an update."""
        record = live.record
        shown = await self._messages.show_decision(record, live.layout)
        if shown and record.settled and not record.shown:
            live.record = record.model_copy(update={"shown": True})
            await self._store.save(
                live.record, self.event(live.record, EventKind.SHOWN, actor=record.decided_by)
            )
        return shown

    async def _reshow(self, live: LiveAsk) -> None:
        start = self._clock.now()
        for delay in RETRY_AFTER:
            await self._clock.sleep_until(start + delay)
            if await self.show(live):
                return
        log.error(
            "ask %s: its message still shows controls; it is re-shown at restart", live.record.id
        )

    def event(
        self, record: AskRecord, kind: EventKind, *, actor: str | None = None, detail: str = ""
    ) -> AskEvent:
        """An event of `record`, stamped now."""
        return AskEvent(
            ask_id=record.id, at=self._clock.now(), kind=kind, actor=actor, detail=detail
        )

    async def note(self, ask_id: str, kind: EventKind, actor: str | None, detail: str) -> None:
        """Log an event that changes nothing (a refused click, a late answer)."""
        await self._store.log(
            AskEvent(ask_id=ask_id, at=self._clock.now(), kind=kind, actor=actor, detail=detail)
        )
