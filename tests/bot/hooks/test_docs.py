"""The settings the README and docs/claude-code-hooks.md tell people to paste: valid JSON, the
real command with arguments it accepts, and a Claude Code `timeout` equal to `--timeout` (so
the hook answers before Claude Code cancels it and discards the answer)."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

import pytest

from bot.hooks.command import expires_in, parse_args

from ..service.harness import ROOT

COMMAND = ["slack-questions", "hook"]
JSON_BLOCK = re.compile(r"```json\n(.*?)```", re.DOTALL)


def hook_snippets(path: Path) -> list[Any]:
    """Every ```json block of `path` that configures the hook."""
    blocks = [json.loads(block) for block in JSON_BLOCK.findall(path.read_text())]
    return [block for block in blocks if "hook claude-code" in json.dumps(block)]


def hooks_of(snippet: Any) -> list[dict[str, Any]]:
    """The command hooks of a settings file, or the one hook a snippet shows alone."""
    if "type" in snippet:
        return [snippet]
    return [
        hook for groups in snippet["hooks"].values() for group in groups for hook in group["hooks"]
    ]


SNIPPETS = {
    f"{name} #{number}": snippet
    for name in ("README.md", "docs/claude-code-hooks.md")
    for number, snippet in enumerate(hook_snippets(ROOT / name), start=1)
}


def test_the_readme_and_the_doc_each_show_the_settings() -> None:
    assert sorted(SNIPPETS) == [
        "README.md #1",
        "README.md #2",
        "docs/claude-code-hooks.md #1",
    ]


@pytest.mark.parametrize("name", list(SNIPPETS))
def test_each_hook_runs_the_real_command_within_its_timeout(name: str) -> None:
    for hook in hooks_of(SNIPPETS[name]):
        words = shlex.split(hook["command"])
        argv = words[words.index(COMMAND[0]) :]  # after any VAR=value assignments
        assert (hook["type"], argv[:3]) == ("command", [*COMMAND, "claude-code"])
        args = parse_args(argv[2:])
        assert args.timeout == hook["timeout"]
        assert args.wait < args.timeout  # the hook answers before Claude Code cancels it
        assert expires_in(args.wait) <= hook["timeout"]  # the ask is gone by then too


def test_the_doc_gates_tools_in_a_matcher_of_their_own() -> None:
    settings = SNIPPETS["docs/claude-code-hooks.md #1"]
    assert [group["matcher"] for group in settings["hooks"]["PreToolUse"]] == [
        "AskUserQuestion|ExitPlanMode",
        "Bash|Edit|Write|NotebookEdit|mcp__deploy__.*",
    ]
