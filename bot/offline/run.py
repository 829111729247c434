"""Offline mode: the local Slack emulator, the real service against it, a demo agent, a terminal."""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import stat
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from pydantic import SecretStr

from bot.config import Config, Mode
from bot.offline.demo import run_demo
from bot.offline.listen import (
    LOOPBACK,
    PLAYGROUND_VARIABLE,
    Address,
    exposure_notes,
    playground_address,
)
from bot.parts import StartupError
from bot.service.server import OFFLINE_AUDIT_KEY, Server
from provider import AgentRegistry, UserQuestionService
from slack_emulator import SlackEmulator, seed_workspace
from slack_emulator.playground import Playground
from slack_emulator.terminal import Terminal

YOU = "U0YOU00001"


async def run_offline(
    config: Config,
    stop: asyncio.Event,
    *,
    demo: bool = True,
    browser: bool = True,
    env: Mapping[str, str] | None = None,
) -> int:
    """Run until `stop` is set; returns the exit code. `browser`: also serve the playground.

    Everything listens on loopback whatever `config.host` says; only the playground may
    listen elsewhere, when `SLACK_QUESTIONS_PLAYGROUND` in `env` (default: the process's
    environment) says so. Each piece is undone in reverse on the way out, whether the run
    ends or a later piece fails to start: the demo and the terminal, the playground, the
    service, the emulator, then the store's directory."""
    where = playground_address(os.environ if env is None else env) if browser else None
    async with contextlib.AsyncExitStack() as stack:
        # A fresh store each run: the emulator's messages do not outlive it either.
        tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="slack-questions-offline-"))
        emu, channel = _emulator(config)
        await emu.start(host=LOOPBACK, port=0)
        stack.push_async_callback(emu.stop)
        server = await Server.start(_against(config, emu, channel, Path(tmp) / "asks.db"))
        stack.push_async_callback(server.close)
        emu.request_url = f"{server.url}/slack/events"
        playground: Playground | None = None
        if where is not None:
            playground = Playground(emu, person=YOU)
            await _serve_playground(playground, where)
            stack.push_async_callback(playground.close)
        print(
            f"Offline: a local Slack emulator stands in for Slack ({emu.api_url}).\n"
            "You are @you in #agent-questions"
            + ("" if config.slack.responders else ", the one person who may answer")
            + f". The service listens on {server.url}"
            + (" (relay at /v1)." if config.relay_token else ".")
            + (
                f"\nPlayground: {playground.url} — the workspace in your browser, as Slack shows it."
                if playground is not None
                else ""
            )
            + "".join(f"\n{note}" for note in exposure_notes(config.host, where))
            + "\nType h for help, Ctrl-D or Ctrl-C to stop.\n",
            flush=True,
        )
        interactive = sys.stdin.isatty()
        reader, transport = await _stdin_reader()
        if transport is not None:
            stack.callback(transport.close)
        terminal = Terminal(emu, YOU, input=reader, output=sys.stdout)
        agents = AgentRegistry()
        service = UserQuestionService(agents)
        stack.callback(server.provider.register(service))
        typing = asyncio.create_task(terminal.run(), name="terminal")
        stopping = asyncio.create_task(stop.wait(), name="stop signal")
        running: list[asyncio.Task[object]] = [typing, stopping]
        if demo:
            running.append(
                asyncio.create_task(run_demo(service, agents, terminal.say), name="demo agent")
            )
        stack.push_async_callback(_cancelled, running)
        # Ctrl-D at a terminal ends the run; input that is not a terminal (`< /dev/null`,
        # a container without -it) ending only means nobody types: keep serving.
        await asyncio.wait(
            [stopping, typing] if interactive else [stopping], return_when=asyncio.FIRST_COMPLETED
        )
        if typing.done() and interactive:
            print("Input ended: stopping.", flush=True)
    return 0


def _emulator(config: Config) -> tuple[SlackEmulator, str]:
    """The local Slack, accepting `config`'s credentials, with you in its questions channel;
    and that channel."""
    emu = SlackEmulator(
        signing_secret=config.slack.signing_secret,
        bot_token=config.slack.bot_token,
        app_token=f"xapp-offline-{secrets.token_hex(8)}",
    )
    seeded = seed_workspace(emu.workspace, bot_user_id=emu.bot_user_id)
    emu.workspace.add_user(YOU, name="you", real_name="You", display_name="you")
    emu.workspace.add_member(seeded.channel_id, YOU)
    return emu, seeded.channel_id


def _against(config: Config, emu: SlackEmulator, channel: str, db_path: Path) -> Config:
    """The service's configuration: over HTTP to the emulator, asking in `channel`, on
    loopback. With no responders configured, you (the terminal's and the playground's
    person) may answer, and nobody else."""
    responders = config.slack.responders or (YOU,)
    slack = config.slack.model_copy(
        update={"api_url": emu.api_url, "channel": channel, "responders": responders}
    )
    # The emulator's demo has nothing to prove to anyone: the offline key, said on purpose
    # (the service warns of it only where a team relies on the log).
    audit_key = config.audit_key or SecretStr(OFFLINE_AUDIT_KEY.decode())
    return config.model_copy(
        update={
            "mode": Mode.HTTP,
            "slack": slack,
            "db_path": db_path,
            "host": LOOPBACK,
            "audit_key": audit_key,
        }
    )


async def _serve_playground(playground: Playground, where: Address) -> None:
    """Start `playground` at `where`; a port it cannot take is a `StartupError` naming it."""
    try:
        await playground.start(host=where.host, port=where.port)
    except OSError as error:
        raise StartupError(
            f"the playground cannot listen on {where.host}:{where.port} "
            f"({PLAYGROUND_VARIABLE}): {error.strerror or error}; pick another port, "
            "or unset it for any free port on loopback"
        ) from None  # not chained: a chained EADDRINUSE is read as the service's port


async def _cancelled(tasks: Sequence[asyncio.Task[object]]) -> None:
    """Cancel `tasks` and wait until each has ended."""
    for task in tasks:
        task.cancel()
    for task in tasks:
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def _stdin_reader() -> tuple[asyncio.StreamReader, asyncio.BaseTransport | None]:
    """Standard input as a stream. A terminal, pipe or socket is read as it comes; anything
    the event loop cannot watch (`/dev/null`, a regular file) is read whole: epoll refuses
    such files, which would otherwise end in an asyncio traceback and a reader that never ends."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    mode = os.fstat(sys.stdin.fileno()).st_mode
    if sys.stdin.isatty() or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), sys.stdin
        )
        return reader, transport
    data = await asyncio.to_thread(sys.stdin.buffer.read)
    if data:
        reader.feed_data(data)
    else:
        print("No terminal input: the service runs until Ctrl-C or SIGTERM.", flush=True)
    reader.feed_eof()
    return reader, None
