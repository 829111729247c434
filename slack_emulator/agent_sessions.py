"""Slack's agent sessions: the lifecycle record of the app working in one thread.

https://docs.slack.dev/ai/agent-sessions — "Only apps declared as agents in the app settings
can create sessions" (the manifest's `features.agent_view`); `agents.sessions.setStatus`
creates a thread's session on first use and sets its status (`active`, `processing`,
`suspended`, `closed`); the title (at most 200 characters) applies only when the call creates
the session. A person may press the native Stop button "shown while an agent session is in
the processing status", and only while the app subscribes to `agent_session_stopped`; until
it does, every setStatus answers the warning `missing_agent_session_stopped_event_subscription`.
"The session status does not update automatically when the user clicks stop": the app moves it.

One app is installed, so a session's status is that app's status (Slack derives a session's
status from all its agents; with one agent they are the same).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Final, Literal, get_args

from slack_emulator.changes import Changes
from slack_emulator.slack_error import SlackError
from slack_emulator.timekeeping import Clock

SessionStatus = Literal["active", "processing", "suspended", "closed"]
SESSION_STATUSES: Final[tuple[str, ...]] = get_args(SessionStatus)
"""agents.sessions.setStatus: "Acceptable values: active processing suspended closed"."""

TITLE_MAX: Final = 200
"""agents.sessions.setStatus: "Title for the agent session (max 200 characters)"."""

MISSING_STOP_SUBSCRIPTION: Final = "missing_agent_session_stopped_event_subscription"
STOP_EVENT: Final = "agent_session_stopped"


@dataclass(frozen=True)
class AgentSession:
    """One thread's agent session as the client shows it."""

    channel: str
    thread_ts: str
    status: SessionStatus
    title: str | None
    initiator_user_id: str | None
    updated_at: float


class AgentSessions:
    """Every agent session of the workspace, and whether the app may have them.

    `declared`: the app is declared as an agent (app settings, `features.agent_view`).
    `subscribed`: it subscribes to `agent_session_stopped`, so the client offers Stop."""

    def __init__(
        self, changes: Changes, clock: Clock, *, declared: bool = False, subscribed: bool = True
    ) -> None:
        self._changes = changes
        self._clock = clock
        self.declared = declared
        self.subscribed = subscribed
        self._sessions: dict[tuple[str, str], AgentSession] = {}

    def set_status(
        self,
        channel: str,
        thread_ts: str,
        status: SessionStatus,
        *,
        title: str | None,
        initiator_user_id: str | None,
    ) -> AgentSession:
        """Create the thread's session (with `title` and initiator) or move it to `status`."""
        key = (channel, thread_ts)
        found = self._sessions.get(key)
        at = self._clock.now()
        if found is None:
            session = AgentSession(channel, thread_ts, status, title, initiator_user_id, at)
        else:  # "ignored if the session already exists"
            session = replace(found, status=status, updated_at=at)
        self._sessions[key] = session
        self._changes.notify()
        return session

    def rename(self, channel: str, thread_ts: str, title: str) -> AgentSession:
        """Retitle the thread's session; a thread with none is `not_authorized` (as Slack
        answers agents.sessions.rename before the first setStatus)."""
        found = self._sessions.get((channel, thread_ts))
        if found is None:
            raise SlackError("not_authorized")
        session = self._sessions[(channel, thread_ts)] = replace(
            found, title=title, updated_at=self._clock.now()
        )
        self._changes.notify()
        return session

    def session(self, channel: str, thread_ts: str) -> AgentSession | None:
        """The thread's session, or None if the app never set one."""
        return self._sessions.get((channel, thread_ts))

    def stoppable(self, channel: str, thread_ts: str) -> AgentSession:
        """The session a person may stop now; `SlackError` says why not: the client shows
        Stop only while the session is processing and the app subscribes to the event."""
        session = self.session(channel, thread_ts)
        if session is None:
            raise SlackError("session_not_found", messages=[f"no agent session in {thread_ts}"])
        if not self.subscribed:
            raise SlackError(
                "stop_not_offered",
                messages=[f"the app does not subscribe to {STOP_EVENT}: no Stop button"],
            )
        if session.status != "processing":
            raise SlackError(
                "stop_not_offered",
                messages=[f"Stop is shown only while processing; the session is {session.status}"],
            )
        return session
