"""Events API listeners: thread replies that answer text questions."""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncApp

from ..interactions import Interactions
from ..payloads import MessageEvent
from ..tasks import Tasks
from .parsing import parse


def register_events(app: AsyncApp, interactions: Interactions, tasks: Tasks) -> None:
    """Wire message events to `interactions.reply`."""

    @app.event("message")
    async def on_message(event: dict[str, Any]) -> None:
        # Bolt acks events itself; the work still leaves the request at once.
        tasks.spawn(_reply(interactions, event), name="message")


async def _reply(interactions: Interactions, event: dict[str, Any]) -> None:
    message = parse(MessageEvent, event)
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
