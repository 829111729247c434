"""Asks as records, their append-only event log, and the store interface that keeps them.

Stored before shown: an ask is added before anything is posted, and every transition is
saved together with the event that explains it. `MemoryStore` serves in-process hosts and
tests; `SqliteStore` (bot/sqlite_store.py) makes asks survive a restart.
"""

from __future__ import annotations

from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field

from provider import (
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionRequest,
    PlanReviewIntent,
)

from .outcomes import AskError, AskState, EventKind, Verdict

__all__ = [
    "Approval",
    "AskError",
    "AskEvent",
    "AskRecord",
    "AskState",
    "AskStore",
    "EventKind",
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


class AskEvent(Record):
    """One line of an ask's history."""

    ask_id: str
    at: float
    kind: EventKind
    actor: str | None = None
    detail: str = ""


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


class MemoryStore:
    """An `AskStore` in memory: for in-process hosts that need no restart survival."""

    def __init__(self) -> None:
        self._asks: dict[str, AskRecord] = {}
        self._keys: dict[str, str] = {}
        self._events: dict[str, list[AskEvent]] = {}
        self._threads: dict[str, ThreadRef] = {}

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


def check_settle(record: AskRecord, event: AskEvent) -> None:
    """`settle`'s guards, shared by every store."""
    if event.ask_id != record.id:
        raise ValueError(f"event of ask {event.ask_id!r} settled with ask {record.id!r}")
    if not record.settled:
        raise ValueError(f"ask {record.id!r} is still pending: settle takes a settled record")
