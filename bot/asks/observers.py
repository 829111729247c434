"""Who hears of an ask's transitions: one `AskObserver` each, told after each durable write.

The event log is the one record of an ask's transitions, and the lifecycle (`Asks`) and
`Posting` tell the observers right after each write lands — an ask created, a part posted,
progress saved, the ask settled, its decision shown — so what they report (log lines,
metrics, Slack's waiting line, deadlines) is what the store holds, never a transition that
was refused or rolled back. A write that lost (another replica settled first) is told to
nobody.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Final

from bot.asks.live import LiveAsk
from bot.clock import Clock
from bot.metrics import Metrics
from bot.outcomes import Verdict
from bot.render.figures import QUICK_SECONDS, agent_of, automatic_by
from bot.slack.status_line import ThreadStatuses
from bot.store import AskEvent, AskRecord, EventKind

log = logging.getLogger("bot.asks.lifecycle")


class AskObserver:
    """Told of each ask transition once it is stored; an observer overrides what it hears.
    Must not raise and must not block: slow work (a Slack call) is spawned."""

    def created(self, record: AskRecord) -> None:
        """A new ask was stored."""

    def saved(self, record: AskRecord, event: AskEvent) -> None:
        """`record` was stored with `event` (a part posted, progress, the settlement, shown)."""

    def posted(self, live: LiveAsk) -> None:
        """Every part of `live` is in Slack, and it is open and held here (posted now, or
        taken in hand posted: after a restart, or from another replica)."""

    def recovered(self, records: Sequence[AskRecord]) -> None:
        """After a restart, these pending asks were taken back in hand."""


class Observers:
    """The observers of this process's asks, told in order; one that fails is logged and
    the others are still told (an observer's bug never fails an ask that is stored).

    Each transition goes only to the observers that hear it (override its method): a
    click's settlement calls no empty method."""

    def __init__(self, observers: Sequence[AskObserver] = ()) -> None:
        self._created: list[Callable[[AskRecord], None]] = []
        self._saved: list[Callable[[AskRecord, AskEvent], None]] = []
        self._posted: list[Callable[[LiveAsk], None]] = []
        self._recovered: list[Callable[[Sequence[AskRecord]], None]] = []
        for observer in observers:
            self.add(observer)

    def add(self, observer: AskObserver) -> None:
        """Tell `observer` too, from now on (one built after the asks it watches)."""
        kind = type(observer)
        if kind.created is not AskObserver.created:
            self._created.append(observer.created)
        if kind.saved is not AskObserver.saved:
            self._saved.append(observer.saved)
        if kind.posted is not AskObserver.posted:
            self._posted.append(observer.posted)
        if kind.recovered is not AskObserver.recovered:
            self._recovered.append(observer.recovered)

    def created(self, record: AskRecord) -> None:
        """See `AskObserver.created`."""
        for hear in self._created:
            _tell(hear, record)

    def saved(self, record: AskRecord, event: AskEvent) -> None:
        """See `AskObserver.saved`."""
        for hear in self._saved:
            _tell(hear, record, event)

    def posted(self, live: LiveAsk) -> None:
        """See `AskObserver.posted`."""
        for hear in self._posted:
            _tell(hear, live)

    def recovered(self, records: Sequence[AskRecord]) -> None:
        """See `AskObserver.recovered`."""
        for hear in self._recovered:
            _tell(hear, records)


def _tell(method: Callable[..., None], *args: object) -> None:
    try:
        method(*args)
    except Exception:  # an observer's bug must never fail an ask that is already stored
        log.exception("an ask observer failed")


ENDINGS_BY_EVENT: Final = {
    EventKind.ANSWERED: Verdict.ANSWERED,
    EventKind.WITHDRAWN: Verdict.WITHDRAWN,
    EventKind.CLOSED: Verdict.CLOSED,
    EventKind.CANCELLED: Verdict.CANCELLED,
    EventKind.EXPIRED: Verdict.EXPIRED,
    EventKind.FAILED: Verdict.FAILED,
    EventKind.STOPPED: Verdict.STOPPED,
}
"""The events that end an ask, and the ending each stands for."""

_LOGGED: Final = frozenset({EventKind.POSTED, *ENDINGS_BY_EVENT})
"""Transitions with a line of their own (reminders, approvals and the like are the ask's
history, kept in the event log, not the operator's)."""


class TransitionLog(AskObserver):
    """One line per transition — created, posted, answered, withdrawn, closed, cancelled,
    expired, failed, recovered — naming the ask, its agent session, channel, who acted and
    the time since creation; the same as `extra` fields for `LOG_FORMAT=json`."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock

    def created(self, record: AskRecord) -> None:
        """See `AskObserver.created`."""
        detail = f"{len(record.questions)} question(s)"
        _line(logging.INFO, record, "created", None, 0.0, detail)

    def saved(self, record: AskRecord, event: AskEvent) -> None:
        """See `AskObserver.saved`."""
        if event.kind not in _LOGGED:
            return
        level = logging.WARNING if event.kind is EventKind.FAILED else logging.INFO
        who = None if event.kind is EventKind.POSTED else event.actor
        age = event.at - record.created_at
        _line(level, record, event.kind.value, who, age, event.detail)

    def recovered(self, records: Sequence[AskRecord]) -> None:
        """See `AskObserver.recovered`."""
        now = self._clock.now()
        for record in records:
            posted = f"{len(record.message_ts)} message(s) in Slack"
            _line(logging.INFO, record, "recovered", None, now - record.created_at, posted)


def _line(
    level: int, record: AskRecord, transition: str, who: str | None, age: float, detail: str
) -> None:
    log.log(
        level,
        "ask %s %s: session=%s channel=%s who=%s age=%.1fs%s",
        record.id,
        transition,
        record.agent_id or "-",
        record.channel or "-",
        who or "-",
        age,
        f" ({detail})" if detail else "",
        extra={
            "ask_id": record.id,
            "transition": transition,
            "agent_session": record.agent_id,
            "channel": record.channel,
            "who": who,
            "age_seconds": round(age, 3),
        },
    )


class AskMetrics(AskObserver):
    """Feeds `Metrics` from the transitions: created, settled by ending, answer time."""

    def __init__(self, metrics: Metrics) -> None:
        self._metrics = metrics
        # When each pending ask first appeared in Slack, for the rubber-stamp count; an ask
        # taken in hand after a restart has none here and is not counted as quick.
        self._posted_at: dict[str, float] = {}

    def created(self, record: AskRecord) -> None:
        """See `AskObserver.created`."""
        self._metrics.ask_created()
        self._metrics.agent_ask_created(agent_of(record))

    def saved(self, record: AskRecord, event: AskEvent) -> None:
        """See `AskObserver.saved`."""
        if event.kind is EventKind.POSTED:
            self._posted_at.setdefault(record.id, event.at)
            return
        verdict = ENDINGS_BY_EVENT.get(event.kind)
        if verdict is None:
            return
        posted_at = self._posted_at.pop(record.id, None)
        automatic = automatic_by(record.decided_by)
        by_person = verdict is Verdict.ANSWERED and automatic is None
        answered_after = event.at - record.created_at if verdict is Verdict.ANSWERED else None
        self._metrics.ask_settled(verdict.value, answered_after=answered_after)
        self._metrics.agent_ask_settled(
            agent_of(record),
            verdict.value,
            automatic=automatic,
            answered_after=answered_after if by_person else None,
            quick=by_person and posted_at is not None and event.at - posted_at <= QUICK_SECONDS,
        )

    def recovered(self, records: Sequence[AskRecord]) -> None:
        """See `AskObserver.recovered`."""
        self._metrics.asks_recovered(len(records))


WAITING_STATUS: Final = "is waiting for an answer"
REVIEW_STATUS: Final = "is waiting for a plan review"


def thread_of(record: AskRecord) -> str | None:
    """The thread an ask's replies go to: its session's thread, else its own first message."""
    return record.thread_ts or (record.message_ts[0] if record.message_ts else None)


class WaitingLine(AskObserver):
    """Slack's status line under the thread while an ask waits there (bot/slack/status_line.py):
    shown once a part is posted (a post in the thread clears it), shown again after a
    reminder, cleared when the ask ends. `ThreadStatuses` sends them: no task per call."""

    def __init__(self, statuses: ThreadStatuses) -> None:
        self._statuses = statuses

    def saved(self, record: AskRecord, event: AskEvent) -> None:
        """See `AskObserver.saved`."""
        channel, thread_ts = record.channel, thread_of(record)
        if channel is None or thread_ts is None:
            return  # not posted yet: no thread to show it under
        if event.kind is EventKind.POSTED:
            self._show(record, channel, thread_ts)
        elif event.kind in (EventKind.REMINDED, EventKind.ESCALATED):
            self._statuses.posted(channel, thread_ts)
        elif event.kind in ENDINGS_BY_EVENT:
            self._statuses.settled(record.id, channel, thread_ts)

    def recovered(self, records: Sequence[AskRecord]) -> None:
        """See `AskObserver.recovered`."""
        for record in records:
            thread_ts = thread_of(record)
            if record.channel and thread_ts:
                self._show(record, record.channel, thread_ts)

    def _show(self, record: AskRecord, channel: str, thread_ts: str) -> None:
        status = REVIEW_STATUS if record.is_plan_review else WAITING_STATUS
        self._statuses.waiting(record.id, channel, thread_ts, status)
