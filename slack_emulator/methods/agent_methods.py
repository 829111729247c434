"""agents.sessions.setStatus (an agent session's lifecycle status, creating it if needed) and
agents.sessions.rename (its title, "1-200 characters").

https://docs.slack.dev/reference/methods/agents.sessions.setStatus — required `status`
(`active | processing | suspended | closed`); `channel_id` ("Required for public channels"),
`thread_ts` ("Required for thread-based sessions in regular channels and DMs"), `title`
(max 200 characters, used only on creation), `initiator_user_id` (only on creation, "Must be a
member of the channel"). The answer names the session's `status`, the app's `agent_status` and
the `title`; while the app does not subscribe to `agent_session_stopped` it carries the warning
`missing_agent_session_stopped_event_subscription`.

The reference page as stored names no error codes; these follow Slack's general ones and
assistant.threads.setStatus's (an assumption, said in the emulator's README): an app not
declared as an agent `missing_scope` (declaring it adds `assistant:write`), a bad or missing
status, a missing thread_ts or a long title `invalid_arguments`, an unknown thread
`invalid_thread_ts`, an initiator outside the channel `user_not_in_channel`.
"""

from __future__ import annotations

from typing import cast

from slack_emulator.agent_sessions import (
    MISSING_STOP_SUBSCRIPTION,
    SESSION_STATUSES,
    TITLE_MAX,
    SessionStatus,
)
from slack_emulator.methods.chat_methods import bot_channel
from slack_emulator.slack_error import SlackError
from slack_emulator.web_api import MethodContext, Params
from slack_emulator.wire import JsonDict


def set_session_status(ctx: MethodContext, p: Params) -> JsonDict:
    """agents.sessions.setStatus, for thread-based sessions (the only kind in a channel)."""
    sessions = ctx.workspace.agent_sessions
    if not sessions.declared:
        raise SlackError(
            "missing_scope",
            messages=["[ERROR] only apps declared as agents can set agent sessions"],
        )
    status = p.optional("status")
    if status is None:
        raise SlackError("invalid_arguments", messages=["[ERROR] missing required field: status"])
    if status not in SESSION_STATUSES:
        raise SlackError(
            "invalid_arguments",
            messages=[f"[ERROR] status must be one of {', '.join(SESSION_STATUSES)}"],
        )
    channel = bot_channel(ctx, p.optional("channel_id"))
    thread_ts = p.optional("thread_ts")
    if thread_ts is None:
        raise SlackError(
            "invalid_arguments",
            messages=["[ERROR] thread_ts is required for a session in a channel thread"],
        )
    root = ctx.workspace.message(channel.id, thread_ts)
    if root is None or root.is_reply:
        raise SlackError("invalid_thread_ts")
    title = p.optional("title")
    if title is not None and len(title) > TITLE_MAX:
        raise SlackError(
            "invalid_arguments", messages=[f"[ERROR] title: no more than {TITLE_MAX} characters"]
        )
    initiator = p.optional("initiator_user_id")
    if initiator is not None and initiator not in channel.members:
        raise SlackError("user_not_in_channel")
    session = sessions.set_status(
        channel.id,
        root.ts,
        cast(SessionStatus, status),
        title=title,
        initiator_user_id=initiator,
    )
    body: JsonDict = {"status": session.status, "agent_status": session.status}
    if session.title is not None:
        body["title"] = session.title
    if not sessions.subscribed:
        body["warning"] = MISSING_STOP_SUBSCRIPTION
        body["response_metadata"] = {"warnings": [MISSING_STOP_SUBSCRIPTION]}
    return body


def rename_session(ctx: MethodContext, p: Params) -> JsonDict:
    """agents.sessions.rename: a new title (1 to 200 characters) for the thread's session."""
    if not ctx.workspace.agent_sessions.declared:
        raise SlackError(
            "missing_scope",
            messages=["[ERROR] only apps declared as agents can set agent sessions"],
        )
    title = (p.optional("title") or "").strip()
    if not 1 <= len(title) <= TITLE_MAX:
        raise SlackError(
            "invalid_arguments", messages=[f"[ERROR] title: 1 to {TITLE_MAX} characters"]
        )
    channel = bot_channel(ctx, p.optional("channel_id"))
    thread_ts = p.optional("thread_ts")
    if thread_ts is None:
        raise SlackError(
            "invalid_arguments",
            messages=["[ERROR] thread_ts is required for a session in a channel thread"],
        )
    session = ctx.workspace.agent_sessions.rename(channel.id, thread_ts, title)
    return {"title": session.title}
