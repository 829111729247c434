"""The real Claude Code CLI's interactive terminal UI, run in a pseudo-terminal (no tmux), offline.

Started interactively, Claude Code first runs its onboarding (theme, a connectivity check against
api.anthropic.com, which fails offline: "Unable to connect to Anthropic services"), then asks to
trust the folder and whether to use the `ANTHROPIC_API_KEY`. A person does that once and Claude
Code records it in `$CLAUDE_CONFIG_DIR/.claude.json`; `start_terminal` pre-writes that record,
so the session opens straight at the prompt.

What the screen shows is read from the bytes Claude Code writes, with the terminal's control
sequences removed (`Terminal.screen`): enough to find a line it printed, not a terminal emulator.
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import re
import signal
import struct
import termios
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from ..bot.service.harness import RELAY_TOKEN, ROOT
from .claude_code import claude_or_skip, hook_settings

# Wide enough that no line the tests look for is wrapped.
ROWS, COLUMNS = 50, 250
SCREEN_S: Final = 30.0
# CSI (cursor moves, colours, modes), OSC (titles, hyperlinks), charset and keypad switches.
_CONTROL = re.compile(
    r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78]"
)
_FORWARD = re.compile(r"\x1b\[[0-9;]*[A-HJKdf]|\r")
_API_KEY: Final = "sk-test"


def onboarded(project: Path) -> dict[str, object]:
    """The `.claude.json` a person leaves after the first run: onboarding done (which is what
    skips the connectivity check), the test key approved, `project` trusted."""
    return {
        "hasCompletedOnboarding": True,
        "theme": "dark",
        "numStartups": 1,
        # Claude Code records the key's last 20 characters.
        "customApiKeyResponses": {"approved": [_API_KEY[-20:]], "rejected": []},
        "projects": {str(project): {"hasTrustDialogAccepted": True, "allowedTools": []}},
    }


@dataclass
class Terminal:
    """One interactive Claude Code session on a pty: `output` is everything it wrote."""

    proc: asyncio.subprocess.Process
    project: Path
    master: int
    output: bytearray = field(default_factory=bytearray)
    _grew: asyncio.Event = field(default_factory=asyncio.Event)

    def screen(self) -> str:
        """What it wrote, control sequences removed and runs of white space made one space."""
        # Ink draws blanks by moving the cursor (forward, to a column, to a row): a space, here.
        text = _FORWARD.sub(" ", self.output.decode(errors="replace"))
        text = _CONTROL.sub("", text)
        return " ".join(text.split())

    async def shows(self, text: str, within: float = SCREEN_S) -> None:
        """Until `text` (white space normalised) is on the screen; fails with the screen's tail."""
        wanted = " ".join(text.split())
        try:
            async with asyncio.timeout(within):
                while wanted not in self.screen():
                    if self.proc.returncode is not None:
                        break
                    self._grew.clear()
                    await self._grew.wait()
        except TimeoutError:
            pass
        if wanted not in self.screen():
            raise AssertionError(f"the screen never showed {wanted!r}: …{self.screen()[-3000:]}")

    def type(self, keys: str) -> None:
        """Keys as a person types them (`\\r` is Enter, `\\x1b` Esc)."""
        os.write(self.master, keys.encode())

    def _read(self) -> None:
        try:
            chunk = os.read(self.master, 65536)
        except OSError:  # EIO: the other side closed
            chunk = b""
        if not chunk:
            asyncio.get_running_loop().remove_reader(self.master)
        self.output += chunk
        # Ink asks where the cursor is and waits for the answer a terminal would give.
        if b"\x1b[6n" in chunk:
            os.write(self.master, b"\x1b[1;1R")
        self._grew.set()

    async def close(self) -> None:
        """Hang up, as a closed terminal window does, and reap it."""
        if self.proc.returncode is None:
            os.killpg(self.proc.pid, signal.SIGHUP)
        await asyncio.wait_for(self.proc.wait(), SCREEN_S)
        asyncio.get_running_loop().remove_reader(self.master)
        os.close(self.master)


async def start_terminal(
    tmp: Path,
    api_url: str,
    relay_url: str,
    *flags: str,
    settings: dict[str, object] | None = None,
) -> Terminal:
    """`claude FLAGS` (no `-p`) in a fresh project under `tmp`, on a pty, offline: the fake API, a
    temporary, already onboarded HOME, no updater, no other traffic; `settings` (default: our
    hook) as the project's `.claude/settings.json`."""
    binary = claude_or_skip()
    home, project = tmp / "home", tmp / "project"
    (project / ".claude").mkdir(parents=True)
    (home / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text(
        json.dumps(settings if settings is not None else hook_settings())
    )
    (home / ".claude" / ".claude.json").write_text(json.dumps(onboarded(project)))
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "TERM": "xterm-256color",
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "ANTHROPIC_BASE_URL": api_url,
        "ANTHROPIC_API_KEY": _API_KEY,
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "PYTHONPATH": str(ROOT),
        "SLACK_QUESTIONS_RELAY_URL": relay_url,
        "SLACK_QUESTIONS_RELAY_TOKEN": RELAY_TOKEN,
    }
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
    try:
        proc = await asyncio.create_subprocess_exec(
            str(binary),
            *flags,
            cwd=project,
            env=env,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            start_new_session=True,
        )
    finally:
        os.close(slave)
    terminal = Terminal(proc, project, master)
    asyncio.get_running_loop().add_reader(master, terminal._read)
    return terminal
