"""The terminal's lines: what is printed, and the prompt the person types at, never torn.

Output arrives while a prompt waits (the app changes a message, a demo agent speaks), so
whatever is printed goes on its own lines and the prompt is shown again after it.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Mapping
from typing import TextIO

from slack_emulator.terminal.ansi import BOLD, DIM


class EndOfInput(Exception):
    """The input ended (EOF): the terminal stops quietly."""


def color_wanted(output: TextIO, environ: Mapping[str, str] | None = None) -> bool:
    """ANSI colour only for a terminal, and never when NO_COLOR is set (https://no-color.org:
    any non-empty value)."""
    env = os.environ if environ is None else environ
    try:
        tty = output.isatty()
    except (AttributeError, ValueError):  # a closed or unusual stream: no colour
        tty = False
    return tty and not env.get("NO_COLOR")


class Console:
    """Lines out, lines in, and the prompt between them."""

    def __init__(self, input: asyncio.StreamReader, output: TextIO, *, color: bool) -> None:
        self._input = input
        self._output = output
        self.color = color
        self._prompt: Callable[[], str] | None = None
        self._prompt_shown = False

    def print(self, text: str) -> None:
        """Whole lines, off the prompt line, then the prompt again if one is waiting."""
        if self._prompt_shown:
            self._write("\n")
            self._prompt_shown = False
        self._write(text + "\n")
        self._show_prompt()

    async def ask(self, prompt: Callable[[], str]) -> str:
        """Show `prompt` and return the next line typed (without its newline); EndOfInput
        when the input ends. `prompt` is called again whenever it is re-shown, so it can
        name what is current then."""
        while True:
            self._prompt = prompt
            self._show_prompt()
            try:
                raw = await self._input.readline()
            except ValueError:  # longer than the reader's limit; the reader dropped it
                self._prompt_shown = False
                self.print("⚠ That line was too long; try again.")
                continue
            finally:
                self._prompt = None
            if not raw:
                raise EndOfInput  # the prompt stays shown: `end()` ends its line
            self._prompt_shown = False  # the person's Enter ended the prompt's line
            return raw.decode("utf-8", errors="replace").rstrip("\r\n")

    def end(self) -> None:
        """End a prompt line the input left open, so the shell starts on a fresh line."""
        if self._prompt_shown:
            self._write("\n")
            self._prompt_shown = False

    def dim(self, text: str) -> str:
        return f"{DIM[0]}{text}{DIM[1]}" if self.color else text

    def bold(self, text: str) -> str:
        return f"{BOLD[0]}{text}{BOLD[1]}" if self.color else text

    def _show_prompt(self) -> None:
        if self._prompt is not None and not self._prompt_shown:
            self._write(self._prompt())
            self._prompt_shown = True

    def _write(self, text: str) -> None:
        self._output.write(text)
        self._output.flush()
