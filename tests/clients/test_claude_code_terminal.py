"""Claude Code's interactive terminal UI (a pty), offline. The hook: the person at the terminal
is told the question went to Slack while it waits, and a click in Slack lets the tool run. The
MCP route: interactive Claude Code (unlike `-p`, tests/clients/test_mcp_tasks.py) declares MCP
Tasks, backgrounds our `ask_user_question` as a task and polls it until a person answers."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import JsonValue

from bot.service.server import Server
from slack_emulator import SlackEmulator

from ..bot.harness import ALICE
from ..bot.hooks.hook import posted
from .claude_code import STATUS_MESSAGE, hook_settings
from .fake_anthropic import Text, ToolUse, fake_anthropic
from .terminal import start_terminal
from .test_mcp_tasks import QUESTIONS, TOOL, declared_tasks, mcp_config, sent

WRITE_F = ToolUse("Bash", {"command": "echo hi > f", "description": "Write hi to f"})


async def test_the_terminal_shows_the_question_is_waiting_in_slack_until_allowed(
    server: Server, emu: SlackEmulator, tmp_path: Path
) -> None:
    async with fake_anthropic(WRITE_F, Text("Done.")) as api:
        # Claude Code's default mode, where a tool it has no rule for is asked about (the hook
        # runs first in every mode; auto mode would add its own model checks).
        settings = {**hook_settings(), "permissions": {"defaultMode": "default"}}
        terminal = await start_terminal(tmp_path, api.url, server.url, settings=settings)
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


def replies(log: Path) -> list[dict[str, object]]:
    """What our server answered Claude Code, in order."""
    return [json.loads(line[2:]) for line in log.read_text().splitlines() if line.startswith("< ")]


def first_text(content: JsonValue) -> str:
    """The text of a message's first content block (a `tool_result`'s, a user message's)."""
    assert isinstance(content, list)
    assert isinstance(content[0], dict)
    text = content[0]["text"]
    assert isinstance(text, str)
    return text


async def test_interactive_claude_code_runs_ask_user_question_as_a_task_until_slack_answers(
    server: Server, emu: SlackEmulator, tmp_path: Path
) -> None:
    log = tmp_path / "jsonrpc.log"
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps(mcp_config(server, log)))
    turns = ToolUse(TOOL, QUESTIONS), Text("Waiting for Slack."), Text("Done: SQLite.")
    async with fake_anthropic(*turns) as api:
        settings: dict[str, object] = {"permissions": {"defaultMode": "default", "allow": [TOOL]}}
        terminal = await start_terminal(
            tmp_path,
            api.url,
            server.url,
            "--mcp-config",
            str(config),
            "--strict-mcp-config",
            settings=settings,
        )
        try:
            await terminal.shows("? for shortcuts")
            terminal.type("Ask which database")
            await terminal.shows("Ask which database")
            terminal.type("\r")
            message = await posted(emu)
            # Backgrounded: the model's turn goes on while Slack waits.
            await terminal.shows("Waiting for Slack.")
            await emu.person(ALICE).click(message, text="SQLite")
            await terminal.shows("Done: SQLite.")
        finally:
            await terminal.close()
    [call] = [r for r in sent(log) if r.get("method") == "tools/call"]
    assert declared_tasks(call)
    [task] = [r["result"] for r in replies(log) if r.get("id") == call["id"]]
    assert isinstance(task, dict)
    assert (task["resultType"], task["status"]) == ("task", "working")
    [backgrounded] = api.tool_results()
    assert first_text(backgrounded["content"]).startswith(
        f'MCP tool "slack-questions/ask_user_question" started server-side task {task["taskId"]}.'
    )
    polls = [r for r in sent(log) if str(r.get("method")).startswith("tasks/")]
    assert {(r["method"], r["params"]["taskId"]) for r in polls} == {  # type: ignore[index]
        ("tasks/get", task["taskId"])
    }
    # The answer reaches the model as Claude Code's task notification.
    last = api.requests[-1]["messages"]
    assert isinstance(last, list)
    assert isinstance(last[-1], dict)
    notification = first_text(last[-1]["content"])
    assert "<status>completed</status>" in notification
    assert '<result>\n{"answers":[{"id":"db","selected":["SQLite"]}]}\n</result>' in notification
