"""Thin Bolt listeners: ack, parse the payload, hand one typed call to `Interactions`.

Nothing after an `ack()` may raise: an exception right after it erases the ack in Bolt, so
post-ack work is parsed defensively and spawned as a tracked task.
"""

from bot.interactions.listeners.actions import register_actions
from bot.interactions.listeners.events import register_events
from bot.interactions.listeners.views import register_views

__all__ = ["register_actions", "register_events", "register_views"]
