"""SLACK_QUESTIONS_AGENT_SESSIONS: the operator says the app is declared as an agent."""

from __future__ import annotations

from bot.config import load_config, parse_args

from .test_config import problems


def test_agent_sessions_are_off_unless_the_app_is_said_to_be_declared_an_agent() -> None:
    assert load_config({}, parse_args([])).slack.agent_sessions is False


def test_agent_sessions_1_turns_them_on() -> None:
    config = load_config({"SLACK_QUESTIONS_AGENT_SESSIONS": "1"}, parse_args([]))
    assert config.slack.agent_sessions is True


def test_another_value_is_refused_naming_the_variable_and_what_it_means() -> None:
    assert problems({"SLACK_QUESTIONS_AGENT_SESSIONS": "yes"}) == (
        "cannot start:\n  - SLACK_QUESTIONS_AGENT_SESSIONS must be 1 (the app is declared as an "
        "agent: features.agent_view in its manifest) or 0, not 'yes'"
    )
