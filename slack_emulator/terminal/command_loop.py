"""The terminal's command loop: read a line, do what it says on the current question.

What a line does (the current question is the open modal, else the newest message that
still has controls):

    N          click button N; for a menu, radio group, checkboxes or text box: set it
    Enter      fill in the form, input by input, then press its Submit
    c          close the open modal
    r TEXT     reply in the current thread
    h          help
"""

from __future__ import annotations

from slack_emulator import View
from slack_emulator.terminal.acts import Acts
from slack_emulator.terminal.console import Console, EndOfInput
from slack_emulator.terminal.controls import numbers_to_type
from slack_emulator.terminal.form_walk import FormWalk
from slack_emulator.terminal.screen import Abandoned, Screen


class CommandLoop:
    """Reads the person's lines and acts on each, until the input ends."""

    def __init__(self, screen: Screen, console: Console, acts: Acts, walk: FormWalk) -> None:
        self._screen = screen
        self._console = console
        self._acts = acts
        self._walk = walk

    async def run(self) -> None:
        """Until the input ends; a failed line is explained and the next one read."""
        while True:
            try:
                line = await self._console.ask(self._idle_prompt)
            except EndOfInput:
                return
            try:
                await self._handle(line)
            except EndOfInput:
                return
            except Abandoned as why:
                self._console.print(str(why))
            except (LookupError, ValueError) as error:
                # The emulator says what is not there or not allowed, as Slack's UI would.
                self._console.print(f"⚠ {error}")
            except Exception as error:  # one failed action must not end the person's session
                self._console.print(f"⚠ {type(error).__name__}: {error}")
            self._screen.refresh()

    async def _handle(self, line: str) -> None:
        text = line.strip()
        if text in ("h", "?", "help"):
            self._acts.help()
        elif text == "c":
            await self._acts.close()
        elif text == "r" or text.startswith("r "):
            await self._acts.reply(text[1:].strip())
        elif text == "":
            await self._enter()
        elif text.isdigit():
            await self._number(int(text))
        else:
            self._console.print(
                f"Not understood: {text!r}. Type a number, Enter, c, r TEXT or h (help)."
            )

    async def _number(self, number: int) -> None:
        focus = self._screen.focus()
        if focus is None:
            self._console.print("There is no question to answer yet.")
            return
        key, _, rendered = focus
        control = rendered.control(number)
        if control is None:
            have = numbers_to_type(rendered.controls)
            self._console.print(f"There is no [{number}] here; {have}.")
            return
        if control.kind == "button":
            await self._acts.click(key, control)
        elif control.kind == "other":
            self._console.print(f"[{number}] is a {control.type}; the terminal cannot set it.")
        else:
            await self._walk.set(key, control)
            if not control.dispatches:
                self._console.print(
                    self._console.dim("(kept until the form is sent: Enter fills it in)")
                )

    async def _enter(self) -> None:
        focus = self._screen.focus()
        if focus is None:
            return
        key, target, rendered = focus
        if rendered.inputs:
            await self._walk.fill_in(key, rendered)
        elif isinstance(target, View) and target.submit:
            await self._acts.submit(key)
        elif rendered.controls:
            self._console.print(f"Nothing to fill in here; {numbers_to_type(rendered.controls)}.")

    def _idle_prompt(self) -> str:
        focus = self._screen.focus()
        if focus is None:
            return "> "
        _, target, _ = focus
        return f"{self._screen.label(target)} > "
