"""The hook under Claude Code's interactive terminal UI (a pty): the person at the terminal is
told the question went to Slack while it waits, and a click in Slack lets the tool run."""

from __future__ import annotations

from pathlib import Path

from bot.service.server import Server
from slack_emulator import SlackEmulator

from ..bot.harness import ALICE
from ..bot.hooks.hook import posted
from .claude_code import STATUS_MESSAGE, hook_settings
from .fake_anthropic import Text, ToolUse, fake_anthropic
from .terminal import start_terminal

WRITE_F = ToolUse("Bash", {"command": "echo hi > f", "description": "Write hi to f"})


async def test_the_terminal_shows_the_question_is_waiting_in_slack_until_allowed(
    server: Server, emu: SlackEmulator, tmp_path: Path
) -> None:
    async with fake_anthropic(WRITE_F, Text("Done.")) as api:
        # Claude Code's default mode, where a tool it has no rule for is asked about (the hook
        # runs first in every mode; auto mode would add its own model checks).
        settings = {**hook_settings(), "permissions": {"defaultMode": "default"}}
        terminal = await start_terminal(tmp_path, api.url, server.url, settings)
        try:
            await terminal.shows("? for shortcuts")
            terminal.type("Write hi to f")
            await terminal.shows("Write hi to f")
            terminal.type("\r")
            message = await posted(emu)
            # Claude Code puts it in its spinner line, as "(MESSAGE… · 3s · ↓ 5 tokens)".
            await terminal.shows(f"({STATUS_MESSAGE}… · ")
            assert not (terminal.project / "f").exists()
            await emu.person(ALICE).click(message, text="Allow")
            await terminal.shows("Done.")
        finally:
            await terminal.close()
    assert (terminal.project / "f").read_text() == "hi\n"
    [result] = api.tool_results()
    assert (result["content"], result["is_error"]) == ("(Bash completed with no output)", False)
