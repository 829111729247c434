"""Configuration of `python -m bot`: environment variables and flags, checked at start-up.

Every problem is reported at once, each saying which variable is wrong and what it should be.
"""

from __future__ import annotations

import argparse
import re
import secrets
from collections.abc import Callable, Mapping
from enum import StrEnum
from pathlib import Path
from typing import Final

from pydantic import BaseModel, ConfigDict, SecretStr

# The flags live apart so that `--help` loads no service; parse_args stays importable from here.
from bot.flags import DEFAULT_HOST, DEFAULT_PORT
from bot.flags import ConfigError as ConfigError
from bot.flags import parse_args as parse_args
from bot.parts import SlackSettings
from bot.review import PolicyError, load_policies
from bot.slack.api import SLACK_API_URL
from bot.slack.responders import ANYONE, AnyoneInChannel
from bot.store.audit import audit_key
from bot.store.location import DEFAULT_DB, LocationError, StoreLocation, store_location


class Mode(StrEnum):
    """How the bot reaches Slack."""

    HTTP = "http"  # Slack posts to /slack/events, signed with the signing secret
    SOCKET = "socket"  # the bot opens a Socket Mode connection with the app token
    OFFLINE = "offline"  # no credentials: the local emulator stands in for Slack


# How long a client may take to send a request's headers (counted from the connection
# opening, or from the previous answer on a kept-alive connection), and then its body;
# past either the service hangs up, so trickling clients cannot hold connections open.
DEFAULT_HEADER_TIMEOUT_S: Final = 10.0
DEFAULT_BODY_TIMEOUT_S: Final = 30.0
_MAX_TIMEOUT_S: Final = 3600.0
# Relay waits held open at once, for every caller together (SLACK_QUESTIONS_MAX_WAITS).
DEFAULT_MAX_WAITS: Final = 1000
# Settled asks are purged this long after they were settled (SLACK_QUESTIONS_RETENTION).
DEFAULT_RETENTION_S: Final = 90 * 86400.0
_RETENTION = re.compile(r"^(\d+(?:\.\d+)?)([mhd])$")
_RETENTION_UNITS: Final = {"m": 60, "h": 3600, "d": 86400}


class Config(BaseModel):
    """Typed settings of the service; what the Slack provider needs is its `slack` part."""

    model_config = ConfigDict(frozen=True)

    mode: Mode
    slack: SlackSettings  # offline: fresh credentials the local emulator is told to accept
    app_token: SecretStr | None = None
    db_path: Path = DEFAULT_DB  # SQLite (the default), unless `postgres_url` is set
    # A PostgreSQL store shared by several replicas (SLACK_QUESTIONS_DB=postgresql://…).
    postgres_url: SecretStr | None = None
    # This replica's name, the same across its restarts (default: host name and port).
    replica: str | None = None
    relay_token: SecretStr | None = None
    # Further channels relay asks may be routed to, beside the questions channel.
    channels: tuple[str, ...] = ()  # SLACK_QUESTIONS_CHANNELS
    max_waits: int = DEFAULT_MAX_WAITS  # SLACK_QUESTIONS_MAX_WAITS
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    metrics: bool = False  # /metrics served (SLACK_QUESTIONS_METRICS=1)
    header_timeout_s: float = DEFAULT_HEADER_TIMEOUT_S  # SLACK_QUESTIONS_HEADER_TIMEOUT
    body_timeout_s: float = DEFAULT_BODY_TIMEOUT_S  # SLACK_QUESTIONS_BODY_TIMEOUT
    # Seconds a settled ask is kept; None: forever (SLACK_QUESTIONS_RETENTION=forever).
    retention_s: float | None = DEFAULT_RETENTION_S
    # The decision log's HMAC key (SLACK_QUESTIONS_AUDIT_KEY); None: the offline key, which
    # is in the source (the service logs a WARNING at start).
    audit_key: SecretStr | None = None
    # Where the decision log's head is posted, and how often (SLACK_QUESTIONS_AUDIT_CHANNEL,
    # SLACK_QUESTIONS_AUDIT_EVERY in seconds, default daily); None: not published.
    audit_channel: str | None = None
    audit_every_s: float = 86400.0


_TOKEN_PREFIXES = {"SLACK_BOT_TOKEN": "xoxb-", "SLACK_APP_TOKEN": "xapp-"}
_SIGNING_SECRET = re.compile(r"^[0-9a-f]{32}$")
_CHANNEL = re.compile(r"^[CG][A-Z0-9]{2,}$")
_RESPONDER = re.compile(r"^[UWS][A-Z0-9]{2,}$")
_RELAY_TOKEN_MIN = 16


def load_config(env: Mapping[str, str], args: argparse.Namespace) -> Config:
    """Build the configuration, or raise `ConfigError` listing everything that is wrong."""
    problems: list[str] = []

    def get(name: str) -> str | None:
        value = env.get(name, "").strip()
        return value or None

    bot_token, secret, app_token = (
        get("SLACK_BOT_TOKEN"),
        get("SLACK_SIGNING_SECRET"),
        get("SLACK_APP_TOKEN"),
    )
    for name, value in (("SLACK_BOT_TOKEN", bot_token), ("SLACK_APP_TOKEN", app_token)):
        prefix = _TOKEN_PREFIXES[name]
        if value is not None and not value.startswith(prefix):
            problems.append(f"{name} must start with {prefix!r} (it starts with {value[:5]!r})")
    if bot_token is None and (secret or app_token):
        given = "SLACK_SIGNING_SECRET" if secret else "SLACK_APP_TOKEN"
        problems.append(
            f"{given} is set but SLACK_BOT_TOKEN is missing: set the bot token "
            "(xoxb-…, from OAuth & Permissions), or unset both to run offline"
        )
    if bot_token is None:
        mode = Mode.OFFLINE
    elif app_token is not None:
        mode = Mode.SOCKET
    else:
        mode = Mode.HTTP
        if secret is None:
            problems.append(
                "SLACK_SIGNING_SECRET is missing: HTTP mode needs it to verify Slack's requests "
                "(Basic Information → App Credentials), or set SLACK_APP_TOKEN for Socket Mode"
            )
    if secret is not None and not _SIGNING_SECRET.match(secret):
        problems.append("SLACK_SIGNING_SECRET must be the 32 hexadecimal characters Slack shows")

    channel = args.channel or get("SLACK_QUESTIONS_CHANNEL")
    if channel is not None and not _CHANNEL.match(channel):
        problems.append(
            f"SLACK_QUESTIONS_CHANNEL must be a channel id like C0123456789, not {channel!r}"
        )
    if mode is not Mode.OFFLINE and channel is None:
        problems.append(
            "SLACK_QUESTIONS_CHANNEL is missing: the id of the channel questions are posted in"
        )

    channels = tuple(c for c in re.split(r"[\s,]+", get("SLACK_QUESTIONS_CHANNELS") or "") if c)
    bad_channels = [c for c in channels if not _CHANNEL.match(c)]
    if bad_channels:
        problems.append(
            "SLACK_QUESTIONS_CHANNELS must list channel ids like C0123456789, not "
            + ", ".join(repr(c) for c in bad_channels)
        )
    max_waits = parse_count(get("SLACK_QUESTIONS_MAX_WAITS"), DEFAULT_MAX_WAITS)
    if max_waits is None:
        problems.append("SLACK_QUESTIONS_MAX_WAITS must be a whole number from 1 to 1000000")
        max_waits = DEFAULT_MAX_WAITS

    responders = _responders(get("SLACK_QUESTIONS_RESPONDERS"), mode, problems)

    relay_token = get("SLACK_QUESTIONS_RELAY_TOKEN")
    if relay_token is not None and len(relay_token) < _RELAY_TOKEN_MIN:
        problems.append(
            f"SLACK_QUESTIONS_RELAY_TOKEN must be at least {_RELAY_TOKEN_MIN} characters"
        )

    port = args.port if args.port is not None else _port(get("PORT"), problems)
    if not 0 <= port <= 65535:
        problems.append(f"--port must be between 0 and 65535, not {port}")

    api_url = get("SLACK_API_URL") or SLACK_API_URL
    if not re.match(r"^https?://", api_url):
        problems.append(f"SLACK_API_URL must be an http(s) URL, not {api_url!r}")
    if not api_url.endswith("/"):
        api_url += "/"

    offline = mode is Mode.OFFLINE
    settings = SlackSettings(
        # Offline, the local emulator is told to accept fresh credentials of our making.
        bot_token=f"xoxb-offline-{secrets.token_hex(8)}" if bot_token is None else bot_token,
        signing_secret=secrets.token_hex(16) if offline else secret or "",  # none: Socket Mode
        channel=channel,
        responders=responders,
        api_url=api_url,
    )
    policy_file = get("SLACK_QUESTIONS_REVIEW_POLICY")
    if policy_file is not None:
        try:
            settings = settings.model_copy(update={"review": load_policies(Path(policy_file))})
        except PolicyError as error:
            problems.append(f"SLACK_QUESTIONS_REVIEW_POLICY: {error}")

    db_path, postgres_url = _store_of(args.db or get("SLACK_QUESTIONS_DB"), problems)
    agent_sessions = (get("SLACK_QUESTIONS_AGENT_SESSIONS") or "0").lower()
    if agent_sessions not in ("0", "1", "true", "false"):
        problems.append(
            "SLACK_QUESTIONS_AGENT_SESSIONS must be 1 (the app is declared as an agent: "
            f"features.agent_view in its manifest) or 0, not {agent_sessions!r}"
        )
    elif agent_sessions in ("1", "true"):
        settings = settings.model_copy(update={"agent_sessions": True})
    metrics = (get("SLACK_QUESTIONS_METRICS") or "0").lower()
    if metrics not in ("0", "1", "true", "false"):
        problems.append(f"SLACK_QUESTIONS_METRICS must be 1 (serve /metrics) or 0, not {metrics!r}")

    header_timeout = _seconds(
        "SLACK_QUESTIONS_HEADER_TIMEOUT", get, DEFAULT_HEADER_TIMEOUT_S, problems
    )
    body_timeout = _seconds("SLACK_QUESTIONS_BODY_TIMEOUT", get, DEFAULT_BODY_TIMEOUT_S, problems)
    retention = _retention(get("SLACK_QUESTIONS_RETENTION"), problems)
    try:
        key = audit_key(get("SLACK_QUESTIONS_AUDIT_KEY"))
    except ValueError as error:
        problems.append(str(error))
        key = None
    audit_channel = get("SLACK_QUESTIONS_AUDIT_CHANNEL")
    if audit_channel is not None and not _CHANNEL.match(audit_channel):
        problems.append(
            f"SLACK_QUESTIONS_AUDIT_CHANNEL must be a channel id (C…), not {audit_channel!r}"
        )
    audit_every = get("SLACK_QUESTIONS_AUDIT_EVERY") or "86400"
    try:
        audit_every_s = float(audit_every)
    except ValueError:
        audit_every_s = float("nan")
    if not 0 < audit_every_s < float("inf"):
        problems.append(
            f"SLACK_QUESTIONS_AUDIT_EVERY must be a number of seconds above 0, not {audit_every!r}"
        )

    if problems:
        raise ConfigError("cannot start:\n" + "\n".join(f"  - {p}" for p in problems))
    return Config(
        mode=mode,
        slack=settings,
        app_token=SecretStr(app_token) if app_token else None,
        db_path=db_path,
        postgres_url=postgres_url,
        replica=get("SLACK_QUESTIONS_REPLICA"),
        relay_token=SecretStr(relay_token) if relay_token else None,
        channels=tuple(c for c in dict.fromkeys(channels) if c != channel),
        max_waits=max_waits,
        host=args.host or get("HOST") or DEFAULT_HOST,
        port=port,
        metrics=metrics in ("1", "true"),
        header_timeout_s=header_timeout,
        body_timeout_s=body_timeout,
        retention_s=retention,
        audit_key=None if key is None else SecretStr(key.decode()),
        audit_channel=audit_channel,
        audit_every_s=audit_every_s,
    )


def parse_count(value: str | None, default: int, most: int = 1_000_000) -> int | None:
    """A whole number from 1 to `most` (`default` if unset); None if it is not one."""
    if value is None:
        return default
    number = int(value) if value.isdigit() else 0
    return number if 1 <= number <= most else None


def _seconds(
    name: str, get: Callable[[str], str | None], default: float, problems: list[str]
) -> float:
    """A timeout in seconds: a number above 0 and at most an hour (default when unset)."""
    value = get(name)
    if value is None:
        return default
    try:
        seconds = float(value)
    except ValueError:
        seconds = float("nan")
    if not 0 < seconds <= _MAX_TIMEOUT_S:  # NaN and infinities fail this too
        problems.append(
            f"{name} must be a number of seconds above 0 and at most {_MAX_TIMEOUT_S:g}, "
            f"not {value!r}"
        )
        return default
    return seconds


def _responders(
    value: str | None, mode: Mode, problems: list[str]
) -> tuple[str, ...] | AnyoneInChannel:
    """SLACK_QUESTIONS_RESPONDERS: user and user-group ids, or `*` for anyone in the channel.

    Connected to Slack, none is refused: anyone in the channel (in a Slack Connect channel,
    people of other organisations too) could then approve what the agents do, and that must
    be said on purpose. Offline, none is fine: the emulator's one person (you) answers."""
    if value == ANYONE:
        return ANYONE
    ids = tuple(r for r in re.split(r"[\s,]+", value or "") if r)
    if ANYONE in ids:
        problems.append(
            "SLACK_QUESTIONS_RESPONDERS: * (anyone in the channel) stands alone, "
            "not among ids: set either * or the ids"
        )
        return ()
    bad = [r for r in ids if not _RESPONDER.match(r)]
    if bad:
        problems.append(
            "SLACK_QUESTIONS_RESPONDERS must list user ids (U…/W…) and user-group ids (S…), "
            f"not {', '.join(repr(b) for b in bad)}"
        )
    if not ids and mode is not Mode.OFFLINE:
        problems.append(
            "SLACK_QUESTIONS_RESPONDERS is missing: say who may answer the agents' questions, "
            "as user ids (U…/W…) and user-group ids (S…), comma separated, or * for anyone in "
            "the channel on purpose (in a Slack Connect channel that includes other "
            "organisations' people); without it every member could approve what an agent does"
        )
    return ids


def _retention(value: str | None, problems: list[str]) -> float | None:
    """SLACK_QUESTIONS_RETENTION: a duration with its unit (90d, 12h, 30m), or `forever`
    to keep every ask. 0 is refused rather than read as either: it would purge every
    settled ask within the hour, or mean forever, depending on whom you ask."""
    if value is None:
        return DEFAULT_RETENTION_S
    if value.lower() == "forever":
        return None
    match = _RETENTION.match(value.lower())
    seconds = float(match.group(1)) * _RETENTION_UNITS[match.group(2)] if match else 0.0
    if seconds <= 0:
        problems.append(
            "SLACK_QUESTIONS_RETENTION must be how long settled asks are kept, with its unit "
            f"(90d, 12h, 30m), or forever to never purge them, not {value!r}"
        )
        return DEFAULT_RETENTION_S
    return seconds


def _port(value: str | None, problems: list[str]) -> int:
    if value is None:
        return DEFAULT_PORT
    if not value.isdigit():
        problems.append(f"PORT must be a number, not {value!r}")
        return DEFAULT_PORT
    return int(value)


def _store_of(value: str | None, problems: list[str]) -> tuple[Path, SecretStr | None]:
    """SLACK_QUESTIONS_DB, by the rules of `bot.store.location` (the default on a problem)."""
    try:
        location = store_location(value)
    except LocationError as error:
        problems.append(str(error))
        location = StoreLocation()
    return location.path, location.postgres_url
