"""The steps of an ask's SLA ladder that speak in its thread: the reminder, the escalation and
the expiry, each one visible line naming who is now asked.

Every replica holding an ask runs its ladder (`Deadlines`); each step is done once across
them: a lease lets one replica act at a time, and the stored step (`reminded_at`,
`escalated_at`; a settled ask for the expiry) tells a later one it was done. Escalation
widens who may answer (`Admission.who_may_answer` reads `escalated_at`); it never approves,
and an expiry ends the ask as `ASK_ABORTED` "nobody answered", never as an answer.
"""

from __future__ import annotations

import logging
from typing import Final

from bot.asks.lifecycle import Asks
from bot.asks.live import LiveAsk
from bot.clock import Clock
from bot.review import AskKind, ReviewPolicy, kind_of
from bot.slack.messages import AskMessages
from bot.slack.responders import mentions
from bot.store import AskRecord, EventKind
from bot.store.leases import LeaseKind, Leases

log = logging.getLogger(__name__)

# How long one replica holds the right to take a step of an ask's ladder.
STEP_LEASE_S: Final = 300.0

# What each kind of ask is called in a step's line.
NOUNS: Final[dict[AskKind, str]] = {
    "plan-review": "this plan",
    "tool-approval": "this tool approval",
    "question": "this question",
}


def spoken(seconds: float) -> str:
    """A duration as people say it: 90 s, 15 min, 2 h, 1 d."""
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{int(seconds // size)} {unit}"
    return f"{seconds:g} s"


def noun_of(record: AskRecord) -> str:
    """What the ask is called in its thread's lines."""
    return NOUNS[kind_of(record.questions)]


def reminder_line(record: AskRecord, policy: ReviewPolicy, after: float) -> str:
    """The reminder: the reviewers named, how long it has waited."""
    who = mentions(policy.reviewers)
    if record.is_plan_review:
        return f"{who + ': t' if who else 'T'}his plan has waited {spoken(after)} for review."
    noun = noun_of(record)
    lead = f"{who}: {noun}" if who else noun[0].upper() + noun[1:]
    return f"{lead} has waited {spoken(after)} for an answer."


def escalation_line(record: AskRecord, policy: ReviewPolicy, after: float) -> str:
    """The escalation: the backup named as now asked too, and who was asked before."""
    before = mentions(policy.reviewers)
    also = f" (with {before})" if before else ""
    return (
        f"{mentions(policy.escalate_to)}: nobody answered {noun_of(record)} in {spoken(after)}, "
        f"so you are asked too now{also}. Answer it above."
    )


def expiry_reason(record: AskRecord, after: float) -> str:
    """Why an expired ask ended, as the agent and the decided message read it."""
    if record.is_plan_review:
        return f"the review expired after {spoken(after)} without approval"
    return f"nobody answered: it expired after {spoken(after)}"


def expiry_line(record: AskRecord, after: float) -> str:
    """The expiry: nobody is asked any more, and it was not approved."""
    unapproved = ", unapproved" if kind_of(record.questions) != "question" else ""
    return (
        f"Nobody answered {noun_of(record)} within {spoken(after)}: it expired{unapproved}, "
        "and the agent was told that nobody answered."
    )


class Escalation:
    """Takes the speaking steps of asks' ladders, each once across replicas."""

    def __init__(self, asks: Asks, leases: Leases, clock: Clock, messages: AskMessages) -> None:
        self._asks = asks
        self._leases = leases
        self._clock = clock
        self._messages = messages

    async def remind(self, ask_id: str, policy: ReviewPolicy, after: float) -> None:
        """Post the reminder once and store that it was (`reminded_at`)."""
        async with self._leases.hold(LeaseKind.REMIND, ask_id, STEP_LEASE_S) as lease:
            if lease is not None:
                await self._step(ask_id, policy, after, EventKind.REMINDED)

    async def escalate(self, ask_id: str, policy: ReviewPolicy, after: float) -> None:
        """Post the escalation once and store it (`escalated_at`): from then on
        `escalate_to` may answer too."""
        async with self._leases.hold(LeaseKind.ESCALATE, ask_id, STEP_LEASE_S) as lease:
            if lease is not None:
                await self._step(ask_id, policy, after, EventKind.ESCALATED)

    async def expired(self, record: AskRecord, after: float) -> None:
        """Say in the thread that the ask expired (by the replica whose settle ended it)."""
        await self._messages.remind(record, expiry_line(record, after))

    async def _step(self, ask_id: str, policy: ReviewPolicy, after: float, kind: EventKind) -> None:
        live = self._asks.live(ask_id)
        if live is None:
            return
        stored = await self._asks.stored(ask_id)
        if stored is None or stored.settled or _taken(stored, kind):
            return  # another replica took this step (or the ask ended) while we slept
        if kind is EventKind.ESCALATED:
            text = escalation_line(stored, policy, after)
            # Who is away among those now asked: their delegates are asked (and pinged) too.
            asked = stored.model_copy(update={"escalated_at": self._clock.now()})
        else:
            text = reminder_line(stored, policy, after)
            asked = stored
        away = await self._messages.away_lines(asked)
        if away:
            text += f" {'; '.join(away)}."
        if not await self._messages.remind(live.record, text):
            return
        # Read again after the post: the ask may have moved on (an approval, a decision).
        now_live = self._asks.live(ask_id)
        if now_live is None:
            return
        await self._save(now_live, kind, text)

    async def _save(self, live: LiveAsk, kind: EventKind, text: str) -> None:
        now = self._clock.now()
        field = "escalated_at" if kind is EventKind.ESCALATED else "reminded_at"
        # Every part is shown again: its SLA line now names the next step.
        await self._asks.save_progress(
            live,
            kind,
            lambda record: record.model_copy(update={field: now}),
            detail=text,
            show=tuple(range(len(live.layout.parts))),
        )


def _taken(record: AskRecord, kind: EventKind) -> bool:
    if kind is EventKind.ESCALATED:
        return record.escalated_at is not None
    return record.reminded_at is not None
