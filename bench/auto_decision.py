"""A tool call decided before anyone is pinged, through the real Claude Code hook: hook start
→ decision (the process's exit, its JSON printed) for a call a `[[tools]]` allow rule decides,
one a stored grant decides, and one asked in Slack (a person clicks Allow the moment it is
posted), against `python -c pass` (the interpreter's own start and exit, the floor).

The service (SQLite store) and the emulator run in this process; each hook is a child process,
as Claude Code runs it. Rounds interleave the four, so the machine's noise falls on each.

    python -m bench.auto_decision [--rounds 20]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

from bot.config import load_config, parse_args
from bot.service.server import Server
from bot.store import Grant
from slack_emulator import SlackEmulator

from .relay_latency import PERSON, RELAY_TOKEN, bench_emulator, service_env
from .stats import summarise

ROOT = Path(__file__).resolve().parents[1]
SESSION = "bench-session"
POLICY = """
[[tools]]
name = "git-read-only"
tool = "Bash"
args = { command = "re:git (status|log|diff)( .*)?" }
decision = "allow"
"""
CALLS = {
    "rule": {"command": "git status"},
    "grant": {"command": "make build"},
    "slack": {"command": "rm -rf build"},
}


def event(tool_input: Mapping[str, str]) -> bytes:
    """A Bash PreToolUse as Claude Code sends it."""
    return json.dumps(
        {
            "session_id": SESSION,
            "cwd": str(ROOT),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": dict(tool_input),
        }
    ).encode()


async def run(argv: list[str], stdin: bytes, env: Mapping[str, str]) -> tuple[float, bytes]:
    """Start `argv`, feed `stdin`, wait for its exit: (seconds, stdout)."""
    start = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(
        *argv,
        cwd=ROOT,
        env=dict(env),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    out, _ = await proc.communicate(stdin)
    return time.perf_counter() - start, out


async def clicker(emu: SlackEmulator, stop: asyncio.Event) -> None:
    """Click Allow on every tool card the moment it is posted."""
    person = emu.person(PERSON)
    seen = 0

    def more() -> bool:
        return stop.is_set() or len(emu.calls_to("chat.postMessage")) > seen

    while not stop.is_set():
        await emu.wait_for(more, within=600)
        calls = emu.calls_to("chat.postMessage")
        for call in calls[seen:]:
            if (call.params.get("metadata") or {}).get("event_type") == "slack_questions_ask":
                message = emu.message(str(call.response["channel"]), str(call.response["ts"]))
                await person.click(message, text="Allow")
        seen = len(calls)


def decision(out: bytes) -> str:
    """The hook's permission decision, read from what it printed."""
    return str(json.loads(out)["hookSpecificOutput"]["permissionDecision"])


async def main(rounds: int) -> None:
    """Measure the four paths, interleaved, after a warm-up round, and print them."""
    emu = bench_emulator()
    with tempfile.TemporaryDirectory() as tmp:
        policy = Path(tmp) / "review.toml"
        policy.write_text(POLICY)
        env = {**service_env(Path(tmp) / "asks.db"), "SLACK_QUESTIONS_REVIEW_POLICY": str(policy)}
        async with emu:
            env["SLACK_API_URL"] = emu.api_url
            server = await Server.start(load_config(env, parse_args([])))
            emu.request_url = f"{server.url}/slack/events"
            await server.provider.store.add_grant(
                Grant(
                    id="bench",
                    tool="Bash",
                    args=CALLS["grant"],
                    scope="session",
                    subject=SESSION,
                    granted_by=PERSON,
                    created_at=time.time(),
                )
            )
            hook_env = {
                "PATH": os.environ.get("PATH", ""),
                "PYTHONPATH": str(ROOT),
                "SLACK_QUESTIONS_RELAY_URL": server.url,
                "SLACK_QUESTIONS_RELAY_TOKEN": RELAY_TOKEN,
            }
            hook = [sys.executable, "-m", "bot", "hook", "claude-code"]
            stop = asyncio.Event()
            clicking = asyncio.create_task(clicker(emu, stop))
            samples: dict[str, list[float]] = {name: [] for name in [*CALLS, "python -c pass"]}
            try:
                for round_ in range(rounds + 1):  # round 0 warms up
                    for name, tool_input in CALLS.items():
                        seconds, out = await run(hook, event(tool_input), hook_env)
                        assert decision(out) == "allow", (name, out)
                        if round_:
                            samples[name].append(seconds)
                    seconds, _ = await run([sys.executable, "-c", "pass"], b"", hook_env)
                    if round_:
                        samples["python -c pass"].append(seconds)
            finally:
                stop.set()
                clicking.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await clicking
                await server.close()
            posted = sum(
                1
                for call in emu.calls_to("chat.postMessage")
                if (call.params.get("metadata") or {}).get("event_type") == "slack_questions_ask"
            )
            assert emu.violations == [], emu.violations
    print(f"{rounds} rounds, hook start → decision (exit), SQLite store, loopback HTTP")
    print(f"{'path':<16} {'median ms':>10} {'p95 ms':>8}")
    for name, taken in samples.items():
        summary = summarise(taken)
        print(f"{name:<16} {summary.median_ms:>10.1f} {summary.p95_ms:>8.1f}")
    print(f"ask messages posted: {posted} (only the calls asked in Slack: {rounds + 1} expected)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    asyncio.run(main(parser.parse_args().rounds))
