"""`python -m bot mcp [--http HOST:PORT]`: where questions go, start-up, and the transport.

With `SLACK_QUESTIONS_RELAY_URL` and `SLACK_QUESTIONS_RELAY_TOKEN` it is a thin client of a
running service's relay. Without them but with `SLACK_BOT_TOKEN`, `SLACK_APP_TOKEN` and
`SLACK_QUESTIONS_CHANNEL` it runs the service in this process in Socket Mode (no public URL),
its relay listening on loopback only for this server. Stdout belongs to JSON-RPC on stdio:
everything else goes to stderr, and start-up runs with `sys.stdout` pointed at stderr.
With `--http`, `bot.mcp.guard` says who gets in (a token off loopback, Host and Origin).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import re
import secrets
import signal
import sys
from collections.abc import AsyncIterator, Coroutine, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.flags import ConfigError, StartupError
from provider import RelayProvider

if TYPE_CHECKING:
    # The MCP SDK is an extra: imported only once main() has checked for it. The service is
    # imported only for Socket Mode in this process: on a relay, MCP starts without it.
    from bot.config import Config
    from bot.mcp.guard import HttpAccess
    from bot.service.server import Server

log = logging.getLogger(__name__)

REQUESTER_VARIABLE = "SLACK_QUESTIONS_REQUESTER"
# The hook's rule (bot/hooks/command.py): one person, a Slack user id. Not imported from
# bot.review, which would load the store into an MCP server on a relay.
_USER_ID = re.compile(r"^[UW][A-Z0-9]{2,}$")
RELAY_VARIABLES = ("SLACK_QUESTIONS_RELAY_URL", "SLACK_QUESTIONS_RELAY_TOKEN")
SOCKET_VARIABLES = ("SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "SLACK_QUESTIONS_CHANNEL")
NOWHERE = (
    "cannot start the MCP server: it has nowhere to send questions. Set either\n"
    "  - SLACK_QUESTIONS_RELAY_URL and SLACK_QUESTIONS_RELAY_TOKEN: the relay of a running "
    "slack-questions service (python -m bot), the team set-up; or\n"
    "  - SLACK_BOT_TOKEN (xoxb-…), SLACK_APP_TOKEN (xapp-…, Socket Mode) and "
    "SLACK_QUESTIONS_CHANNEL (C…): ask in Slack from this process, the one-developer set-up"
)


@dataclass(frozen=True)
class RelayTarget:
    """Ask through a running service's relay."""

    url: str
    token: str


@dataclass(frozen=True)
class SocketTarget:
    """Run the service here in Socket Mode; its relay listens on loopback for us alone."""

    config: Config


Target = RelayTarget | SocketTarget


@dataclass(frozen=True)
class McpArgs:
    """The flags of `python -m bot mcp`."""

    http: tuple[str, int] | None  # None: stdio


def parse_mcp_args(argv: Sequence[str]) -> McpArgs:
    """`[--http HOST:PORT]`; argparse exits 2 with usage on stderr for anything else."""
    parser = argparse.ArgumentParser(
        prog="python -m bot mcp",
        description="An MCP server whose ask_user_question asks people in Slack "
        "(stdio unless --http).",
    )
    parser.add_argument(
        "--http",
        metavar="HOST:PORT",
        type=_host_port,
        help="serve streamable HTTP at http://HOST:PORT/mcp instead of stdio",
    )
    return McpArgs(http=parser.parse_args(list(argv)).http)


def _host_port(value: str) -> tuple[str, int]:
    host, _, port = value.rpartition(":")
    if not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise argparse.ArgumentTypeError(
            f"expected HOST:PORT such as 127.0.0.1:8765, not {value!r}"
        )
    return host.strip("[]"), int(port)


def requester_of(env: Mapping[str, str]) -> str | None:
    """The Slack user this server's agent sessions act for (SLACK_QUESTIONS_REQUESTER), as
    the hook reads it; `ConfigError` when it is not a user id."""
    requester = env.get(REQUESTER_VARIABLE, "").strip() or None
    if requester is not None and not _USER_ID.match(requester):
        raise ConfigError(
            f"cannot start: {REQUESTER_VARIABLE}={requester!r} is not a Slack user id (U… or W…)"
        )
    return requester


def resolve_target(env: Mapping[str, str]) -> Target:
    """Where questions go, or `ConfigError` listing everything to set."""

    def get(name: str) -> str | None:
        return env.get(name, "").strip() or None

    relay = {name: get(name) for name in RELAY_VARIABLES}
    if any(relay.values()):
        missing = [name for name, value in relay.items() if value is None]
        problems = [f"{name} is missing (the relay needs both)" for name in missing]
        url = relay["SLACK_QUESTIONS_RELAY_URL"]
        if url is not None and not re.match(r"^https?://", url):
            problems.append(f"SLACK_QUESTIONS_RELAY_URL must be an http(s) URL, not {url!r}")
        if problems:
            raise ConfigError("cannot start:\n" + "\n".join(f"  - {p}" for p in problems))
        assert url is not None
        token = relay["SLACK_QUESTIONS_RELAY_TOKEN"]
        assert token is not None
        return RelayTarget(url=url, token=token)

    if not any(get(name) for name in SOCKET_VARIABLES):
        raise ConfigError(NOWHERE)
    missing = [name for name in SOCKET_VARIABLES if get(name) is None]
    if missing:
        raise ConfigError(
            "cannot start:\n"
            + "\n".join(
                f"  - {name} is missing (Socket Mode in this process needs "
                f"{', '.join(SOCKET_VARIABLES)})"
                for name in missing
            )
        )
    from bot.config import Mode, load_config, parse_args

    # The service's own checks, with its relay bound to loopback under a fresh token.
    service_env = dict(env)
    service_env.update(
        HOST="127.0.0.1",
        PORT="0",
        SLACK_QUESTIONS_RELAY_TOKEN=secrets.token_urlsafe(32),
        SLACK_QUESTIONS_DB=get("SLACK_QUESTIONS_DB") or ":memory:",
    )
    config = load_config(service_env, parse_args([]))
    assert config.mode is Mode.SOCKET  # the app token is set
    return SocketTarget(config)


@asynccontextmanager
async def opened_relay(target: Target) -> AsyncIterator[tuple[RelayProvider, str]]:
    """A relay client for `target`, and where questions appear ("#channel" or "Slack")."""
    if isinstance(target, RelayTarget):
        async with RelayProvider(target.url, target.token) as relay:
            yield relay, "Slack"
        return
    from bot.service.server import Server

    server = await Server.start(target.config)
    try:
        token = target.config.relay_token
        assert token is not None
        async with RelayProvider(server.url, token.get_secret_value()) as relay:
            yield relay, await _channel_name(server)
    finally:
        await server.close()


async def _channel_name(server: Server) -> str:
    from bot.slack.api import SlackCallFailed

    channel = server.config.slack.channel
    try:
        response = await server.parts.client.conversations_info(channel=channel or "")
    except SlackCallFailed:
        return "Slack"
    name = (response.get("channel") or {}).get("name")
    return f"#{name}" if name else "Slack"


def main(argv: Sequence[str]) -> int:
    """Entry of `python -m bot mcp`; returns the exit code (2: cannot start)."""
    args = parse_mcp_args(argv)
    logging.basicConfig(
        level=os.environ.get("LOG_LEVEL", "WARNING").upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    try:
        target = resolve_target(os.environ)
        requester = requester_of(os.environ)
    except ConfigError as error:
        print(error, file=sys.stderr)
        return 2
    try:
        from bot.mcp.desk import DeskOptions, QuestionDesk  # noqa: F401 - the extra is there
        from bot.mcp.guard import http_access
    except ModuleNotFoundError as error:
        if error.name is None or not error.name.startswith("mcp"):
            raise
        print(
            "python -m bot mcp needs the MCP SDK: pip install 'slack-questions[mcp]'",
            file=sys.stderr,
        )
        return 2
    access = None
    if args.http is not None:
        try:
            access = http_access(os.environ, *args.http)
        except ConfigError as error:
            print(error, file=sys.stderr)
            return 2
    naming = (
        os.environ.get("SLACK_QUESTIONS_AGENT_NAME"),
        os.environ.get("SLACK_QUESTIONS_AGENT_ID", "").strip() or None,
    )
    return asyncio.run(_serve(target, args, access, naming, requester))


async def _serve(
    target: Target,
    args: McpArgs,
    access: HttpAccess | None,
    naming: tuple[str | None, str | None],
    requester: str | None = None,
) -> int:
    """Serve the desk; `naming`: SLACK_QUESTIONS_AGENT_NAME and SLACK_QUESTIONS_AGENT_ID;
    `requester`: SLACK_QUESTIONS_REQUESTER."""
    from bot.mcp.desk import DeskOptions, QuestionDesk

    signalled = False
    async with contextlib.AsyncExitStack() as stack:
        # Nothing that starts up may reach stdout: on stdio it is the client's JSON-RPC.
        with contextlib.redirect_stdout(sys.stderr):
            try:
                relay, where = await stack.enter_async_context(opened_relay(target))
            except StartupError as error:
                print(f"cannot start: {error}", file=sys.stderr)
                return 2
        options = DeskOptions(
            agent_name=naming[0],
            agent_id=naming[1],
            requester=requester,
            where=where,
            http=access,
        )
        desk = await stack.enter_async_context(QuestionDesk(relay, options))
        if args.http is None or access is None:  # stdio (access comes with --http)
            signalled = await _until_signalled(desk.server.run_stdio_async())
        else:
            host, port = args.http
            print(f"slack-questions MCP server at {access.url}", file=sys.stderr)
            print(_access_line(access), file=sys.stderr)
            # uvicorn shuts down gracefully on SIGTERM/SIGINT, then raises the signal again
            # for the handler it found: ours, so the process lives on to withdraw and close.
            with _signals_absorbed():
                await desk.server.run_streamable_http_async(
                    host=host, port=port, transport_security=access.transport_security()
                )
    if signalled:
        # Pending asks are withdrawn and everything is closed; only the transport's stdin
        # reader is left, blocked in a thread no cancellation reaches until stdin closes.
        sys.stderr.flush()
        os._exit(0)
    return 0


def _access_line(access: HttpAccess) -> str:
    """Who gets in, said at start-up, so a refused client's operator knows what to set."""
    token = (
        "every request needs Authorization: Bearer $SLACK_QUESTIONS_MCP_TOKEN"
        if access.token is not None
        else "no token (loopback only)"
    )
    return (
        f"  {token}; Host must be one of {', '.join(access.allowed_hosts)} "
        f"(SLACK_QUESTIONS_MCP_ALLOWED_HOSTS), Origin absent or one of "
        f"{', '.join(access.allowed_origins)} (SLACK_QUESTIONS_MCP_ALLOWED_ORIGINS)"
    )


@contextlib.contextmanager
def _signals_absorbed() -> Iterator[None]:
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, lambda: None)
    try:
        yield
    finally:
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(signum)


async def _until_signalled(serving: Coroutine[object, object, None]) -> bool:
    """Serve until the client leaves (False) or SIGTERM/SIGINT arrives (True)."""
    task = asyncio.ensure_future(serving)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    stopping = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait({task, stopping}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopping.cancel()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(signum)
    if task.done():
        task.result()
        return False
    task.cancel()
    return True
