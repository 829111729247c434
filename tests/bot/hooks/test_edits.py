"""`python -m bot hook claude-code` after "Edit and allow" / "Edit and approve" in Slack
(issue 25): the real hook process prints `updatedInput` with what the reviewer edited."""

from __future__ import annotations

from pathlib import Path

from bot.service.server import Server
from slack_emulator import SlackEmulator

from ..harness import ALICE
from .hook import Hook, posted, pre_tool_use

RM = {"command": "rm -rf build", "description": "Remove the build directory"}
PLAN = "1. Add the refunds table\n2. Migrate\n3. Deploy"
EXIT_PLAN = {
    "plan": PLAN,
    "planFilePath": "/home/ana/.claude/plans/refunds.md",
    "allowedPrompts": [{"tool": "Bash", "prompt": "run tests"}],
}


async def edit(emu: SlackEmulator, button: str, block_id: str, text: str) -> None:
    alice = emu.person(ALICE)
    await alice.click(await posted(emu), text=button)
    await emu.wait_for(lambda: bool(emu.views(ALICE)), what="the edit modal")
    await alice.type(emu.views(ALICE)[0], block_id=block_id, text=text)
    await alice.submit(emu.views(ALICE)[0])


async def test_edit_and_allow_sends_the_edited_command_as_updated_input(
    server: Server, emu: SlackEmulator
) -> None:
    hook = await Hook.start(server.url, pre_tool_use("Bash", RM))
    await edit(emu, "Edit and allow", "sq~edit.1", "rm -rf build/tmp")
    done = await hook.finished()
    assert (done.code, done.output) == (
        0,
        {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "allow",
                "permissionDecisionReason": f"allowed in Slack by Slack user {ALICE} with the "
                "input edited",
                "updatedInput": {
                    "command": "rm -rf build/tmp",
                    "description": "Remove the build directory",
                },
            }
        },
    )


async def test_edit_and_approve_sends_the_amended_plan_and_writes_it_to_the_plan_file(
    server: Server, emu: SlackEmulator, tmp_path: Path
) -> None:
    plan_file = tmp_path / ".claude" / "plans" / "refunds.md"
    plan_file.parent.mkdir(parents=True)
    plan_file.write_text(PLAN)
    exit_plan = {**EXIT_PLAN, "planFilePath": str(plan_file)}
    hook = await Hook.start(server.url, pre_tool_use("ExitPlanMode", exit_plan))
    amended = "1. Add the refunds table\n2. Migrate on staging first\n3. Deploy"
    await edit(emu, "Edit and approve", "sq~edit.plan", amended)
    done = await hook.finished()
    assert (done.code, done.output) == (
        0,
        {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "allow",
                "permissionDecisionReason": f"plan approved in Slack by Slack user {ALICE}, "
                "who amended it",
                # The amendment IS the user's edit; planFilePath stays out (issue 24).
                "updatedInput": {
                    "allowedPrompts": EXIT_PLAN["allowedPrompts"],
                    "plan": amended,
                },
            }
        },
    )
    # Claude Code 2.1.332 reads the approved plan from this file (tests/clients).
    assert plan_file.read_text() == amended
