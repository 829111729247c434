"""`python -m bot`: run the service, or run offline against the local Slack emulator."""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import signal
import sys
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING

from bot.flags import parse_args
from bot.logs import LogSettingsError, configure_logging, log_settings

if TYPE_CHECKING:
    from bot.config import Config
    from bot.parts import StartupError

log = logging.getLogger("bot")

Runner = Callable[[asyncio.Event], Awaitable[int]]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the process exit code (2: cannot start)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    # Each command imports its own modules, here and not at the top: the agent-side commands
    # start once per call of the agent (the hook before every gated tool call, a person
    # waiting), and the service's modules (Bolt, slack_sdk, the store, ...) would double that.
    # tests/bot/test_start_up.py pins what they load.
    if argv[:1] == ["hook"]:
        from bot.hooks.command import main as hook

        return hook(argv[1:])
    if argv[:1] == ["mcp"]:
        from bot.mcp.main import main as mcp_main

        return mcp_main(argv[1:])
    if argv[:1] == ["credentials"]:
        from bot.service.credentials_command import main as credentials

        return credentials(argv[1:])
    if argv[:1] == ["erase"]:
        from bot.service.erase import main as erase

        return erase(argv[1:])
    if argv[:1] == ["audit"]:
        from bot.service.audit_command import main as audit

        return audit(argv[1:])
    return _service(argv)


def _service(argv: Sequence[str]) -> int:
    """`python -m bot [flags]`: the service, or offline mode without Slack credentials."""
    args = parse_args(argv)  # before the service's modules: --help answers without them
    from bot.config import ConfigError, Mode, load_config

    try:
        level, log_format = log_settings(os.environ)
    except LogSettingsError as error:
        print(f"cannot start:\n  - {error}", file=sys.stderr)
        return 2
    redact = configure_logging(level, log_format)
    try:
        config = load_config(os.environ, args)
    except ConfigError as error:
        print(error, file=sys.stderr)
        return 2
    redact.add_secrets(
        [
            config.slack.bot_token,
            config.slack.signing_secret,
            *(s.get_secret_value() for s in (config.app_token, config.relay_token) if s),
        ]
    )
    if config.mode is Mode.OFFLINE:
        from bot.offline.run import run_offline

        if "LOG_LEVEL" not in os.environ:
            # The terminal is the offline UI: only what needs attention goes between its lines.
            logging.getLogger().setLevel(logging.WARNING)
            # A refused relay request is the agent's mistake, told to it in the response;
            # between the terminal's lines it would read as the person's problem.
            logging.getLogger("bot.service.relay").setLevel(logging.ERROR)

        return asyncio.run(
            _until_signalled(
                lambda stop: _started(
                    config,
                    run_offline(config, stop, demo=not args.no_demo, browser=not args.no_browser),
                )
            )
        )
    return asyncio.run(_until_signalled(lambda stop: _serve(config, stop)))


async def _started(config: Config, run: Awaitable[int]) -> int:
    """`run`'s exit code, or 2 with the reason when the service cannot start."""
    from bot.parts import StartupError

    try:
        return await run
    except StartupError as error:
        print(f"cannot start: {_why(config, error)}", file=sys.stderr)
        return 2


def _why(config: Config, error: StartupError) -> str:
    """What to tell the person: a busy port is named with the way to pick another."""
    cause = error.__cause__
    if isinstance(cause, OSError) and cause.errno == errno.EADDRINUSE:
        return (
            f"port {config.port} on {config.host} is already in use by another program; "
            "pick another with --port N (or PORT=N), or --port 0 for any free port"
        )
    return str(error)


async def _serve(config: Config, stop: asyncio.Event) -> int:
    from bot.config import Mode
    from bot.parts import StartupError
    from bot.service.server import Server

    try:
        server = await Server.start(config)
    except StartupError as error:
        print(f"cannot start: {_why(config, error)}", file=sys.stderr)
        return 2
    mode = "Socket Mode" if config.mode is Mode.SOCKET else "HTTP (Slack events at /slack/events)"
    relay = (
        "relay at /v1" if config.relay_token else "relay disabled (no SLACK_QUESTIONS_RELAY_TOKEN)"
    )
    print(f"slack-questions listening on {server.url}: {mode}, {relay}", flush=True)
    await stop.wait()
    log.info("shutting down: finishing acks in flight, keeping pending asks")
    await server.close()
    return 0


async def _until_signalled(run: Runner) -> int:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    try:
        return await run(stop)
    finally:
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(signum)
