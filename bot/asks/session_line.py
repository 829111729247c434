"""Slack's agent session of each agent's thread, fed from its asks' transitions: the session
is `suspended` (titled "<agent> · waiting for …") while one of its asks waits, and
`processing` once none does (bot/slack/session_states.py sends them). It stands in for the
waiting line (observers.WaitingLine) when the app is declared as an agent."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from bot.asks.observers import ENDINGS_BY_EVENT, AskObserver, thread_of
from bot.review import AskKind, kind_of
from bot.slack.session_states import SessionStates
from bot.store import AskEvent, AskRecord, EventKind

WAITING_FOR: Final[dict[AskKind, str]] = {
    "plan-review": "waiting for a plan review",
    "tool-approval": "waiting for a tool approval",
    "question": "waiting for an answer",
}
AGENT_NAME_MAX: Final = 120
"""Room for the agent's name in the 200-character title, beside what it waits for."""


def session_title(record: AskRecord) -> str:
    """'Deploy agent · waiting for a plan review': who waits, and for what."""
    name = " ".join((record.agent_name or record.agent_id or "The agent").split())
    if len(name) > AGENT_NAME_MAX:
        name = name[: AGENT_NAME_MAX - 1] + "…"
    return f"{name} · {WAITING_FOR[kind_of(record.questions)]}"


class SessionLine(AskObserver):
    """Moves the agent session of an ask's thread as the ask waits and ends."""

    def __init__(self, states: SessionStates) -> None:
        self._states = states

    def saved(self, record: AskRecord, event: AskEvent) -> None:
        """See `AskObserver.saved`."""
        channel, thread_ts = record.channel, thread_of(record)
        if channel is None or thread_ts is None:
            return  # not posted yet: no thread to hold a session
        if event.kind is EventKind.POSTED:
            self._states.waiting(record.id, channel, thread_ts, session_title(record))
        elif event.kind in ENDINGS_BY_EVENT:
            self._states.settled(record.id, channel, thread_ts)

    def recovered(self, records: Sequence[AskRecord]) -> None:
        """See `AskObserver.recovered`."""
        for record in records:
            thread_ts = thread_of(record)
            if record.channel and thread_ts:
                self._states.waiting(record.id, record.channel, thread_ts, session_title(record))
