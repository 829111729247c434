"""`python -m bot hook claude-code`: one hook event on stdin, its answer on stdout.

Exit codes follow Claude Code's hook contract, and a gate fails closed:

- A *gated* tool (every PreToolUse but `AskUserQuestion`: tool approvals, plan reviews):
  exit 0 with a JSON decision, always. When no person could decide — relay settings missing
  or unsafe, the relay unreachable or failing, an answer that does not answer what was asked,
  a malformed event, SIGTERM/SIGINT, `--wait` elapsed — the decision is `--on-failure`
  (`deny`, the default, with the reason for the model; or `ask`, Claude Code's local prompt).
  Exit 1 would be a *non-blocking* error: Claude Code would then run the tool under its own
  rules (an allow rule, bypass or headless modes), with nobody's approval.
- `AskUserQuestion` and elicitations are not gates: on failure nothing is printed, the reason
  goes to stderr and the exit code is 1, so Claude Code shows its own dialog.

SIGTERM or SIGINT (Claude Code giving up on the hook) withdraws the ask in Slack first; so
does Claude Code going away (killed, crashed: bot/hooks/parent.py), and the hook then exits 1
quietly, as nobody is left to read it. As it asks, the hook says so on stderr (Claude Code
streams it to its user while the hook runs). A
SIGKILL runs no handler, so every ask is made with `expires_in` = `--wait` plus a margin: the
relay withdraws it itself once the hook can no longer be waiting, and a later click is refused
as withdrawn. `--timeout` is the hook's `timeout` in .claude/settings.json (Claude Code kills
the hook then); `--wait` defaults to a little less.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import math
import os
import re
import signal
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Final, TextIO, cast
from urllib.parse import urlsplit

from pydantic import TypeAdapter, ValidationError

from bot.hooks.claude_code import HookError, answer, failed_closed, gated, gave_up
from bot.hooks.events import HookEvent, HookOutput, PermissionDecision
from bot.hooks.http import StreamsTransport
from bot.hooks.parent import gone
from bot.hosts import is_loopback
from provider import AskUserQuestionAnswer, AskUserQuestionRequest, UserQuestionError
from provider.relay_client import RelayProvider
from provider.relay_wire import AskView
from provider.types import field_errors

NON_BLOCKING_ERROR: Final = 1
URL_VARIABLE: Final = "SLACK_QUESTIONS_RELAY_URL"
TOKEN_VARIABLE: Final = "SLACK_QUESTIONS_RELAY_TOKEN"
# The agent a relay credential names: each Claude Code session asks as `<it>/<session id>`.
AGENT_VARIABLE: Final = "SLACK_QUESTIONS_AGENT_ID"
# The Slack user this Claude Code session acts for (policies may keep them from approving).
REQUESTER_VARIABLE: Final = "SLACK_QUESTIONS_REQUESTER"
# What a gated tool gets when no person could decide: deny (default) or ask.
ON_FAILURE_VARIABLE: Final = "SLACK_QUESTIONS_ON_FAILURE"
# A refused connection is retried this long, then reported (a person is not waiting on it).
MAX_OUTAGE_S: Final = 5.0
CONNECT_TIMEOUT_S: Final = 3.0
# Claude Code's default `timeout` of a command hook (hooks reference, "Common fields").
CLAUDE_CODE_TIMEOUT_S: Final = 600.0
# `--wait` defaults to this much less than `--timeout`, and the relay withdraws the ask this
# much after `--wait` (by then the hook has given up, or been killed).
MARGIN_S: Final = 2.0
MAX_EXPIRES_IN_S: Final = 86400
_USER_ID: Final = re.compile(r"^[UW][A-Z0-9]{2,}$")

_EVENT: Final = TypeAdapter[HookEvent](HookEvent)


class _Stopped(Exception):
    """SIGTERM/SIGINT arrived while people were still deciding."""


class _Orphaned(Exception):
    """Claude Code went away while people were still deciding (bot/hooks/parent.py)."""


class _Announcing:
    """The relay, saying (on stderr) that a question went to Slack as it is sent: Claude Code
    streams a running hook's stderr (`hook_progress`), so the person at the terminal learns
    where the question waits instead of watching a spinner (issue 24, finding 3)."""

    def __init__(self, relay: RelayProvider, wait: float, say: Callable[[str], None]) -> None:
        self._relay, self._wait, self._say = relay, wait, say

    async def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        """The relay's `ask`, announced."""
        self._announce(request)
        return await self._relay.ask(request)

    async def outcome(self, request: AskUserQuestionRequest) -> AskView:
        """The relay's `outcome`, announced."""
        self._announce(request)
        return await self._relay.outcome(request)

    def _announce(self, request: AskUserQuestionRequest) -> None:
        where = f", in the thread “{request.agent.name}”" if request.agent else ""
        self._say(
            f"slack-questions hook: asking a person in Slack{where}, waiting up to "
            f"{self._wait:g} s; Esc here withdraws the question."
        )


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
        help="give up (withdraw the ask; a gated tool gets the --on-failure decision) after "
        f"this long (default: --timeout less {MARGIN_S:g} s)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=CLAUDE_CODE_TIMEOUT_S,
        metavar="SECONDS",
        help="the hook's timeout in .claude/settings.json, after which Claude Code kills it "
        f"(default {CLAUDE_CODE_TIMEOUT_S:g}, Claude Code's own); the relay withdraws the ask "
        "by then, so a later click is refused as withdrawn",
    )
    parser.add_argument(
        "--max-outage",
        type=float,
        default=MAX_OUTAGE_S,
        metavar="SECONDS",
        help=f"how long the relay may be unreachable before the hook gives up "
        f"(default {MAX_OUTAGE_S:g})",
    )
    parser.add_argument(
        "--on-failure",
        choices=["deny", "ask"],
        default=None,
        help="a gated tool's decision when no person could decide: deny (default; the model "
        f"is told why) or ask (Claude Code asks its local user); also {ON_FAILURE_VARIABLE}",
    )
    args = parser.parse_args(list(argv))
    if args.wait is None:
        args.wait = max(args.timeout - MARGIN_S, 1.0)
    if not 0 < args.wait <= MAX_EXPIRES_IN_S or args.timeout <= 0:
        parser.error(f"--wait and --timeout must be above 0 and at most {MAX_EXPIRES_IN_S} s")
    return args


def expires_in(wait: float) -> int:
    """The `expires_in` the hook's asks are made with: after `wait` and a margin, the hook
    has given up (or was killed without a chance to withdraw), so nobody reads an answer."""
    return min(math.ceil(wait + MARGIN_S), MAX_EXPIRES_IN_S)


def main(
    argv: Sequence[str],
    *,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
    env: Mapping[str, str] | None = None,
) -> int:
    """Run the hook; returns the exit code (0, or 1 = Claude Code's non-blocking error, which
    only a question or an elicitation ever gets)."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    env = os.environ if env is None else env
    try:
        args = parse_args(argv)
        bad_arguments = False
    except SystemExit as exit_:
        if exit_.code == 0:
            return 0  # --help
        # argparse exits 2 on bad arguments: to Claude Code that would block the tool, with
        # no reason given; a gate says why instead.
        bad_arguments = True
    raw = stdin.read()
    tool_name, is_gate = _gate_of(raw)
    on_failure: PermissionDecision = "deny"

    def fail(why: str) -> int:
        print(f"slack-questions hook: {why}", file=stderr, flush=True)
        if not is_gate:
            return NON_BLOCKING_ERROR
        _print(stdout, failed_closed(tool_name, why, on_failure))
        return 0

    if bad_arguments:
        return fail(f"bad hook arguments: {' '.join(argv)}")
    chosen = args.on_failure or env.get(ON_FAILURE_VARIABLE) or "deny"
    if chosen not in ("deny", "ask"):
        return fail(f"{ON_FAILURE_VARIABLE}={chosen!r}: use deny or ask")
    on_failure = cast(PermissionDecision, chosen)
    url, token = env.get(URL_VARIABLE), env.get(TOKEN_VARIABLE)
    if not url or not token:
        return fail(f"set {URL_VARIABLE} and {TOKEN_VARIABLE} to reach the relay")
    unsafe = url_problem(url)
    if unsafe is not None:
        return fail(unsafe)
    requester = env.get(REQUESTER_VARIABLE) or None
    if requester is not None and not _USER_ID.match(requester):
        return fail(f"{REQUESTER_VARIABLE}={requester!r} is not a Slack user id (U… or W…)")
    try:
        event = _EVENT.validate_json(raw)
    except ValidationError as error:
        problems = "; ".join(f"{where}: {what}" for where, what in field_errors(error)[:5])
        return fail(f"not a hook event this hook answers: {problems}")
    logging.basicConfig(
        level=env.get("LOG_LEVEL", "WARNING").upper(),
        format="slack-questions hook: %(levelname)s %(name)s: %(message)s",
        stream=stderr,
    )
    try:
        output = asyncio.run(
            _answer(
                event,
                url,
                token,
                args,
                env.get(AGENT_VARIABLE) or None,
                requester,
                on_failure,
                _fd_of(stdout),
                lambda line: print(line, file=stderr, flush=True),
            )
        )
    except HookError as error:
        return fail(str(error))
    except UserQuestionError as error:
        return fail(f"{error.code}: {error.message}")
    except _Orphaned:
        return NON_BLOCKING_ERROR  # the ask is withdrawn; nobody is left to read an answer
    except _Stopped:
        return fail("stopped before anyone answered; the ask was withdrawn in Slack")
    except Exception as error:  # a bug must not open a gate either
        logging.getLogger(__name__).exception("the hook failed")
        return fail(f"unexpected {type(error).__name__}: {error}")
    _print(stdout, output)
    return 0


def url_problem(url: str) -> str | None:
    """Why the relay URL must not be used, or None: it must be http(s), and https off this
    machine (the token and every decision cross the network)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"{URL_VARIABLE}={url!r} is not an http:// or https:// URL"
    if parts.scheme == "http" and not is_loopback(parts.hostname):
        return (
            f"{URL_VARIABLE}={url!r}: a relay off this machine must be reached over https "
            "(http is accepted only on 127.0.0.1, ::1 and localhost)"
        )
    return None


def _gate_of(raw: str) -> tuple[str | None, bool]:
    """The tool the event names, and whether it is a gate — read leniently, before the event
    is validated, so even a malformed event of a gated tool fails closed."""
    try:
        data = json.loads(raw)
    except ValueError:
        return None, True
    if not isinstance(data, dict):
        return None, True
    if data.get("hook_event_name") == "Elicitation":
        return None, False
    name = data.get("tool_name")
    tool_name = name if isinstance(name, str) and name else None
    return tool_name, gated(tool_name)


def _fd_of(stdout: TextIO) -> int | None:
    """The descriptor Claude Code reads the answer from, watched for it going away (None: not
    a real file, as in tests calling `main`)."""
    try:
        return stdout.fileno()
    except (OSError, ValueError):
        return None


def _print(stdout: TextIO, output: HookOutput) -> None:
    stdout.write(json.dumps(output.to_wire(), ensure_ascii=False) + "\n")
    stdout.flush()


async def _answer(
    event: HookEvent,
    url: str,
    token: str,
    args: argparse.Namespace,
    under: str | None,
    requester: str | None,
    on_failure: PermissionDecision,
    watched: int | None = None,
    say: Callable[[str], None] = lambda _: None,
) -> HookOutput:
    async with RelayProvider(
        url,
        token,
        max_outage=args.max_outage,
        connect_timeout=CONNECT_TIMEOUT_S,
        expires_in=expires_in(args.wait),
        transport=StreamsTransport(),
    ) as relay:
        work = asyncio.ensure_future(
            answer(
                event,
                _Announcing(relay, args.wait, say),
                under=under,
                requester=requester,
                on_failure=on_failure,
            )
        )
        loop = asyncio.get_running_loop()
        stopped = asyncio.Event()

        def stop() -> None:
            stopped.set()
            work.cancel()  # the relay client withdraws the ask before letting this through

        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stop)
        orphaned = asyncio.Event()
        watcher = asyncio.ensure_future(gone(watched)) if watched is not None else None

        def claude_code_gone(done: asyncio.Future[None]) -> None:
            if not done.cancelled():
                orphaned.set()
                work.cancel()  # withdraws the ask, as on SIGTERM

        if watcher is not None:
            watcher.add_done_callback(claude_code_gone)
        try:
            async with asyncio.timeout(args.wait):
                return await work
        except TimeoutError:
            return gave_up(
                event, f"no decision within {args.wait:g} s; the ask was withdrawn", on_failure
            )
        except asyncio.CancelledError:
            if orphaned.is_set():
                raise _Orphaned from None
            if stopped.is_set():
                raise _Stopped from None
            raise
        finally:
            if watcher is not None:
                watcher.cancel()
            for signum in (signal.SIGTERM, signal.SIGINT):
                loop.remove_signal_handler(signum)
