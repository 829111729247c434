"""Thin Bolt listeners: ack, parse the payload, hand one typed call to `Interactions`.

Nothing after an `ack()` may raise: an exception right after it erases the ack in Bolt, so
post-ack work is parsed defensively and spawned as a tracked task.
"""

from .actions import register_actions
from .events import register_events
from .views import register_views

__all__ = ["register_actions", "register_events", "register_views"]
