"""What a person waits for with the real Claude Code and the hook: hook started → question
posted, and click → Claude Code continuing.

Each round runs the real Claude Code CLI (tests/clients/node_modules, `npm ci --prefix
tests/clients`) in a fresh project against the scripted fake Anthropic API: the model asks for
one Bash command, Claude Code runs `python -m bot hook claude-code` (wrapped in `sh` that first
writes the time it started), the hook asks the `python -m bot` service (a process, on the Slack
emulator), the emulator records the ask's chat.postMessage, a person clicks Allow, and the fake
API records Claude Code's next request (the tool ran, its result goes to the model). Times are
wall-clock (`time.time()`) so the hook's `date` and this process compare.

    python -m bench.claude_code_hook [--rounds 20]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

from slack_emulator import SlackEmulator
from tests.bot.harness import ALICE
from tests.bot.hooks.hook import posted
from tests.bot.service.harness import free_port, service_emulator, service_env, subprocess_service
from tests.clients.claude_code import start_claude
from tests.clients.fake_anthropic import Text, ToolUse, fake_anthropic

from .hook_start import Spread, spread

WRITE_F = ToolUse("Bash", {"command": "echo hi > f", "description": "Write hi to f"})


def timed_hook_settings(stamp: Path) -> dict[str, object]:
    """`.claude/settings.json`: the hook for Bash, after `date` writes when `sh` started it."""
    hook = f"{sys.executable} -m bot hook claude-code --timeout 60"
    command = f"date +%s.%N > {stamp}; exec {hook}"
    return {
        "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}]
        }
    }


async def one_round(emu: SlackEmulator, url: str, tmp: Path, n: int) -> tuple[float, float]:
    """Seconds from hook start to the ask posted, and from the click to Claude Code's next
    request to the model."""
    stamp = tmp / "hook-started"
    async with fake_anthropic(WRITE_F, Text("Done.")) as api:
        claude = await start_claude(
            tmp, api.url, url, "Write hi to f", settings=timed_hook_settings(stamp)
        )
        message = await posted(emu, n)
        posted_at = time.time()
        clicked_at = time.time()
        await emu.person(ALICE).click(message, text="Allow")
        code = await claude.finished()
        assert code == 0, claude.stderr
        assert len(api.arrived) == 2, api.arrived
    return posted_at - float(stamp.read_text()), api.arrived[1] - clicked_at


async def main(rounds: int) -> None:
    """Run `rounds` asks (after one warm-up) and print both spreads."""
    to_post: list[float] = []
    to_continue: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        async with service_emulator() as emu:
            env = service_env(emu, Path(tmp) / "asks.db", free_port())
            async with subprocess_service(emu, env) as service:
                for n in range(rounds + 1):
                    where = Path(tmp) / f"round-{n}"
                    where.mkdir()
                    posted_s, continued_s = await one_round(emu, service.url, where, n + 1)
                    if n:  # round 0 warms the file cache
                        to_post.append(posted_s)
                        to_continue.append(continued_s)
    rows: list[tuple[str, Spread]] = [
        ("hook started to question posted ", spread(to_post)),
        ("click to Claude Code continuing  ", spread(to_continue)),
    ]
    for label, figures in rows:
        print(f"{label} {figures}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    asyncio.run(main(parser.parse_args().rounds))
