"""Logs: LOG_LEVEL and LOG_FORMAT read from the environment, and no Slack token or configured
secret in any line, whatever logged it."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest

from bot.logs import LogSettingsError, RedactSecrets, configure_logging, log_settings

BOT_TOKEN = "xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOp"
APP_TOKEN = "xapp-1-A0123-456789-abcdef0123"
SIGNING_SECRET = "8f14e45fceea167a5a36dedd4bea2543"
RELAY_TOKEN = "relay-token-long-enough-1234"


@pytest.fixture
def logger() -> Iterator[logging.Logger]:
    """A logger of the test's own, so the root logger (and pytest's capture) is untouched."""
    log = logging.getLogger(f"tests.logs.{id(object())}")
    log.propagate = False
    yield log
    for handler in list(log.handlers):
        log.removeHandler(handler)


def test_the_defaults_are_info_in_text() -> None:
    assert log_settings({}) == (logging.INFO, "text")


def test_log_level_and_format_are_read_case_insensitively() -> None:
    assert log_settings({"LOG_LEVEL": "DEBUG", "LOG_FORMAT": "JSON"}) == (logging.DEBUG, "json")


def test_an_unknown_log_level_is_refused_naming_the_variable() -> None:
    with pytest.raises(LogSettingsError) as raised:
        log_settings({"LOG_LEVEL": "verbose"})
    assert str(raised.value) == (
        "LOG_LEVEL must be one of debug, info, warning, error, critical, not 'verbose'"
    )


def test_an_unknown_log_format_is_refused_naming_the_variable() -> None:
    with pytest.raises(LogSettingsError) as raised:
        log_settings({"LOG_FORMAT": "yaml"})
    assert str(raised.value) == "LOG_FORMAT must be text or json, not 'yaml'"


def test_text_lines_carry_time_level_logger_and_message(logger: logging.Logger) -> None:
    out = io.StringIO()
    configure_logging(logging.INFO, "text", stream=out, logger=logger)
    logger.info("ask %s posted", "a1")
    assert out.getvalue().rstrip("\n").endswith(f" INFO {logger.name}: ask a1 posted")


def test_json_lines_are_one_object_with_the_extra_fields(logger: logging.Logger) -> None:
    out = io.StringIO()
    configure_logging(logging.INFO, "json", stream=out, logger=logger)
    logger.info("ask %s posted", "a1", extra={"ask_id": "a1", "age_seconds": 1.5})
    line = json.loads(out.getvalue())
    assert line["level"] == "info"
    assert line["logger"] == logger.name
    assert line["message"] == "ask a1 posted"
    assert line["ask_id"] == "a1"
    assert line["age_seconds"] == 1.5
    assert line["time"].endswith("Z")


def test_records_below_the_level_are_not_written(logger: logging.Logger) -> None:
    out = io.StringIO()
    configure_logging(logging.WARNING, "text", stream=out, logger=logger)
    logger.info("quiet")
    assert out.getvalue() == ""


def test_any_slack_token_shape_is_redacted_without_being_configured(
    logger: logging.Logger,
) -> None:
    out = io.StringIO()
    configure_logging(logging.INFO, "text", stream=out, logger=logger)
    logger.info("tokens %s and %s and xoxp-1-2-3", BOT_TOKEN, APP_TOKEN)
    assert out.getvalue().rstrip("\n").endswith("tokens [redacted] and [redacted] and [redacted]")


def test_the_configured_signing_secret_and_relay_token_are_redacted(
    logger: logging.Logger,
) -> None:
    out = io.StringIO()
    redact = configure_logging(logging.INFO, "json", stream=out, logger=logger)
    redact.add_secrets([SIGNING_SECRET, RELAY_TOKEN, ""])
    logger.info("secret=%s", SIGNING_SECRET, extra={"authorization": f"Bearer {RELAY_TOKEN}"})
    line = json.loads(out.getvalue())
    assert line["message"] == "secret=[redacted]"
    assert line["authorization"] == "Bearer [redacted]"


def test_a_secret_inside_a_traceback_is_redacted(logger: logging.Logger) -> None:
    out = io.StringIO()
    redact = configure_logging(logging.INFO, "text", stream=out, logger=logger)
    redact.add_secrets([SIGNING_SECRET])
    try:
        raise ValueError(f"bad signature with {SIGNING_SECRET} for {BOT_TOKEN}")
    except ValueError:
        logger.exception("request failed")
    written = out.getvalue()
    assert "ValueError: bad signature with [redacted] for [redacted]" in written
    assert SIGNING_SECRET not in written
    assert BOT_TOKEN not in written


def test_a_secret_containing_another_is_redacted_whole() -> None:
    redact = RedactSecrets(["abcd1234", "abcd1234efgh5678"])
    assert redact.redact("x abcd1234efgh5678 y") == "x [redacted] y"


def test_text_that_only_resembles_a_prefix_is_kept() -> None:
    assert RedactSecrets().redact("xoxb- alone, and xapp without dash") == (
        "xoxb- alone, and xapp without dash"
    )
