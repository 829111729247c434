"""Asks as records, their append-only event log, and the store interface that keeps them.

Stored before shown: an ask is added before anything is posted, and every transition is
saved together with the event that explains it. `MemoryStore` serves in-process hosts and
tests; `SqliteStore` (bot/store/sqlite.py) makes asks survive a restart.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field

from bot.outcomes import AskError, AskState, EventKind, Verdict
from provider import (
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionOption,
    AskUserQuestionRequest,
    PlanReviewIntent,
)

__all__ = [
    "Approval",
    "AskError",
    "AskEvent",
    "AskRecord",
    "AskState",
    "AskStore",
    "EventKind",
    "InboxItem",
    "InboxKind",
    "Lease",
    "MemoryStore",
    "PartAnswer",
    "ThreadRef",
    "Verdict",
]


class Record(BaseModel):
    """Base of stored models: frozen, exact about fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class ThreadRef(Record):
    """A Slack conversation, and the thread in it (None: post at the top level)."""

    channel: str
    thread_ts: str | None = None


class PartAnswer(Record):
    """One part of a split ask, answered."""

    by: str
    at: float
    answers: list[AskUserQuestionAnswerItem]


class Approval(Record):
    """One reviewer's approval of a plan."""

    by: str
    at: float


class AskRecord(Record):
    """One ask: the request, where it is shown, and how it ended."""

    id: str
    questions: list[AskUserQuestionItem]
    created_at: float
    agent_id: str | None = None
    agent_name: str | None = None
    idempotency_key: str | None = None
    channel: str | None = None
    thread_ts: str | None = None
    message_ts: list[str] = Field(default_factory=list)  # one per part, once posted
    state: AskState = AskState.PENDING
    verdict: Verdict | None = None
    answer: AskUserQuestionAnswer | None = None
    error: AskError | None = None
    decided_by: str | None = None
    decided_at: float | None = None
    reason: str | None = None  # in people's words, why it ended (withdrawn, failed…)
    parts_done: dict[int, PartAnswer] = Field(default_factory=dict)
    approvals: list[Approval] = Field(default_factory=list)  # plan reviews, in order
    revision: int = 1  # plan reviews: 2 and up revise a declined plan of the same agent
    revises: str | None = None  # the ask id of that declined plan
    reminded_at: float | None = None
    shown: bool = False  # the decided message shows the decision (controls gone)
    # Bumped by each progress save (`AskStore.advance`): a copy read before another
    # replica's save is stale, and its save is refused instead of overwriting that one.
    version: int = 0

    def evolve(self, **changes: object) -> AskRecord:
        """A copy with `changes`, not validated (like `model_copy`). Every evolved record
        shares one set of "fields set" (nothing here reads it): thousands of pending asks
        carry no such set each (0.7 KiB less per ask than `model_copy`)."""
        return AskRecord.model_construct(_EVERY_FIELD, **{**self.__dict__, **changes})

    @property
    def request(self) -> AskUserQuestionRequest:
        """The questions as a seam request (no agent or signal: those are runtime-only)."""
        return AskUserQuestionRequest(questions=self.questions)

    @property
    def settled(self) -> bool:
        """Whether the ask has ended, one way or another."""
        return self.state is not AskState.PENDING

    @property
    def queued(self) -> bool:
        """Pending and not in Slack yet: it waits its turn in its channel (or a retry)."""
        return not self.settled and not self.message_ts

    @property
    def ended_as(self) -> Verdict | None:
        """How the ask ended (None while pending); a settled record without a verdict was
        written before verdicts were kept, and is read by its state."""
        if not self.settled:
            return None
        if self.verdict is not None:
            return self.verdict
        return Verdict.ANSWERED if self.state is AskState.ANSWERED else Verdict.FAILED

    @property
    def is_plan_review(self) -> bool:
        """A lone question with a plan-review intent."""
        return len(self.questions) == 1 and isinstance(self.questions[0].intent, PlanReviewIntent)

    @property
    def approved(self) -> bool:
        """Whether a plan review ended with its approving label chosen."""
        intent = self.questions[0].intent if self.is_plan_review else None
        if self.answer is None or intent is None:
            return False
        return self.answer.answers[0].selected == [intent.approve]


_EVERY_FIELD = set(AskRecord.model_fields)
_QUESTION_FIELDS = set(AskUserQuestionItem.model_fields)
_OPTION_FIELDS = set(AskUserQuestionOption.model_fields)


def compact_questions(questions: list[AskUserQuestionItem]) -> list[AskUserQuestionItem]:
    """The same (validated) questions, rebuilt so that every question and option shares
    its class's one "fields set" (nothing here reads it): a pending ask's questions then
    carry no set per model (0.2 KiB each)."""
    return [
        AskUserQuestionItem.model_construct(
            _QUESTION_FIELDS,
            **{
                **question.__dict__,
                "options": None
                if question.options is None
                else [
                    AskUserQuestionOption.model_construct(_OPTION_FIELDS, **option.__dict__)
                    for option in question.options
                ],
            },
        )
        for question in questions
    ]


class AskEvent(Record):
    """One line of an ask's history."""

    ask_id: str
    at: float
    kind: EventKind
    actor: str | None = None
    detail: str = ""


class InboxKind(StrEnum):
    """The Slack interactions that can change an ask, kept in the inbox until handled."""

    BLOCK_ACTIONS = "block_actions"
    VIEW_SUBMISSION = "view_submission"
    VIEW_CLOSED = "view_closed"
    MESSAGE = "message"


class InboxItem(Record):
    """One acked Slack interaction, stored before its ack and deleted once handled.

    `body` is the request body as Slack signed it (Socket Mode: the envelope's payload as
    JSON), so a restart can hand it to the same handler again."""

    id: str
    received_at: float
    kind: InboxKind
    body: str


class Lease(Record):
    """A lease granted (`AskStore.lease`): `lapsed` names the owner whose lease ran out
    while held (it crashed, or was too slow), so its work may be half done."""

    lapsed: str | None = None


class AskStore(Protocol):
    """What the bot needs from storage; SQLite today, a networked database later."""

    async def add(self, record: AskRecord) -> tuple[AskRecord, bool]:
        """Store a new ask with a `created` event; with a known idempotency key, return
        the existing ask instead. The flag says whether `record` was added."""
        ...

    async def get(self, ask_id: str) -> AskRecord | None:
        """The ask with this id."""
        ...

    async def save(self, record: AskRecord, event: AskEvent) -> None:
        """Replace the stored ask and append `event`, atomically."""
        ...

    async def log(self, event: AskEvent) -> None:
        """Append an event that changes no state (e.g. a refused click)."""
        ...

    async def pending(self) -> list[AskRecord]:
        """Every pending ask, oldest first."""
        ...

    async def recent(self, *, state: AskState | None = None, limit: int = 50) -> list[AskRecord]:
        """Asks newest first, optionally only in one state."""
        ...

    async def events(self, ask_id: str) -> list[AskEvent]:
        """The ask's event log, oldest first."""
        ...

    async def thread(self, session: str) -> ThreadRef | None:
        """The thread an agent session posts in."""
        ...

    async def set_thread(self, session: str, ref: ThreadRef) -> None:
        """Remember the thread of an agent session."""
        ...

    async def close(self) -> None:
        """Release the store's resources."""
        ...

    async def settle(self, record: AskRecord, event: AskEvent) -> bool:
        """End a pending ask: store `record` (settled) and append `event` only if the stored
        ask is still pending, as one atomic step. True if this call settled it; False if
        the ask had already ended (nothing written). `KeyError` for an unknown ask.

        Several replicas may race: exactly one of them gets True."""
        ...

    async def claim_thread(self, session: str, ref: ThreadRef) -> ThreadRef:
        """Remember `ref` as the session's thread unless it has one; the thread that won.

        Racing claims (from any replica) all get the same, first-stored thread."""
        ...

    async def inbox_add(self, item: InboxItem) -> None:
        """Keep an interaction durably before it is acked (committed when this returns)."""
        ...

    async def inbox_done(self, item_id: str) -> None:
        """Forget a handled interaction (an unknown id is not an error)."""
        ...

    async def inbox_pending(self) -> list[InboxItem]:
        """Interactions acked but not yet handled, oldest first."""

    async def advance(self, record: AskRecord, event: AskEvent) -> bool:
        """Save progress of a pending ask (posted, part answered, approved, reminded) and
        append `event`, only if nobody wrote it since `record` was read: the stored ask must
        be pending at version `record.version - 1`. True if written; False if another write
        (a settle, another replica's progress) came first: re-read and apply the change
        again. `KeyError` for an unknown ask."""
        ...

    async def lease(self, name: str, owner: str, *, now: float, until: float) -> Lease | None:
        """Hold the lease `name` for `owner` until `until`, unless another owner holds it
        past `now` (None). Work that must happen once across replicas (opening a thread,
        posting an ask, a reminder) is done under its lease; a holder that dies loses it
        when it lapses, so no replica waits on a dead one for longer than that."""
        ...

    async def release(self, name: str, owner: str) -> None:
        """Give the lease `name` up, if `owner` holds it: the work is done."""
        ...


class MemoryStore:
    """An `AskStore` in memory: for in-process hosts that need no restart survival."""

    def __init__(self) -> None:
        self._asks: dict[str, AskRecord] = {}
        self._keys: dict[str, str] = {}
        self._events: dict[str, list[AskEvent]] = {}
        self._threads: dict[str, ThreadRef] = {}
        self._inbox: dict[str, InboxItem] = {}
        self._leases: dict[str, tuple[str, float]] = {}

    async def add(self, record: AskRecord) -> tuple[AskRecord, bool]:
        """See `AskStore.add`."""
        key = record.idempotency_key
        if key is not None and key in self._keys:
            return self._asks[self._keys[key]], False
        if record.id in self._asks:
            raise ValueError(f"ask {record.id} is already stored")
        self._asks[record.id] = record
        if key is not None:
            self._keys[key] = record.id
        self._events[record.id] = [
            AskEvent(ask_id=record.id, at=record.created_at, kind=EventKind.CREATED)
        ]
        return record, True

    async def get(self, ask_id: str) -> AskRecord | None:
        """See `AskStore.get`."""
        return self._asks.get(ask_id)

    async def save(self, record: AskRecord, event: AskEvent) -> None:
        """See `AskStore.save`."""
        if event.ask_id != record.id:
            raise ValueError(f"event of ask {event.ask_id} saved with ask {record.id}")
        self._asks[record.id] = record
        self._events.setdefault(record.id, []).append(event)

    async def log(self, event: AskEvent) -> None:
        """See `AskStore.log`."""
        if event.ask_id not in self._asks:
            raise KeyError(event.ask_id)
        self._events[event.ask_id].append(event)

    async def pending(self) -> list[AskRecord]:
        """See `AskStore.pending`."""
        pending = [r for r in self._asks.values() if r.state is AskState.PENDING]
        return sorted(pending, key=lambda r: r.created_at)

    async def recent(self, *, state: AskState | None = None, limit: int = 50) -> list[AskRecord]:
        """See `AskStore.recent`."""
        chosen = [r for r in self._asks.values() if state is None or r.state is state]
        # Newest first; among equal times, the one added last first (as SQLite orders them).
        newest = sorted(reversed(chosen), key=lambda r: r.created_at, reverse=True)
        return newest[:limit]

    async def events(self, ask_id: str) -> list[AskEvent]:
        """See `AskStore.events`."""
        return list(self._events.get(ask_id, []))

    async def thread(self, session: str) -> ThreadRef | None:
        """See `AskStore.thread`."""
        return self._threads.get(session)

    async def set_thread(self, session: str, ref: ThreadRef) -> None:
        """See `AskStore.set_thread`."""
        self._threads[session] = ref

    async def close(self) -> None:
        """Nothing to release."""

    async def settle(self, record: AskRecord, event: AskEvent) -> bool:
        """See `AskStore.settle`."""
        check_settle(record, event)
        stored = self._asks.get(record.id)
        if stored is None:
            raise KeyError(record.id)
        if stored.settled:
            return False
        self._asks[record.id] = record
        self._events[record.id].append(event)
        return True

    async def claim_thread(self, session: str, ref: ThreadRef) -> ThreadRef:
        """See `AskStore.claim_thread`."""
        return self._threads.setdefault(session, ref)

    async def inbox_add(self, item: InboxItem) -> None:
        """See `AskStore.inbox_add`."""
        if item.id in self._inbox:
            raise ValueError(f"inbox item {item.id} is already stored")
        self._inbox[item.id] = item

    async def inbox_done(self, item_id: str) -> None:
        """See `AskStore.inbox_done`."""
        self._inbox.pop(item_id, None)

    async def inbox_pending(self) -> list[InboxItem]:
        """See `AskStore.inbox_pending`."""
        # Added in order of arrival; the sort is stable, so equal times keep that order.
        return sorted(self._inbox.values(), key=lambda item: item.received_at)

    async def advance(self, record: AskRecord, event: AskEvent) -> bool:
        """See `AskStore.advance`."""
        check_advance(record, event)
        stored = self._asks.get(record.id)
        if stored is None:
            raise KeyError(record.id)
        if stored.settled or stored.version != record.version - 1:
            return False
        self._asks[record.id] = record
        self._events[record.id].append(event)
        return True

    async def lease(self, name: str, owner: str, *, now: float, until: float) -> Lease | None:
        """See `AskStore.lease`."""
        holder, held_until = self._leases.get(name, ("", 0.0))
        granted = lease_for(holder, held_until, owner, now)
        if granted is not None:
            self._leases[name] = (owner, until)
        return granted

    async def release(self, name: str, owner: str) -> None:
        """See `AskStore.release`."""
        if self._leases.get(name, ("", 0.0))[0] == owner:
            del self._leases[name]


def check_settle(record: AskRecord, event: AskEvent) -> None:
    """`settle`'s guards, shared by every store."""
    if event.ask_id != record.id:
        raise ValueError(f"event of ask {event.ask_id!r} settled with ask {record.id!r}")
    if not record.settled:
        raise ValueError(f"ask {record.id!r} is still pending: settle takes a settled record")


def check_advance(record: AskRecord, event: AskEvent) -> None:
    """`advance`'s guards, shared by every store."""
    if event.ask_id != record.id:
        raise ValueError(f"event of ask {event.ask_id!r} saved with ask {record.id!r}")
    if record.settled:
        raise ValueError(f"ask {record.id!r} is settled: advance saves progress, settle ends it")


def lease_for(holder: str, held_until: float, owner: str, now: float) -> Lease | None:
    """The lease `owner` gets of one now held by `holder` ("" for nobody) until
    `held_until`: None while another owner holds it.

    Owners are `replica#incarnation`: a replica restarted after a crash takes what its
    previous incarnation held at once (lapsed), without waiting for the lease to run out."""
    if holder in ("", owner):
        return Lease()
    if held_until > now and not _predecessor(holder, owner):
        return None
    return Lease(lapsed=holder)


def _predecessor(holder: str, owner: str) -> bool:
    replica, mark, _ = owner.partition("#")
    return bool(mark) and holder.startswith(f"{replica}#")
