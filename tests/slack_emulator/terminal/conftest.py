"""Fixtures: a running emulator, a real Bolt app served to it on 127.0.0.1, and a terminal
whose input the test types and whose output it reads."""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator

import pytest
from aiohttp import web
from slack_bolt.async_app import AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from slack_emulator import ManualClock, SlackEmulator
from slack_emulator.terminal import Terminal

SECRET = "offline-test-signing-secret"
BOT_TOKEN = "xoxb-offline-test"
APP_TOKEN = "xapp-offline-test"
ALICE = "U0ALICE001"
BOB = "U0BOB00002"
QUESTIONS = "C0QUESTION"
REVIEWERS = "S0REVIEWER"


class Screen(io.StringIO):
    """What the terminal printed, with a way to await text instead of sleeping."""

    def __init__(self) -> None:
        super().__init__()
        self._waiters: list[asyncio.Future[None]] = []
        self.read_to = 0
        """Where the last `shows` match ended: later calls look only after it."""

    def write(self, text: str) -> int:
        written = super().write(text)
        for waiter in self._waiters:
            if not waiter.done():
                waiter.set_result(None)
        self._waiters.clear()
        return written

    async def shows(self, text: str, *, within: float = 5.0) -> str:
        """Wait for `text` after the last match; the output up to and including it."""
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(within):
                while (found := self.getvalue().find(text, self.read_to)) < 0:
                    waiter: asyncio.Future[None] = loop.create_future()
                    self._waiters.append(waiter)
                    await waiter
        except TimeoutError:
            raise AssertionError(
                f"the terminal never showed {text!r}; after the last match it showed:\n"
                + self.getvalue()[self.read_to :]
            ) from None
        end = found + len(text)
        seen, self.read_to = self.getvalue()[self.read_to : end], end
        return seen


class EchoingReader(asyncio.StreamReader):
    """The terminal's input, echoing each line it reads onto the screen as a tty does, so
    the screen reads like the person's session."""

    def __init__(self, screen: Screen) -> None:
        super().__init__()
        self._screen = screen

    async def readline(self) -> bytes:
        line = await super().readline()
        self._screen.write(line.decode())
        return line


class Keyboard:
    """The person's typing: whole lines into the terminal's input."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader

    def type(self, *lines: str) -> None:
        for line in lines:
            self._reader.feed_data(f"{line}\n".encode())

    def end(self) -> None:
        self._reader.feed_eof()


@pytest.fixture
async def emu() -> AsyncIterator[SlackEmulator]:
    emulator = SlackEmulator(
        signing_secret=SECRET,
        bot_token=BOT_TOKEN,
        app_token=APP_TOKEN,
        clock=ManualClock(1_700_000_000.0),
    )
    workspace = emulator.workspace
    workspace.add_user(ALICE, name="alice", real_name="Alice Archer", display_name="alice")
    workspace.add_user(BOB, name="bob", real_name="Bob Baker")
    workspace.add_channel(
        QUESTIONS, name="agent-questions", members=[ALICE, BOB, emulator.bot_user_id]
    )
    workspace.add_usergroup(REVIEWERS, handle="reviewers", users=[ALICE, BOB])
    async with emulator:
        yield emulator
    # Every Block Kit payload the test's app sent was one Slack accepts.
    assert emulator.violations == []


@pytest.fixture
async def app(emu: SlackEmulator) -> AsyncIterator[AsyncApp]:
    """A real Bolt app (HTTP mode) on 127.0.0.1 that the emulator delivers to."""
    bolt = AsyncApp(
        client=AsyncWebClient(token=BOT_TOKEN, base_url=emu.api_url), signing_secret=SECRET
    )
    runner = web.AppRunner(bolt.web_app(), shutdown_timeout=1.0)
    await runner.setup()
    try:
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        host, port = runner.addresses[0][:2]
        emu.request_url = f"http://{host}:{port}/slack/events"
        yield bolt
    finally:
        await runner.cleanup()


@pytest.fixture
def screen() -> Screen:
    return Screen()


@pytest.fixture
def reader(screen: Screen) -> asyncio.StreamReader:
    return EchoingReader(screen)


@pytest.fixture
def keyboard(reader: asyncio.StreamReader) -> Keyboard:
    return Keyboard(reader)


@pytest.fixture
async def terminal(
    emu: SlackEmulator, app: AsyncApp, reader: asyncio.StreamReader, screen: Screen
) -> AsyncIterator[Terminal]:
    """Alice's terminal, running; stopped (and its task awaited) at the end."""
    term = Terminal(emu, ALICE, input=reader, output=screen, width=72, color=False)
    term.start()
    try:
        yield term
    finally:
        await term.stop()
