"""Events API listeners: thread replies that answer text questions.

A reply that may answer is kept in the inbox (bot/interactions/inbox.py) before Bolt acks the event,
which it does once this listener returns (`process_before_response`).
"""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncApp, AsyncBoltRequest

from bot.interactions.answering import Interactions
from bot.interactions.inbox import Inbox
from bot.interactions.listeners.parsing import parse
from bot.payloads import MessageEvent
from bot.store import InboxKind


def register_events(app: AsyncApp, interactions: Interactions, inbox: Inbox) -> None:
    """Wire message events to `interactions.reply`."""
    inbox.route(InboxKind.MESSAGE, lambda body: _reply(interactions, body))

    @app.event("message")
    async def on_message(body: dict[str, Any], request: AsyncBoltRequest) -> None:
        # Bolt acks events itself; the work still leaves the request at once.
        if _may_answer(body.get("event")):
            item = await inbox.keep(InboxKind.MESSAGE, body, request.raw_body)
            inbox.handle(InboxKind.MESSAGE, item, body)


def _may_answer(event: object) -> bool:
    """A person's plain reply in a thread: the only message that can answer (cheap to tell
    from the raw event, so edits, joins and bots' posts never reach the inbox)."""
    return (
        isinstance(event, dict)
        and event.get("thread_ts") is not None
        and event.get("subtype") is None
        and event.get("bot_id") is None
        and event.get("user") is not None
    )


async def _reply(interactions: Interactions, body: dict[str, Any]) -> None:
    event = body.get("event")
    message = parse(MessageEvent, event) if isinstance(event, dict) else None
    # Only people's plain replies in a thread; edits, joins and bots' posts are not answers.
    if (
        message is None
        or message.thread_ts is None
        or message.subtype is not None
        or message.bot_id is not None
        or message.user is None
    ):
        return
    await interactions.reply(message.channel, message.thread_ts, message.user, message.text)
