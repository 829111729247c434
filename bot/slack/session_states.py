"""Slack's own agent session states for an app declared as an agent: each agent's thread is a
session, `suspended` while one of its asks waits, `processing` once answered, `closed` when
the agent's session ends (https://docs.slack.dev/ai/agent-sessions).

`agents.sessions.setStatus` creates the thread's session on first use, and its `title` (at
most 200 characters) applies only then; a later title goes through `agents.sessions.rename`.
Unlike `assistant.threads.setStatus` a session's status does not lapse and is not cleared by
the app's next reply, so nothing is renewed. Slack offers its Stop button while a session is
`processing`; after a Stop the app moves the session on itself ("The session status does not
update automatically"), here to `active`.

As with the status line (status_line.py), one writer sends the changes in the order they were
made, only the latest wanted state of a thread is sent, and a thread never has two calls in
flight. It is a courtesy: a failure is logged once per thread and never touches an ask.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from bot.slack.api import SlackCallFailed, SlackClient
from bot.store import ThreadKey

log = logging.getLogger(__name__)

TITLE_MAX: Final = 200
"""agents.sessions.setStatus: "Title for the agent session (max 200 characters)"."""
CLOSE_GRACE_SECONDS: Final = 5.0


class SessionStatus(StrEnum):
    """agents.sessions.setStatus: "Acceptable values: active processing suspended closed"."""

    ACTIVE = "active"  # alive, ready for what comes next (after a Stop)
    PROCESSING = "processing"  # working: its asks are answered
    SUSPENDED = "suspended"  # cannot go on until people answer
    CLOSED = "closed"  # the agent's session ended


@dataclass(frozen=True, slots=True)
class SessionState:
    """What a thread's session should show."""

    status: SessionStatus
    title: str | None = None


class _Session:
    __slots__ = ("ended", "stopped", "waiting")

    def __init__(self) -> None:
        self.waiting: dict[str, str] = {}
        """Ask id → the title it wants, oldest first; the newest is shown."""
        self.stopped = False
        self.ended = False

    @property
    def state(self) -> SessionState:
        if self.ended:
            return SessionState(SessionStatus.CLOSED)
        if self.waiting:
            return SessionState(SessionStatus.SUSPENDED, next(reversed(self.waiting.values())))
        return SessionState(SessionStatus.ACTIVE if self.stopped else SessionStatus.PROCESSING)


class SessionStates:
    """The agent session of every agent thread this process shows.

    `waiting`, `settled`, `stopped` and `ended` record what the thread should show and return
    at once; the writer sends it. `sent()` waits until everything recorded has been sent."""

    def __init__(self, client: SlackClient) -> None:
        self._client = client
        self._sessions: dict[ThreadKey, _Session] = {}
        self._unsent: OrderedDict[ThreadKey, None] = OrderedDict()
        self._titles: dict[ThreadKey, str] = {}
        """The title each session was last given here (a later one needs a rename)."""
        self._failing: set[ThreadKey] = set()
        self._writer: asyncio.Task[None] | None = None
        self._closed = False

    def waiting(self, ask_id: str, channel: str, thread_ts: str, title: str) -> None:
        """Ask `ask_id` waits in the thread: the session is suspended under `title`."""
        session = self._session((channel, thread_ts))
        session.waiting.pop(ask_id, None)
        session.waiting[ask_id] = title[:TITLE_MAX]
        session.stopped = session.ended = False
        self._change((channel, thread_ts))

    def settled(self, ask_id: str, channel: str, thread_ts: str) -> None:
        """Ask `ask_id` no longer waits: the agent is processing again once none does.

        A session this process never showed was suspended by another replica (which posted
        the ask); unlike a status line it never lapses, so it is moved on from here too. An
        ask of that thread still waiting on the other replica is shown again at its next
        change there."""
        session = self._sessions.get((channel, thread_ts))
        if session is None:
            self._session((channel, thread_ts))
        elif session.waiting.pop(ask_id, None) is None:
            return
        self._change((channel, thread_ts))

    def stopped(self, channel: str, thread_ts: str) -> None:
        """A person pressed Stop: the session leaves `processing` for `active`."""
        self._session((channel, thread_ts)).stopped = True
        self._change((channel, thread_ts))

    def ended(self, channel: str, thread_ts: str) -> None:
        """The agent's session ended: `closed`."""
        session = self._session((channel, thread_ts))
        session.waiting.clear()
        session.ended = True
        self._change((channel, thread_ts))

    def shown(self, channel: str, thread_ts: str) -> SessionState | None:
        """The state this keeps for the thread's session, if any."""
        session = self._sessions.get((channel, thread_ts))
        return session.state if session is not None else None

    async def sent(self) -> None:
        """Wait until every change recorded so far (and any made meanwhile) was sent."""
        while self._writer is not None and not self._writer.done():
            await asyncio.wait({self._writer})

    async def close(self, grace: float = CLOSE_GRACE_SECONDS) -> None:
        """Send what is left (up to `grace` seconds), then stop; a session keeps its status
        in Slack, and recovery shows a waiting ask's again."""
        self._closed = True
        if self._writer is not None and not self._writer.done():
            await asyncio.wait({self._writer}, timeout=grace)
            self._writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._writer
        self._unsent.clear()

    def _session(self, key: ThreadKey) -> _Session:
        session = self._sessions.get(key)
        if session is None:
            session = self._sessions[key] = _Session()
        return session

    def _change(self, key: ThreadKey) -> None:
        if self._closed:
            return
        self._unsent.setdefault(key, None)
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write(), name="agent session writer")

    async def _write(self) -> None:
        while self._unsent:
            key, _ = self._unsent.popitem(last=False)
            session = self._sessions.get(key)
            if session is None:
                continue
            state = session.state
            if state.status is SessionStatus.CLOSED:
                del self._sessions[key]  # nothing more to show
            await self._set(key, state)

    async def _set(self, key: ThreadKey, state: SessionState) -> None:
        channel, thread_ts = key
        method = "agents.sessions.setStatus"
        try:
            await self._client.agents_sessions_setStatus(
                channel_id=channel, thread_ts=thread_ts, status=state.status, title=state.title
            )
            given = self._titles.get(key)
            if state.title is not None and given is not None and given != state.title:
                method = "agents.sessions.rename"  # the title only counts on creation
                await self._client.agents_sessions_rename(
                    channel_id=channel, thread_ts=thread_ts, title=state.title
                )
            if state.title is not None:
                self._titles[key] = state.title
        except Exception as error:  # the one writer must outlive any failure
            if key not in self._failing:
                self._failing.add(key)
                why = error.error if isinstance(error, SlackCallFailed) else type(error).__name__
                log.warning(
                    "Slack did not show the agent session in %s/%s (%s: %s); asks there are "
                    "unaffected",
                    channel,
                    thread_ts,
                    method,
                    why,
                )
        else:
            self._failing.discard(key)
        if state.status is SessionStatus.CLOSED:
            self._titles.pop(key, None)
            self._failing.discard(key)
