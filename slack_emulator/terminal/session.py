"""A person at a terminal, using the emulated Slack: they see what Slack would show them and
answer there.

`Terminal` ties the parts together: the `Screen` prints each message, thread reply,
ephemeral message and modal the person would see (as `block_render` renders it) whenever the
app changes something; the `CommandLoop` turns the lines they type into `Acts` and form
walks through the emulator's people API. It touches nothing but the emulator's public API:
it stands in for a person, not for the bot.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Final, TextIO

from slack_emulator import SlackEmulator
from slack_emulator.terminal.acts import Acts
from slack_emulator.terminal.command_loop import CommandLoop
from slack_emulator.terminal.console import Console, color_wanted
from slack_emulator.terminal.form_walk import FormWalk
from slack_emulator.terminal.screen import Screen

_WAKE_EVERY: Final = 3600.0
"""How long one wait on the emulator lasts before it is simply renewed (nothing happens then)."""


class Terminal:
    """The person `person_id` using Slack from a terminal.

    `await terminal.run()` shows and answers until `input` ends; or `terminal.start()` it as
    a task and `await terminal.stop()`. `say(text)` prints a line for someone else (such as
    a demo agent) without tearing the prompt.
    """

    def __init__(
        self,
        emu: SlackEmulator,
        person_id: str,
        *,
        input: asyncio.StreamReader,
        output: TextIO,
        width: int | None = None,
        color: bool | None = None,
    ) -> None:
        self._emu = emu
        self._me = person_id
        person = emu.person(person_id)
        self._console = Console(
            input, output, color=color_wanted(output) if color is None else color
        )
        self._screen = Screen(emu, person_id, self._console, width=width)
        acts = Acts(emu, person, self._screen, self._console)
        walk = FormWalk(person, self._screen, self._console, acts)
        self._commands = CommandLoop(self._screen, self._console, acts, walk)
        self._task: asyncio.Task[None] | None = None

    async def run(self) -> None:
        """Show what the person sees and act on what they type, until the input ends."""
        self._screen.refresh()
        watcher = asyncio.create_task(self._watch(), name=f"terminal watch {self._me}")
        try:
            await self._commands.run()
        finally:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher
            self._console.end()

    def start(self) -> asyncio.Task[None]:
        """Run in a task (one at a time)."""
        if self._task is not None and not self._task.done():
            raise RuntimeError("the terminal is already running")
        self._task = asyncio.create_task(self.run(), name=f"terminal {self._me}")
        return self._task

    async def stop(self) -> None:
        """Stop the task `start()` made; idempotent."""
        task, self._task = self._task, None
        if task is None:
            return
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    def say(self, text: str) -> None:
        """Print `text` as its own lines, then the prompt again."""
        self._console.print(text)

    async def _watch(self) -> None:
        while True:
            seen = self._activity()
            self._screen.refresh()
            await self._activity_since(seen)

    def _activity(self) -> tuple[int, int]:
        # The app changes what people see only by calling the Web API (response_url posts
        # included) or by answering a delivery; what the person does here is refreshed
        # right after they do it.
        return len(self._emu.calls), len(self._emu.deliveries)

    async def _activity_since(self, seen: tuple[int, int]) -> None:
        with contextlib.suppress(TimeoutError):
            await self._emu.wait_for(
                lambda: self._activity() != seen,
                within=_WAKE_EVERY,
                what="the app to change something",
            )
