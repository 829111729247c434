"""The service's log lines: level and format from the environment, and no secret in any line.

`LOG_LEVEL` (debug, info, warning, error; default info) and `LOG_FORMAT` (`text`, default, or
`json`: one object per line for a log collector). `RedactSecrets` sits on the handler, so
every record — ours, Bolt's, slack_sdk's, aiohttp's — is cleaned before it is written:
anything shaped like a Slack token, and the configured signing secret and relay token.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import time
from collections.abc import Iterable, Mapping
from typing import Final, Literal, TextIO

LogFormat = Literal["text", "json"]

LEVELS: Final = ("debug", "info", "warning", "error", "critical")
TEXT_FORMAT: Final = "%(asctime)s %(levelname)s %(name)s: %(message)s"
REDACTED: Final = "[redacted]"

_SLACK_TOKEN: Final = re.compile(r"\b(?:xox[a-z]|xapp)-[A-Za-z0-9-]+")
"""Bot (xoxb-), user (xoxp-), app-level (xapp-) and every other xox?- token Slack issues."""

# Attributes every LogRecord has; anything else on a record came from `extra=`.
_STANDARD: Final = frozenset(
    logging.LogRecord("", 0, "", 0, "", None, None).__dict__.keys() | {"message", "asctime"}
)


class LogSettingsError(ValueError):
    """LOG_LEVEL or LOG_FORMAT has a value we do not know; the message says which."""


def log_settings(env: Mapping[str, str]) -> tuple[int, LogFormat]:
    """The level and format `env` asks for, or `LogSettingsError` naming the variable."""
    level = (env.get("LOG_LEVEL") or "info").strip().lower()
    if level not in LEVELS:
        raise LogSettingsError(f"LOG_LEVEL must be one of {', '.join(LEVELS)}, not {level!r}")
    chosen = (env.get("LOG_FORMAT") or "text").strip().lower()
    if chosen not in ("text", "json"):
        raise LogSettingsError(f"LOG_FORMAT must be text or json, not {chosen!r}")
    fmt: LogFormat = "json" if chosen == "json" else "text"
    return logging.getLevelNamesMapping()[level.upper()], fmt


class RedactSecrets(logging.Filter):
    """Replaces Slack tokens and the configured secrets in a record's message, its `extra`
    fields and its traceback with "[redacted]"; never drops a record."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        self._secrets: list[str] = []
        self.add_secrets(secrets)

    def add_secrets(self, secrets: Iterable[str]) -> None:
        """Also redact these exact values (empty ones are ignored); longest first, so a
        secret containing another is replaced whole."""
        known = set(self._secrets) | {s for s in secrets if s}
        self._secrets = sorted(known, key=len, reverse=True)

    def redact(self, text: str) -> str:
        """`text` with every token and secret replaced."""
        for secret in self._secrets:
            text = text.replace(secret, REDACTED)
        return _SLACK_TOKEN.sub(REDACTED, text)

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a bad format string: keep what was logged, still cleaned
            message = f"{record.msg} {record.args}"
        record.msg, record.args = self.redact(message), None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            # The formatter prints exc_text, which we cleaned; drop the raw exception so no
            # later handler formats it afresh.
            record.exc_text, record.exc_info = self.redact(record.exc_text), None
        if record.stack_info:
            record.stack_info = self.redact(record.stack_info)
        for name, value in list(record.__dict__.items()):
            if name not in _STANDARD and isinstance(value, str):
                setattr(record, name, self.redact(value))
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time (UTC, ISO 8601), level, logger, message, the record's
    `extra` fields, and the traceback when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name, value in record.__dict__.items():
            if name not in _STANDARD and not name.startswith("_"):
                line[name] = (
                    value if isinstance(value, str | int | float | bool | None) else str(value)
                )
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            line["exception"] = record.exc_text
        return json.dumps(line, ensure_ascii=False)


def configure_logging(
    level: int,
    fmt: LogFormat,
    *,
    stream: TextIO | None = None,
    logger: logging.Logger | None = None,
) -> RedactSecrets:
    """Send every record of `logger` (the root logger: all of them) to `stream` (stderr) at
    `level` in `fmt`, through a `RedactSecrets` the caller adds the configured secrets to
    once it knows them. Replaces the logger's handlers."""
    handler = logging.StreamHandler(sys.stderr if stream is None else stream)
    handler.setFormatter(JsonFormatter() if fmt == "json" else logging.Formatter(TEXT_FORMAT))
    redact = RedactSecrets()
    handler.addFilter(redact)
    root = logging.getLogger() if logger is None else logger
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    return redact
