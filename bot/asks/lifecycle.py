"""The life of an ask: stored, waited on, settled once — whoever settles it.

Every way an ask can end (bot/outcomes.py: an answer, a withdrawal, a closed form, a Slack
failure…) goes through `settle()`, which lets only the first one through, saves it with the
state, event and error its ending names, wakes the waiters and then shows it in Slack.
Posting an ask is `Posting`'s (bot/asks/posting.py); who hears of each transition, the
`AskObserver`s' (bot/asks/observers.py).

Words: *claim* is the synchronous local pre-check (`claim`: one handler takes the right to
settle); *settle* is the one verb for an ask ending (the store's conditional update).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable, Collection

from bot.asks.automatic import AutoDecision, decide
from bot.asks.live import LiveAsk, LiveAsks
from bot.asks.observers import Observers
from bot.asks.waiters import Waiters
from bot.clock import Clock, SystemClock
from bot.outcomes import ENDINGS, Verdict
from bot.render import Unshowable, lay_out
from bot.render.layout import AskLayout
from bot.review import AskKind, ReviewPolicies, enforced_on_clicks, kind_of
from bot.slack.api import SlackCallFailed
from bot.slack.messages import AskMessages
from bot.store import (
    AskEvent,
    AskRecord,
    AskState,
    AskStore,
    EventKind,
    ThreadRef,
    compact_questions,
)
from bot.tasks import Tasks
from provider import (
    AskUserQuestionAnswer,
    AskUserQuestionRequest,
    ErrorCode,
    ToolApprovalIntent,
    UserQuestionError,
)

log = logging.getLogger(__name__)

# When to try again (seconds after the first try): a refused final update, a deferred post.
RETRY_AFTER = (5.0, 30.0, 120.0)
# How often a progress save re-reads and re-applies its change when another write came first.
ADVANCE_TRIES = 5

# A change of an open ask's progress, applied to the freshest record; None: nothing to do.
Change = Callable[[AskRecord], AskRecord | None]


def review_on_clicks(layout: AskLayout) -> AskKind | None:
    """The kind of review `layout` is when its own controls (Approve, Allow) count each click
    one by one, which is what lets a policy's approvals and refusals be enforced: a plan
    review's view, or a lone single-select tool-approval question. None otherwise (a form:
    its Submit answers everything at once)."""
    if layout.plan_review:
        return "plan-review"
    questions = layout.questions
    if (
        len(questions) == 1
        and isinstance(questions[0].question.intent, ToolApprovalIntent)
        and (layout.one_click or layout.tool_approval)
    ):
        return "tool-approval"
    return None


def new_ask_id() -> str:
    """A fresh, unguessable ask id (short: it travels in every button value)."""
    return secrets.token_hex(8)


def error_of(record: AskRecord) -> UserQuestionError:
    """The seam error a failed ask stands for."""
    assert record.error is not None
    return UserQuestionError(record.error.code, record.error.message)


class Asks:
    """Creates, tracks and settles asks; the one place their state changes.

    Its collaborators are given, not reached through: the store keeps asks, `messages` is
    all Slack I/O of an ask, `observers` hear of each transition once it is stored.
    """

    def __init__(
        self,
        *,
        store: AskStore,
        messages: AskMessages,
        observers: Observers | None = None,
        clock: Clock | None = None,
        tasks: Tasks | None = None,
        waiters: Waiters | None = None,
        shared: bool = False,
        policies: ReviewPolicies | None = None,
        channel: str | None = None,
    ) -> None:
        self._store = store
        # Each ask's review policy is chosen once, here, by its kind, agent and channel (the
        # route's, else `channel`, where unrouted asks are posted).
        self._policies = policies or ReviewPolicies()
        self._channel = channel
        self._messages = messages
        self.observers = observers if observers is not None else Observers()
        self._clock: Clock = clock or SystemClock()
        self._tasks = tasks if tasks is not None else Tasks()  # an empty Tasks is falsy
        self.waiters = waiters or Waiters(store.get)
        self.held_asks = LiveAsks(store.get, self.waiters)
        # Other processes write the same store: a live copy may be stale, so settling reads
        # the row first (progress saves are compare-and-set on every store anyway).
        self._shared = shared
        # What a new plan review looks up, so it never scans every ask.
        self._latest_plan: dict[str, str] = {}  # agent session → its latest plan review

    # --- reading ---------------------------------------------------------------------------

    def live(self, ask_id: str) -> LiveAsk | None:
        """The pending ask with this id, if it is still open (see `LiveAsks.live`)."""
        return self.held_asks.live(ask_id)

    async def held(self, ask_id: str) -> LiveAsk | None:
        """The open ask with this id, taken in hand from the store if another replica made
        or posted it (see `LiveAsks.held`). None once it has ended."""
        return await self.held_asks.held(ask_id)

    def reply_target(self, channel: str, thread_ts: str) -> LiveAsk | None:
        """The open lone question a reply in this thread answers (the newest there)."""
        return self.held_asks.reply_target(channel, thread_ts)

    async def record(self, ask_id: str) -> AskRecord | None:
        """The ask as it stands now: the live copy while open, else the stored one."""
        live = self.held_asks.live(ask_id)
        return live.record if live is not None else await self._store.get(ask_id)

    async def stored(self, ask_id: str) -> AskRecord | None:
        """The ask as last saved (the store is the truth others read)."""
        return await self._store.get(ask_id)

    async def recent(
        self,
        *,
        state: AskState | None = None,
        limit: int = 50,
        agents: Collection[str] | None = None,
    ) -> list[AskRecord]:
        """Stored asks newest first, optionally only in one state and of these agents."""
        return await self._store.recent(state=state, limit=limit, agents=agents)

    # --- creating --------------------------------------------------------------------------

    async def create(
        self,
        request: AskUserQuestionRequest,
        *,
        agent_id: str | None = None,
        agent_name: str | None = None,
        idempotency_key: str | None = None,
        route: ThreadRef | None = None,
        ask_id: str | None = None,
        expires_in: float | None = None,
        requester: str | None = None,
    ) -> tuple[AskRecord, bool]:
        """Store the ask without posting it (stored before shown; `Posting.post` shows it).
        A request Slack cannot show is refused here, stored nowhere; a known idempotency
        key returns its ask. The flag says whether this call created the ask. `expires_in`:
        the asker stops waiting after this long, and the ask is withdrawn then (`Deadlines`)."""
        # Kept while the ask is pending, by its record and its layout: compact.
        questions = AskUserQuestionRequest(questions=compact_questions(request.questions))
        try:
            layout = lay_out(questions)
        except Unshowable as error:
            raise UserQuestionError(
                ErrorCode.ASK_FAILED, f"Slack cannot show this ask: {error}", cause=error
            ) from error
        kind = kind_of(questions.questions)
        channel = route.channel if route else self._channel
        policy = self._policies.choose(questions.questions, agent_id, channel)
        needed = self._policies.named(policy).approvals
        if kind == "plan-review" and needed > 1 and not layout.plan_review:
            # Only the plan view counts approvals: one answer would settle it (fail closed).
            raise UserQuestionError(
                ErrorCode.BAD_INTENT,
                f"policy {policy} needs {needed} approvals of a plan review, which only a lone "
                "single-select plan-review question can collect",
            )
        enforced = enforced_on_clicks(self._policies.named(policy), kind, requester)
        if enforced and review_on_clicks(layout) != kind:
            # A form's Submit would settle it on one answer by anyone: fail closed.
            raise UserQuestionError(
                ErrorCode.BAD_INTENT,
                f"policy {policy} needs {' and '.join(enforced)}, which only a lone "
                f"single-select {kind} question can enforce",
            )
        # A rule or a grant decides here, before anything is posted (grants are read from
        # the store, so one made on another replica counts).
        auto = (
            decide(
                self._policies,
                await self._store.grants(),
                questions.questions,
                agent_id=agent_id,
                channel=channel,
                requester=requester,
                now=self._clock.now(),
                stored=await self._store.rules(),
            )
            if kind == "tool-approval"
            else None
        )
        revises = await self._declined_plan(agent_id) if layout.plan_review else None
        now = self._clock.now()
        record, created = await self._store.add(
            AskRecord(
                id=ask_id or new_ask_id(),
                questions=questions.questions,
                created_at=now,
                expires_at=None if expires_in is None else now + expires_in,
                agent_id=agent_id,
                agent_name=agent_name,
                requester=requester,
                idempotency_key=idempotency_key,
                channel=route.channel if route else None,
                thread_ts=route.thread_ts if route else None,
                revision=revises.revision + 1 if revises else 1,
                revises=revises.id if revises else None,
                policy=policy,
            )
        )
        if created and auto is not None:
            self.observers.created(record)
            return await self._decide_now(record, auto), True
        if created:
            self.observers.created(record)
            self.held_asks.add(record, layout)
            if layout.plan_review and agent_id is not None:
                self._latest_plan[agent_id] = record.id
        else:
            record = await self._take_existing(record)
        return record, created

    async def _take_existing(self, record: AskRecord) -> AskRecord:
        """Take in hand the ask an idempotency key found (made by another replica, or left
        unheld); the record as it stands now.

        Read again when it is not held here: the key was looked up before a settle here
        that has come and gone since (a retried create racing a click), and taking that
        read would hold the ended ask open again, where a waiter waits for ever for a
        settle already made (in one process a waiter on a held ask reads nothing)."""
        if not record.settled and self.held_asks.live(record.id) is None:
            fresh = await self._store.get(record.id)
            if fresh is None:
                return record  # erased since: nothing to hold
            record = fresh
        self.held_asks.take(record)
        return record

    async def _decide_now(self, record: AskRecord, auto: AutoDecision) -> AskRecord:
        """Settle a just-stored ask as a rule decided it: saved and logged like a person's
        answer (the settle event names the rule), never held; its card is never posted
        (the observers' `Announcements` tell the thread in one line, after)."""
        ending = ENDINGS[Verdict.ANSWERED]
        settled = record.model_copy(
            update={
                "state": ending.state,
                "verdict": Verdict.ANSWERED,
                "answer": auto.answer,
                "decided_by": auto.actor,
                "decided_at": self._clock.now(),
                "reason": auto.reason,
                # Its one message is the line that tells the thread (`Announcements`): not
                # shown until it is posted, unless the policy posts none.
                "shown": not self._policies.announce_automatic,
            }
        )
        event = self.event(settled, ending.event, actor=auto.actor, detail=auto.reason)
        if await self._store.settle(settled, event):
            self.observers.saved(settled, event)
            return settled
        stored = await self._store.get(record.id)  # cannot happen: nobody else holds it
        return stored or settled

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

    # --- progress --------------------------------------------------------------------------

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
        is claimed or has ended. The saved record, or None if nothing was saved.

        Under the settlement's lock, and compare-and-set in the store (`advance`): a save
        never lands over a decision, and when another replica saved first, the change is
        applied again to its record, so two part answers never lose one."""
        for _ in range(ADVANCE_TRIES):
            async with live.posting():
                if live.claimed or not self.held_asks.holds(live):
                    return None
                changed = change(live.record)
                if changed is None:
                    return None
                record = changed.model_copy(update={"version": live.record.version + 1})
                event = self.event(record, kind, actor=actor, detail=detail)
                if await self._store.advance(record, event):
                    self.observers.saved(record, event)
                    live.record = record
                    for part in show:
                        view = await self._messages.open_view(record, live.layout, part)
                        await self._messages.update(record, part, view)
                    return record
            if not await self.held_asks.refresh(live):
                return None
        log.error("ask %s: gave up saving %s after %d tries", live.record.id, kind, ADVANCE_TRIES)
        return None

    # --- waiting ---------------------------------------------------------------------------

    async def wait(self, ask_id: str) -> AskRecord:
        """The ask once settled (at once if it already is), by whichever replica.
        `KeyError` for an unknown id.

        In one process an open ask is settled only here, and its settle hands the record
        to the waiter: nothing is read. With replicas the waiter reads the store, and
        another replica's settle wakes it by notification."""
        held = not self._shared and self.held_asks.live(ask_id) is not None
        return await self.waiters.wait(ask_id, held=held)

    # --- settling --------------------------------------------------------------------------

    def claim(self, ask_id: str) -> LiveAsk | None:
        """Take the right to settle `ask_id`; None if it is settled or claimed already.

        Synchronous on purpose: between two awaits only one handler can claim an ask, so
        the first valid answer wins however many people click at once.
        """
        live = self.held_asks.live(ask_id)
        if live is None or live.claimed:
            return None
        live.claimed = True
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
        `show_later`: return once the ending is saved and the waiters woken; the observers
        hear of it one loop turn later and Slack is updated in a tracked task (a click decided
        before its ack must not make the ack, nor the woken agent, wait for either).
        """
        if (answer is not None) != (verdict is Verdict.ANSWERED):
            raise ValueError(f"an ask ends {verdict} {'without' if answer else 'with'} an answer")
        live = claimed or self.claim(ask_id)
        if live is None:
            return False
        if len(live.record.message_ts) < len(live.layout.parts):
            # A post still waiting for its channel's turn is not made (the lock comes free).
            self._messages.drop_queued(live.record)
        async with live.posting():
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
        placed = live.record
        if self._shared and not await self.held_asks.refresh(live):
            return False  # another replica ended it
        if live.record.channel is None and placed.channel is not None:
            # A place given here and not saved yet (it is saved with the first post) is
            # kept: it is where a message nobody recorded is looked for (`show`).
            live.record = live.record.evolve(channel=placed.channel, thread_ts=placed.thread_ts)
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
        event = self.event(record, ending.event, actor=actor, detail=reason or "")
        try:
            won = await self._store.settle(record, event)
        except BaseException:
            live.claimed = False  # nothing was decided: let the next answer try
            raise
        if not won:
            # Another replica settled it first: its record is the truth, and it shows it.
            await self.held_asks.refresh(live)
            return False
        if show_later:
            # Decided before its ack: the waiting agent is woken first, then the observers
            # hear of it once the ack has gone and the agent has run (one loop turn later,
            # before the decided message is shown), then the message is shown.
            self.held_asks.ended(live, record)
            asyncio.get_running_loop().call_soon(self.observers.saved, record, event)
            self._tasks.spawn(self._show_or_retry(live), name=f"show {record.id}")
            return True
        self.observers.saved(record, event)
        self.held_asks.ended(live, record)
        # Wake first, then show: the waiting agent runs before the decided message is
        # rendered and sent (the answer is already saved; showing it is for people).
        await asyncio.sleep(0)
        if not await self.show(live):
            self._tasks.spawn(self._reshow(live), name=f"reshow {record.id}")
        return True

    async def _show_or_retry(self, live: LiveAsk) -> None:
        if not await self.show(live):
            await self._reshow(live)

    async def show(self, live: LiveAsk, *, where: ThreadRef | None = None) -> bool:
        """Replace the controls of every posted part with the settlement; once every part
        shows it, the record is marked `shown`. False if Slack refused an update.

        A part that may be in Slack though nobody recorded it (an ask taken from the store:
        a crashed process's post, another replica's) is looked for first — in its channel,
        else `where` its session posts —: a click on its buttons may be what settled the
        ask, and they must not stay live. False, too, while Slack cannot be asked whether
        it is there."""
        if not await self._find_unrecorded(live, where):
            return False
        record = live.record
        shown = await self._messages.show_decision(record, live.layout)
        if shown and record.settled and not record.shown:
            live.record = record.model_copy(update={"shown": True})
            event = self.event(live.record, EventKind.SHOWN, actor=record.decided_by)
            await self._store.save(live.record, event)
            self.observers.saved(live.record, event)
        return shown

    async def _find_unrecorded(self, live: LiveAsk, where: ThreadRef | None) -> bool:
        """Add to `live.record` the parts Slack has but the record lacks (and the place they
        were found in); False if Slack could not tell. In one process, an ask made here has
        none: its posts are recorded under the lock its settlement waits for."""
        record = live.record
        if record.channel is None and where is not None:
            record = record.evolve(channel=where.channel, thread_ts=where.thread_ts)
        if not (live.recovering or self._shared) or record.channel is None:
            return True
        found: list[str] = []
        # Parts go out in order, each once the one before is recorded: what the record
        # lacks is a tail, and the first part of it not in Slack ends the search.
        for part in range(len(record.message_ts), len(live.layout.parts)):
            try:
                ts = await self._messages.find(record, part)
            except SlackCallFailed as failed:
                log.warning("ask %s: cannot look for its unrecorded message: %s", record.id, failed)
                return False
            if ts is None:
                break
            found.append(ts)
        if found:
            live.record = record.evolve(message_ts=[*record.message_ts, *found])
        return True

    async def _reshow(self, live: LiveAsk) -> None:
        start = self._clock.now()
        for delay in RETRY_AFTER:
            if not await self._tasks.wait_until(self._clock, start + delay):
                return  # shutting down: `recover` shows it at the next start
            if await self.show(live):
                return
        log.error(
            "ask %s: its message still shows controls; it is re-shown at restart", live.record.id
        )

    # --- the event log ---------------------------------------------------------------------

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
