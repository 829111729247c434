"""MCP Tasks under the real Claude Code CLI: the scripted model calls our MCP tool over stdio,
a person answers in the emulated Slack, and the answer reaches the model. The JSON-RPC Claude
Code sends is tapped (`jsonrpc_tap`), so the test says what it declared and how it polled."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from mcp_types import CLIENT_CAPABILITIES_META_KEY as CAPABILITIES
from mcp_types import PROTOCOL_VERSION_META_KEY as VERSION
from pydantic import JsonValue

from bot.mcp.tasks import EXTENSION
from bot.service.server import Server
from slack_emulator import SlackEmulator

from ..bot.harness import ALICE
from ..bot.service.harness import RELAY_TOKEN, ROOT
from ..bot.service.test_relay import DB, posted
from .claude_code import start_claude
from .fake_anthropic import Text, ToolUse, fake_anthropic

TOOL = "mcp__slack-questions__ask_user_question"
QUESTIONS: dict[str, JsonValue] = {"questions": [json.loads(json.dumps(DB))]}


def mcp_config(server: Server, log: Path) -> dict[str, object]:
    """`--mcp-config`: our server on stdio, through the tap."""
    tapped = [sys.executable, "-m", "tests.clients.jsonrpc_tap", str(log), "--"]
    return {
        "mcpServers": {
            "slack-questions": {
                "type": "stdio",
                "command": tapped[0],
                "args": [*tapped[1:], sys.executable, "-m", "bot", "mcp"],
                "env": {
                    "PYTHONPATH": str(ROOT),
                    "SLACK_QUESTIONS_RELAY_URL": server.url,
                    "SLACK_QUESTIONS_RELAY_TOKEN": RELAY_TOKEN,
                },
            }
        }
    }


def sent(log: Path) -> list[dict[str, object]]:
    """What Claude Code sent our server, in order."""
    return [json.loads(line[2:]) for line in log.read_text().splitlines() if line.startswith("> ")]


def declared_tasks(request: dict[str, object]) -> bool:
    """Whether a request's own 2026-07-28 capabilities name the Tasks extension."""
    params = request.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    capabilities = meta.get(CAPABILITIES) if isinstance(meta, dict) else None
    extensions = capabilities.get("extensions") if isinstance(capabilities, dict) else None
    return isinstance(extensions, dict) and EXTENSION in extensions


async def test_claude_code_2_1_332_does_not_declare_tasks_and_gets_the_blocking_answer(
    server: Server, emu: SlackEmulator, tmp_path: Path
) -> None:
    """Measured with the pinned 2.1.332, in `-p` (and the same in the Agent SDK's mode): it
    speaks 2026-07-28 envelopes, declares no `io.modelcontextprotocol/tasks` on `tools/call`,
    so our server holds the call with progress, and the answer reaches the model exactly. When
    a later Claude Code declares the extension this test fails, saying to switch it to tasks."""
    log = tmp_path / "jsonrpc.log"
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps(mcp_config(server, log)))
    async with fake_anthropic(ToolUse(TOOL, QUESTIONS), Text("Done.")) as api:
        claude = await start_claude(
            tmp_path,
            api.url,
            server.url,
            "Ask which database",
            "--mcp-config",
            str(config),
            "--strict-mcp-config",
            "--allowedTools",
            TOOL,
            settings={},
        )
        await emu.person(ALICE).click(await posted(emu), text="SQLite")
        assert await claude.finished() == 0
    [result] = api.tool_results()
    assert result["content"] == '{"answers":[{"id":"db","selected":["SQLite"]}]}'
    requests = sent(log)
    [call] = [r for r in requests if r.get("method") == "tools/call"]
    assert call["params"]["_meta"][VERSION] == "2026-07-28"  # type: ignore[index]
    assert not declared_tasks(call), "Claude Code now declares MCP Tasks: test the task path"
    assert [r["method"] for r in requests if str(r.get("method")).startswith("tasks/")] == []
