"""Slack provider for slack-questions: the Bolt app, its listeners and the `python -m bot` service.

`from bot import SlackQuestionProvider` resolves on first use, so that importing a pure module
(`bot.render`, `bot.answers`, `bot.store`) loads no Bolt, aiohttp or socket code
(`tests/provider/test_boundaries.py` proves it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.slack_provider import SlackQuestionProvider, SlackSettings, StartupError

__all__ = ["SlackQuestionProvider", "SlackSettings", "StartupError"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from bot import slack_provider

        return getattr(slack_provider, name)
    raise AttributeError(f"module 'bot' has no attribute {name!r}")
