"""The hook under the real Claude Code CLI: a scripted model calls a tool, Claude Code runs
`python -m bot hook claude-code`, a person clicks in the emulated Slack, and the tool runs (or
not) as they decided; the model is sent what they decided."""

from __future__ import annotations

from pathlib import Path

from bot.service.server import Server
from slack_emulator import SlackEmulator

from ..bot.harness import ALICE
from ..bot.hooks.hook import posted
from .claude_code import start_claude
from .fake_anthropic import Text, ToolUse, fake_anthropic

WRITE_F = ToolUse("Bash", {"command": "echo hi > f", "description": "Write hi to f"})


async def test_bash_runs_only_after_a_person_clicks_allow(
    server: Server, emu: SlackEmulator, tmp_path: Path
) -> None:
    async with fake_anthropic(WRITE_F, Text("Done.")) as api:
        claude = await start_claude(tmp_path, api.url, server.url, "Write hi to f")
        message = await posted(emu)
        assert not (claude.project / "f").exists()  # waiting for the person
        await emu.person(ALICE).click(message, text="Allow")
        assert await claude.finished() == 0
    assert (claude.project / "f").read_text() == "hi\n"
    [result] = api.tool_results()
    assert (result["content"], result["is_error"]) == ("(Bash completed with no output)", False)


async def test_denied_bash_does_not_run_and_the_model_reads_why(
    server: Server, emu: SlackEmulator, tmp_path: Path
) -> None:
    async with fake_anthropic(WRITE_F, Text("Understood.")) as api:
        claude = await start_claude(tmp_path, api.url, server.url, "Write hi to f")
        await emu.person(ALICE).click(await posted(emu), text="Deny")
        assert await claude.finished() == 0
    assert not (claude.project / "f").exists()
    [result] = api.tool_results()
    assert (result["content"], result["is_error"]) == (
        # Claude Code's own prefix, then the hook's reason.
        f"PreToolUse:Bash hook error: Slack user {ALICE} denied Bash in Slack.",
        True,
    )
