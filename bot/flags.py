"""The command-line flags of `python -m bot`, apart from the configuration they feed.

Parsing them needs argparse only, so `python -m bot --help` answers without importing the
service (`bot.config` builds on the composition root's settings, and so on all of it).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Final

DEFAULT_HOST: Final = "127.0.0.1"
DEFAULT_PORT: Final = 3000
# The agent-side and admin commands, each with its own --help (bot/cli.py dispatches them).
COMMANDS: Final = """commands (each has its own --help):
  python -m bot mcp                 the MCP server an agent asks through (stdio, or --http)
  python -m bot hook claude-code    the Claude Code hook (docs/claude-code-hooks.md)
  python -m bot credentials ...     create, list and revoke the relay's agent credentials
  python -m bot erase ASK_ID        delete one settled ask from the store now
  python -m bot audit verify        check the tamper-evident decision log
                audit export        the asks of a period as CSV or JSON Lines (docs/audit.md)

The relay (POST /v1/asks, GET /v1/asks/{id}?wait=S with S at most 60 seconds, DELETE to
withdraw) is served when SLACK_QUESTIONS_RELAY_TOKEN or an agent credential is set; its
OpenAPI document is GET /v1/openapi.json."""


# The two ways a command cannot start, here with the flags: the agent-side commands
# (`mcp` on a relay) raise and catch them without loading the service that defines the rest.
class ConfigError(Exception):
    """The configuration cannot work; the message lists every problem found."""


class StartupError(Exception):
    """The provider cannot start; the message says what to fix."""


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    """The command-line flags (they override the environment)."""
    parser = argparse.ArgumentParser(
        prog="python -m bot",
        description="slack-questions: let AI agents ask people in Slack. With no Slack "
        "credentials it runs offline against a local Slack emulator with a demo agent.",
        epilog=COMMANDS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--host", help=f"address to listen on (default {DEFAULT_HOST})")
    parser.add_argument("--port", type=int, help=f"port to listen on (default {DEFAULT_PORT})")
    parser.add_argument(
        "--db",
        help="where asks are kept: a SQLite file (or sqlite:FILE), or a postgresql:// URL "
        "that several replicas share (SLACK_QUESTIONS_DB)",
    )
    parser.add_argument("--channel", help="channel id for questions (SLACK_QUESTIONS_CHANNEL)")
    parser.add_argument(
        "--no-demo", action="store_true", help="offline: do not start the demo agent"
    )
    parser.add_argument(
        "--no-browser", action="store_true", help="offline: terminal only, no playground page"
    )
    return parser.parse_args(list(argv))
