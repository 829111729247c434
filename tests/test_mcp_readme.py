"""What the README's MCP section and pyproject promise about `slack-questions mcp`, checked."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

from bot.mcp.main import RELAY_VARIABLES, SOCKET_VARIABLES

ROOT = Path(__file__).resolve().parents[1]
KNOWN_VARIABLES = {
    *RELAY_VARIABLES,
    *SOCKET_VARIABLES,
    "SLACK_QUESTIONS_AGENT_NAME",
    "SLACK_QUESTIONS_AGENT_ID",  # the agent a relay credential names
    "SLACK_QUESTIONS_RESPONDERS",  # the service's own check: who may answer
}


def mcp_section() -> str:
    text = (ROOT / "README.md").read_text()
    found = re.search(r"## Ask from any MCP client.*?\n(.*?)\n## ", text, re.S)
    assert found is not None
    return found.group(1)


def test_every_json_config_in_the_readme_runs_slack_questions_mcp_with_known_variables() -> None:
    blocks = re.findall(r"```json\n(.*?)```", mcp_section(), re.S)
    assert len(blocks) == 3  # Claude Code, Cursor, Claude Desktop
    for block in blocks:
        server = json.loads(block)["mcpServers"]["slack-questions"]
        assert server["command"].endswith("slack-questions")
        assert server["args"] == ["mcp"]
        assert set(server["env"]) <= KNOWN_VARIABLES


def test_the_claude_mcp_add_command_runs_slack_questions_mcp() -> None:
    [command] = re.findall(r"```sh\n(claude mcp add.*?)```", mcp_section(), re.S)
    assert command.rstrip().endswith("slack-questions -- slack-questions mcp")


def test_the_console_script_and_the_mcp_extra_are_declared() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["scripts"]["slack-questions"] == "bot.cli:main"
    assert any(r.startswith("mcp") for r in project["optional-dependencies"]["mcp"])
    assert "slack-questions[postgres,mcp]" in project["optional-dependencies"]["dev"]
