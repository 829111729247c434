"""`python -m bot hook claude-code` as Claude Code runs it: a child process, one event on stdin."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from dataclasses import dataclass
from typing import Any

from slack_emulator import Message, SlackEmulator

from ..service.harness import RELAY_TOKEN, ROOT


@dataclass
class Finished:
    """How the hook ended: exit code, stdout parsed as JSON (None when empty), stderr."""

    code: int
    output: Any
    stderr: str


class Hook:
    """One hook run: started with an event, then awaited for what it printed."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc

    @classmethod
    async def start(cls, relay_url: str, event: dict[str, Any], *args: str, **extra: str) -> Hook:
        """Start the hook with `event` on stdin (stdin is then closed, as Claude Code does);
        `extra` environment variables override the default ones."""
        env = {
            "PATH": os.environ.get("PATH", ""),
            "PYTHONPATH": str(ROOT),
            "SLACK_QUESTIONS_RELAY_URL": relay_url,
            "SLACK_QUESTIONS_RELAY_TOKEN": RELAY_TOKEN,
            **extra,
        }
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot",
            "hook",
            "claude-code",
            *args,
            cwd=ROOT,
            env=env,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(event).encode())
        await proc.stdin.drain()
        proc.stdin.close()
        return cls(proc)

    async def finished(self) -> Finished:
        """Wait for the hook to exit (a hung hook fails the test after 30 s)."""
        stdout, stderr = await asyncio.wait_for(self.proc.communicate(), 30)
        text = stdout.decode()
        return Finished(
            code=await self.proc.wait(),
            output=json.loads(text) if text.strip() else None,
            stderr=stderr.decode(),
        )


def ask_posts(emu: SlackEmulator) -> list[Message]:
    """Every ask message posted so far, as it stands now."""
    return [
        emu.message(str(call.response["channel"]), str(call.response["ts"]))
        for call in emu.calls_to("chat.postMessage")
        if call.ok
        and (call.params.get("metadata") or {}).get("event_type") == "slack_questions_ask"
    ]


async def posted(emu: SlackEmulator, n: int = 1) -> Message:
    """The `n`-th ask message, once posted."""
    await emu.wait_for(lambda: len(ask_posts(emu)) >= n, what=f"ask message #{n}", within=30)
    return ask_posts(emu)[n - 1]


SESSION = "5f0c2a8e-1b7d-4e8a-9c3f-2d6b8a1e4f70"
CWD = "/home/ana/src/billing-api"


def pre_tool_use(tool_name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    """A PreToolUse event in the shape Claude Code sends (hooks reference, PreToolUse input)."""
    return {
        "session_id": SESSION,
        "transcript_path": f"/home/ana/.claude/projects/-home-ana-src-billing-api/{SESSION}.jsonl",
        "cwd": CWD,
        "permission_mode": "default",
        "effort": {"level": "medium"},  # newer fields the hook must tolerate
        "prompt_id": "prompt-7",
        "hook_event_name": "PreToolUse",
        "tool_name": tool_name,
        "tool_input": tool_input,
        "tool_use_id": "toolu_01ABC123",
    }


def asking(wait: float = 598) -> str:
    """The line the hook writes on stderr as it asks in Slack (Claude Code streams it to the
    terminal while the hook runs); `wait`: the hook's --wait (default: 600 s less 2)."""
    return (
        "slack-questions hook: asking a person in Slack, in the thread "
        f"“Claude Code · billing-api”, waiting up to {wait:g} s; Esc here withdraws the question.\n"
    )


def denied(tool: str, why: str) -> dict[str, Any]:
    """What the hook prints when a gated tool fails closed with the default `deny`."""
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": f"{tool} was not run: no person approved it in Slack "
            f"({why}). Do not retry it or work around it without a person's approval.",
        }
    }


def elicitation(schema: dict[str, Any], message: str = "Deploy settings?") -> dict[str, Any]:
    """An Elicitation event in the shape Claude Code sends (hooks reference, form mode)."""
    return {
        "session_id": SESSION,
        "transcript_path": f"/home/ana/.claude/projects/-home-ana-src-billing-api/{SESSION}.jsonl",
        "cwd": CWD,
        "permission_mode": "default",
        "hook_event_name": "Elicitation",
        "mcp_server_name": "deployer",
        "message": message,
        "mode": "form",
        "requested_schema": {"type": "object", **schema},
    }
