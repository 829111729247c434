"""`python -m bot hook claude-code`: one hook event on stdin, its answer on stdout.

Exit codes follow Claude Code's hook contract: 0 with the JSON answer on stdout; on anything
that prevents a real answer (no relay settings, a malformed event, the relay unreachable, a
form Slack cannot show) nothing is printed, the reason goes to stderr, and the exit code is
1 — a *non-blocking* error, so Claude Code carries on with its own prompt in the terminal.
Exit code 2 is never used: it would block the tool (or deny the elicitation) with no person
having decided.

SIGTERM or SIGINT (Claude Code giving up on the hook) withdraws the ask in Slack first.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import signal
import sys
from collections.abc import Mapping, Sequence
from typing import Final, TextIO

from pydantic import TypeAdapter, ValidationError

from bot.hooks.claude_code import HookError, answer, gave_up
from bot.hooks.events import HookEvent, HookOutput
from provider import UserQuestionError
from provider.relay_client import RelayProvider
from provider.types import field_errors

NON_BLOCKING_ERROR: Final = 1
URL_VARIABLE: Final = "SLACK_QUESTIONS_RELAY_URL"
TOKEN_VARIABLE: Final = "SLACK_QUESTIONS_RELAY_TOKEN"
# The agent a relay credential names: each Claude Code session asks as `<it>/<session id>`.
AGENT_VARIABLE: Final = "SLACK_QUESTIONS_AGENT_ID"

_EVENT: Final = TypeAdapter[HookEvent](HookEvent)


class _Stopped(Exception):
    """SIGTERM/SIGINT arrived while people were still deciding."""


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    """`hook claude-code [--wait S] [--max-outage S]` (argv after `hook`)."""
    parser = argparse.ArgumentParser(
        prog="python -m bot hook",
        description="Answer an agent's hook event by asking people in Slack through the relay.",
    )
    parser.add_argument("agent", choices=["claude-code"], help="whose hook event is on stdin")
    parser.add_argument(
        "--wait",
        type=float,
        default=None,
        metavar="SECONDS",
        help="give up (withdraw the ask, fall back to the terminal) after this long; "
        "keep it below the hook's timeout in .claude/settings.json",
    )
    parser.add_argument(
        "--max-outage",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="how long the relay may be unreachable before the hook gives up (default 30)",
    )
    return parser.parse_args(list(argv))


def main(
    argv: Sequence[str],
    *,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
    env: Mapping[str, str] | None = None,
) -> int:
    """Run the hook; returns the exit code (0, or 1 = Claude Code's non-blocking error)."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    env = os.environ if env is None else env
    try:
        args = parse_args(argv)
    except SystemExit as exit_:
        # argparse exits 2 on bad arguments: to Claude Code that would block the tool.
        return 0 if exit_.code == 0 else NON_BLOCKING_ERROR
    url, token = env.get(URL_VARIABLE), env.get(TOKEN_VARIABLE)
    if not url or not token:
        return _fail(stderr, f"set {URL_VARIABLE} and {TOKEN_VARIABLE} to reach the relay")
    try:
        event = _EVENT.validate_json(stdin.read())
    except ValidationError as error:
        problems = "; ".join(f"{where}: {what}" for where, what in field_errors(error)[:5])
        return _fail(stderr, f"not a hook event this hook answers: {problems}")
    logging.basicConfig(
        level=env.get("LOG_LEVEL", "WARNING").upper(),
        format="slack-questions hook: %(levelname)s %(name)s: %(message)s",
        stream=stderr,
    )
    try:
        output = asyncio.run(_answer(event, url, token, args, env.get(AGENT_VARIABLE) or None))
    except HookError as error:
        return _fail(stderr, str(error))
    except UserQuestionError as error:
        return _fail(stderr, f"{error.code}: {error.message}")
    except _Stopped:
        return _fail(stderr, "stopped before anyone answered; the ask was withdrawn in Slack")
    stdout.write(json.dumps(output.to_wire(), ensure_ascii=False) + "\n")
    stdout.flush()
    return 0


def _fail(stderr: TextIO, why: str) -> int:
    print(f"slack-questions hook: {why}", file=stderr, flush=True)
    return NON_BLOCKING_ERROR


async def _answer(
    event: HookEvent, url: str, token: str, args: argparse.Namespace, under: str | None
) -> HookOutput:
    async with RelayProvider(url, token, max_outage=args.max_outage) as relay:
        work = asyncio.ensure_future(answer(event, relay, under=under))
        loop = asyncio.get_running_loop()
        stopped = asyncio.Event()

        def stop() -> None:
            stopped.set()
            work.cancel()  # the relay client withdraws the ask before letting this through

        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stop)
        try:
            async with asyncio.timeout(args.wait):
                return await work
        except TimeoutError:
            return gave_up(event, f"no decision within {args.wait:g} s; the ask was withdrawn")
        except asyncio.CancelledError:
            if stopped.is_set():
                raise _Stopped from None
            raise
        finally:
            for signum in (signal.SIGTERM, signal.SIGINT):
                loop.remove_signal_handler(signum)
