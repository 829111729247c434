"""The MCP route under the real Claude Code CLI: `claude -p` with `python -m bot mcp` on stdio
(`--mcp-config`, the tool allowed by `--allowedTools`), the scripted model calls
`ask_user_question`, a person answers in the emulated Slack, and the model is sent the answer."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path

import pytest

from bot.outcomes import Verdict
from bot.service.server import Server
from slack_emulator import SlackEmulator

from ..bot.harness import ALICE, CHANNEL
from ..bot.hooks.hook import posted
from .claude_code import ClaudeRun, start_claude
from .fake_anthropic import FakeAnthropic, Text, ToolUse, fake_anthropic

TOOL = "mcp__slack-questions__ask_user_question"
CHECKS = ToolUse(
    TOOL,
    {
        "questions": [
            {
                "id": "checks",
                "question": "Which checks should run?",
                "options": [{"label": "Lint"}, {"label": "Type check"}, {"label": "Security scan"}],
                "multi_select": True,
            }
        ]
    },
)
ANSWER = '{"answers":[{"id":"checks","selected":["Lint","Security scan"]}]}'


async def start_mcp_claude(tmp_path: Path, api: FakeAnthropic, server: Server) -> ClaudeRun:
    """`claude -p` with our stdio server from `--mcp-config` and its tool allowed by
    `--allowedTools` (the flags that work in `-p`, folder trusted or not); no hooks."""
    config = {
        "mcpServers": {
            "slack-questions": {
                "type": "stdio",
                "command": sys.executable,
                "args": ["-m", "bot", "mcp"],
            }
        }
    }
    (tmp_path / "mcp.json").write_text(json.dumps(config))
    return await start_claude(
        tmp_path,
        api.url,
        server.url,
        "Ask which checks should run",
        "--mcp-config",
        str(tmp_path / "mcp.json"),
        "--allowedTools",
        TOOL,
        settings={},
    )


async def tick_lint_and_security_scan(emu: SlackEmulator) -> None:
    message = await posted(emu)
    alice = emu.person(ALICE)
    await alice.check(message, block_id="checks", values=["0", "2"])
    await alice.click(message, text="Submit")


async def test_a_multi_select_answered_in_slack_reaches_the_model_exactly(
    server: Server, emu: SlackEmulator, tmp_path: Path
) -> None:
    async with fake_anthropic(CHECKS, Text("Done.")) as api:
        claude = await start_mcp_claude(tmp_path, api, server)
        await tick_lint_and_security_scan(emu)
        assert await claude.finished() == 0
    [result] = api.tool_results()
    assert (result["tool_use_id"], result["content"]) == ("toolu_01FakeScripted0001", ANSWER)
    assert "is_error" not in result


async def test_a_killed_claude_code_has_its_mcp_ask_withdrawn(
    server: Server, emu: SlackEmulator, tmp_path: Path
) -> None:
    async with fake_anthropic(CHECKS, Text("Done.")) as api:
        claude = await start_mcp_claude(tmp_path, api, server)
        message = await posted(emu)
        claude.kill()
        await claude.finished()
        [pending] = await server.provider.asks.recent()
        record = await asyncio.wait_for(server.provider.asks.wait(pending.id), 10)
        assert record.verdict is Verdict.WITHDRAWN
        await emu.wait_for(
            lambda: "Withdrawn" in json.dumps(emu.message(CHANNEL, message.ts).blocks),
            what="the message shown withdrawn",
        )


# Real time: Claude Code's own clocks are what is under test (nothing here can fake them).
@pytest.mark.slow
async def test_an_answer_after_70_s_still_reaches_the_model(
    server: Server, emu: SlackEmulator, tmp_path: Path
) -> None:
    async with fake_anthropic(CHECKS, Text("Done.")) as api:
        claude = await start_mcp_claude(tmp_path, api, server)
        await posted(emu)
        asked = time.monotonic()
        await asyncio.sleep(70)  # the wait itself is the behaviour: no event to await
        await tick_lint_and_security_scan(emu)
        assert await claude.finished() == 0
        assert time.monotonic() - asked >= 70
    [result] = api.tool_results()
    assert result["content"] == ANSWER
