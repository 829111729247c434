"""Slack provider for slack-questions: the Bolt app, its listeners and the local Slack emulator.

Imports are lazy so `bot.emulator` (which needs nothing else of `bot`) loads on its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .slack_provider import SlackQuestionProvider, SlackSettings, StartupError

__all__ = ["SlackQuestionProvider", "SlackSettings", "StartupError"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import slack_provider

        return getattr(slack_provider, name)
    raise AttributeError(f"module 'bot' has no attribute {name!r}")
