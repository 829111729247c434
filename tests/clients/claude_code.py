"""The real Claude Code CLI (tests/clients/node_modules, pinned in package.json) run against
the fake Anthropic API, in a throwaway project whose `.claude/settings.json` wires our hook as
docs/claude-code-hooks.md says.

Claude Code is started in a session of its own (its own process group), as a terminal would
start it, so a test can hang up on it (`hang_up`: SIGHUP to the group) the way a closed
terminal does.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import pytest

from ..bot.service.harness import RELAY_TOKEN, ROOT

CLIENTS: Final = Path(__file__).resolve().parent
# By package path, not node_modules/.bin: both pinned versions install a `claude` there.
CLAUDE: Final = CLIENTS / "node_modules" / "@anthropic-ai" / "claude-code" / "bin" / "claude.exe"
# The version issue 24's findings 1 and 2 were made with (package.json's alias): 2.1.332 itself
# stops a hook on a hangup and reads no plan sent back as an edit, so those fixes are proven
# on this one too.
CLAUDE_2_1_197: Final = CLIENTS / "node_modules" / "claude-code-2.1.197" / "bin" / "claude.exe"
# How long Claude Code may take for a whole scripted run (its own start-up is ~0.5 s).
RUN_S: Final = 60.0
# docs/claude-code-hooks.md's `statusMessage`: Claude Code's spinner text while the hook waits.
STATUS_MESSAGE: Final = "Asking a person in Slack; Esc withdraws the question"


def claude_or_skip(binary: Path = CLAUDE) -> Path:
    """The installed CLI (`binary`: one of the pinned versions); skips the test when
    `npm ci --prefix tests/clients` has not been run, and fails it under CI=true (.ci/run
    installs it: CI must not skip the real client)."""
    if binary.exists():
        return binary
    reason = (
        f"the real Claude Code CLI is not installed ({binary} is missing): "
        "run `npm ci --prefix tests/clients`"
    )
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI must run the real-client tests: {reason}")
    pytest.skip(reason)


def hook_settings(
    *hook_args: str,
    timeout: int = 60,
    matchers: tuple[str, ...] = ("AskUserQuestion|ExitPlanMode", "Bash|Edit|Write"),
) -> dict[str, object]:
    """`.claude/settings.json` wiring `python -m bot hook claude-code` for `matchers`
    (this checkout's interpreter and code: the docs' `slack-questions` console script is the
    same entry point)."""
    command = " ".join(
        [sys.executable, "-m", "bot", "hook", "claude-code", "--timeout", str(timeout), *hook_args]
    )
    hook = {
        "type": "command",
        "command": command,
        "timeout": timeout,
        # The terminal UI shows only this while a hook runs (not its stderr): say where the
        # question went.
        "statusMessage": STATUS_MESSAGE,
    }
    return {
        "hooks": {"PreToolUse": [{"matcher": matcher, "hooks": [hook]} for matcher in matchers]}
    }


@dataclass
class ClaudeRun:
    """One `claude -p` run in `project`: its process, and what it printed once done."""

    proc: asyncio.subprocess.Process
    project: Path
    stdout: str = ""
    stderr: str = ""

    def descendants(self) -> list[int]:
        """Every process Claude Code started, and theirs (its hooks and their `sh`)."""
        parents: dict[int, int] = {}
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    # "pid (comm) state ppid …": comm may hold spaces, so split after ")".
                    fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                except OSError:
                    continue  # gone meanwhile
                parents[int(entry.name)] = int(fields[1])
        found, frontier = [], [self.proc.pid]
        while frontier:
            children = [pid for pid, ppid in parents.items() if ppid in frontier]
            found += children
            frontier = children
        return found

    def hang_up(self) -> None:
        """What a closed terminal does: SIGHUP to Claude Code's whole process group."""
        os.killpg(self.proc.pid, signal.SIGHUP)

    def kill(self) -> None:
        """What a crash does: SIGKILL to Claude Code alone."""
        self.proc.kill()

    async def printed(self, wanted: Callable[[dict[str, object]], bool]) -> dict[str, object]:
        """Read Claude Code's stream-json output as it comes, until a message `wanted`."""
        assert self.proc.stdout is not None
        async with asyncio.timeout(RUN_S):
            while line := await self.proc.stdout.readline():
                self.stdout += line.decode()
                message = json.loads(line)
                if wanted(message):
                    return dict(message)
        raise AssertionError(f"Claude Code exited without printing it: {self.stdout[-2000:]}")

    async def finished(self) -> int:
        """Wait for Claude Code to exit; its exit code (a hung run fails the test)."""
        out, err = await asyncio.wait_for(self.proc.communicate(), RUN_S)
        self.stdout, self.stderr = self.stdout + out.decode(), err.decode()
        return await self.proc.wait()

    async def converse(self, prompt: str) -> list[dict[str, object]]:
        """Drive an SDK-mode run (`sdk=True`) as an Agent SDK host would: initialize, send
        `prompt`, refuse every `can_use_tool` Claude Code asks (the hook is the one to decide
        here: a test reads what Claude Code asked), close stdin at the result. Returns every
        message Claude Code printed."""
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        self._send(
            {"type": "control_request", "request_id": "init", "request": {"subtype": "initialize"}}
        )
        self._send(
            {
                "type": "user",
                "message": {"role": "user", "content": prompt},
                "parent_tool_use_id": None,
                "session_id": "",
            }
        )
        seen: list[dict[str, object]] = []
        async with asyncio.timeout(RUN_S):
            while line := await self.proc.stdout.readline():
                message = json.loads(line)
                seen.append(message)
                request = message.get("request")
                if message.get("type") == "control_request" and isinstance(request, dict):
                    self._send(
                        {
                            "type": "control_response",
                            "response": {
                                "subtype": "success",
                                "request_id": message["request_id"],
                                "response": {"behavior": "deny", "message": "not asked here"},
                            },
                        }
                    )
                if message.get("type") == "result":
                    self.proc.stdin.close()
        return seen

    def _send(self, message: dict[str, object]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")

    def events(self) -> list[dict[str, object]]:
        """The `--output-format stream-json` lines it printed."""
        return [json.loads(line) for line in self.stdout.splitlines() if line.startswith("{")]


async def start_claude(
    tmp: Path,
    api_url: str,
    relay_url: str,
    prompt: str,
    *flags: str,
    settings: dict[str, object] | None = None,
    sdk: bool = False,
    env: dict[str, str] | None = None,
    binary: Path = CLAUDE,
) -> ClaudeRun:
    """`claude -p PROMPT --output-format stream-json --verbose FLAGS` in a fresh project under
    `tmp`, offline: the fake API, a temporary HOME, no updater, no other traffic. `sdk`: the
    Agent SDK's mode instead (stream-json on stdin, permission prompts sent to the host, which
    is what offers AskUserQuestion and ExitPlanMode; the prompt then goes by `converse`).
    `env`: more variables for Claude Code (its feature switches); `binary`: which pinned
    version runs."""
    binary = claude_or_skip(binary)
    home, project = tmp / "home", tmp / "project"
    (project / ".claude").mkdir(parents=True)
    home.mkdir()
    (project / ".claude" / "settings.json").write_text(
        json.dumps(settings if settings is not None else hook_settings())
    )
    extra = env or {}
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "ANTHROPIC_BASE_URL": api_url,
        "ANTHROPIC_API_KEY": "sk-test",
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        # What the hook reads (Claude Code passes its environment on to hooks).
        "PYTHONPATH": str(ROOT),
        "SLACK_QUESTIONS_RELAY_URL": relay_url,
        "SLACK_QUESTIONS_RELAY_TOKEN": RELAY_TOKEN,
        **extra,
    }
    mode = (
        ["--input-format", "stream-json", "--permission-prompt-tool", "stdio"] if sdk else [prompt]
    )
    proc = await asyncio.create_subprocess_exec(
        str(binary),
        "-p",
        *mode,
        "--output-format",
        "stream-json",
        "--verbose",
        *flags,
        cwd=project,
        env=env,
        stdin=asyncio.subprocess.PIPE if sdk else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    return ClaudeRun(proc, project)
