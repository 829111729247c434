"""Slack provider for slack-questions: the Bolt app, its listeners and the `python -m bot` service."""

from .slack_provider import SlackQuestionProvider, SlackSettings, StartupError

__all__ = ["SlackQuestionProvider", "SlackSettings", "StartupError"]
