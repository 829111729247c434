"""The life of an ask: stored, posted, waited on, settled once — whoever settles it.

Every way an ask can end (bot/outcomes.py: an answer, a withdrawal, a closed form, a Slack
failure…) goes through `settle()`, which lets only the first one through, saves it with the
state, event and error its ending names, wakes the waiters and then shows it in Slack.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from dataclasses import dataclass, field
from typing import Protocol

from provider import (
    AskUserQuestionAnswer,
    AskUserQuestionRequest,
    ErrorCode,
    UserQuestionError,
)

from .ask_messages import AskMessages
from .channel_pacing import Dropped
from .clock import Clock, SystemClock
from .outcomes import ENDINGS, Verdict
from .render import AskLayout, Unshowable, lay_out
from .reply_index import ReplyIndex
from .slack_api import SlackCallFailed
from .store import (
    AskEvent,
    AskRecord,
    AskState,
    AskStore,
    EventKind,
    ThreadRef,
)
from .tasks import Tasks
from .threads import NoChannel, Threads

log = logging.getLogger(__name__)

# When to try again (seconds after the first try): a refused final update, a deferred post.
RETRY_AFTER = (5.0, 30.0, 120.0)
RESHOW_RECENT = 200


@dataclass(eq=False, slots=True)
class LiveAsk:
    """A pending ask in memory: its record, its layout, and an event set once it settles.
    Slotted: thousands may be pending at once."""

    record: AskRecord
    layout: AskLayout
    settled: asyncio.Event = field(default_factory=asyncio.Event)
    deciding: bool = False
    # Held while parts are posted, so a settlement waits for every message it must update.
    posting: asyncio.Lock = field(default_factory=asyncio.Lock)
    # Taken back from the store after a restart: a part may be posted but not recorded.
    recovering: bool = False


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
    ) -> None:
        self._store = store
        self._threads = threads
        self._messages = messages
        self._clock: Clock = clock or SystemClock()
        self._tasks = tasks or Tasks()
        self._listener = listener
        self._live: dict[str, LiveAsk] = {}
        # What a thread reply and a new plan review look up, so neither scans every ask.
        self._replies = ReplyIndex()
        self._latest_plan: dict[str, str] = {}  # agent session → its latest plan review

    # --- reading ---------------------------------------------------------------------------

    def live(self, ask_id: str) -> LiveAsk | None:
        """The pending ask with this id, if it is still open."""
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
        try:
            layout = lay_out(request)
        except Unshowable as error:
            raise UserQuestionError(
                ErrorCode.ASK_FAILED, f"Slack cannot show this ask: {error}", cause=error
            ) from error
        revises = await self._declined_plan(agent_id) if layout.plan_review else None
        record, created = await self._store.add(
            AskRecord(
                id=ask_id or new_ask_id(),
                questions=request.questions,
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

    async def recover(self) -> list[AskRecord]:
        """After a restart: take every pending ask back in hand, posting what never was,
        and show the decision of recent asks whose message never got to show it."""
        for record in await self._store.recent(limit=RESHOW_RECENT):
            if record.settled and not record.shown and record.message_ts:
                await self.show(LiveAsk(record, lay_out(record.request)))
        resumed = []
        for record in await self._store.pending():
            self._take(record)
            try:
                resumed.append(await self.post(record.id))
            except UserQuestionError:
                log.exception("ask %s could not be posted after the restart", record.id)
        return resumed

    def _take(self, record: AskRecord) -> None:
        if not record.settled and record.id not in self._live:
            self._live[record.id] = live = LiveAsk(record, lay_out(record.request), recovering=True)
            self._file_for_replies(live)

    async def _post(self, live: LiveAsk) -> None:
        """Post every part not yet posted; on failure the ask fails with Slack's error."""
        async with live.posting:
            failure = await self._post_parts(live)
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
            record = live.record
            if record.channel is None:
                where = await self._threads.for_session(
                    record.agent_id, record.agent_name, ask_id=record.id
                )
                record = record.model_copy(
                    update={"channel": where.channel, "thread_ts": where.thread_ts}
                )
                live.record = record
                self._file_for_replies(live)
            for part in range(len(record.message_ts), len(live.layout.parts)):
                if live.deciding:
                    return None  # settled while it waited to be posted: nothing more to show
                try:
                    ts = await self._messages.find(record, part) if live.recovering else None
                except SlackCallFailed as unknown:
                    # We cannot tell whether it was posted: posting now could show it twice.
                    return _Deferred(unknown)
                if ts is None:
                    ts = await self._messages.post(live.record, live.layout, part)
                record = live.record.model_copy(
                    update={"message_ts": [*live.record.message_ts, ts]}
                )
                live.record = record
                self._file_for_replies(live)
                await self._store.save(
                    record, self.event(record, EventKind.POSTED, detail=f"part {part} at {ts}")
                )
        except (SlackCallFailed, NoChannel) as error:
            return error
        except Dropped:
            return None  # withdrawn (or otherwise settled) while it waited its turn
        return None

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
        *,
        actor: str | None = None,
        detail: str = "",
        show: tuple[int, ...] = (),
    ) -> bool:
        """Save an open ask as it stands now (and re-render parts `show`) — unless it is being
        settled. Under the settlement's lock, and with the record read at save time, so a
        progress save never lands over a decision and never writes back a stale copy."""
        async with live.posting:
            if live.deciding or self._live.get(live.record.id) is not live:
                return False
            await self._store.save(
                live.record, self.event(live.record, kind, actor=actor, detail=detail)
            )
            for part in show:
                view = await self._messages.open_view(live.record, live.layout, part)
                await self._messages.update(live.record, part, view)
            return True

    # --- waiting ---------------------------------------------------------------------------

    async def wait(self, ask_id: str) -> AskRecord:
        """The ask once settled (at once if it already is). `KeyError` for an unknown id."""
        live = self._live.get(ask_id)
        if live is not None:
            await live.settled.wait()
            return live.record
        record = await self._store.get(ask_id)
        if record is None:
            raise KeyError(ask_id)
        return record

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
    ) -> bool:
        """End the ask as `verdict` (if nobody did first), save it, wake waiters, update Slack.

        The one way an ask ends. `reason` is shown to people; `detail` (default: the reason)
        completes the seam error the ending gives the agent. An answer goes with `ANSWERED`.
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
            await self._settle(live, verdict, actor, answer, reason, detail or reason)
        return True

    async def _settle(
        self,
        live: LiveAsk,
        verdict: Verdict,
        actor: str | None,
        answer: AskUserQuestionAnswer | None,
        reason: str | None,
        detail: str | None,
    ) -> None:
        ending = ENDINGS[verdict]
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
            await self._store.save(
                record, self.event(record, ending.event, actor=actor, detail=reason or "")
            )
        except BaseException:
            live.deciding = False  # nothing was decided: let the next answer try
            raise
        live.record = record
        del self._live[record.id]
        self._replies.remove(record.id)
        live.settled.set()
        # Wake first, then show: the waiting agent runs before the decided message is
        # rendered and sent (the answer is already saved; showing it is for people).
        await asyncio.sleep(0)
        if not await self.show(live):
            self._tasks.spawn(self._reshow(live), name=f"reshow {record.id}")

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
