"""`python -m slack_emulator` with its defaults, then `python -m bot` with the settings the
emulator prints: the two start together as slack_emulator/README.md says."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys
from argparse import Namespace
from pathlib import Path

from bot.config import Mode, load_config
from slack_emulator import DEFAULT_SIGNING_SECRET, SlackEmulator

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def no_proxy_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env.update(PYTHONPATH=str(ROOT), NO_COLOR="1")
    for name in list(env):
        if name.startswith("SLACK_"):
            del env[name]
    return env


def test_the_emulators_default_credentials_are_ones_the_bot_accepts() -> None:
    emulator = SlackEmulator()
    config = load_config(
        {
            "SLACK_BOT_TOKEN": emulator.bot_token,
            "SLACK_SIGNING_SECRET": DEFAULT_SIGNING_SECRET,
            "SLACK_QUESTIONS_CHANNEL": "C0AGENTQST",
            "SLACK_QUESTIONS_RESPONDERS": "*",
        },
        Namespace(host=None, port=None, db=None, channel=None, no_demo=False),
    )
    assert config.mode is Mode.HTTP


async def test_the_bot_starts_against_the_emulator_with_the_line_it_prints(tmp_path: Path) -> None:
    bot_port = free_port()
    emulator = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "slack_emulator",
        "--port",
        str(free_port()),
        "--request-url",
        f"http://127.0.0.1:{bot_port}/slack/events",
        cwd=ROOT,
        env=no_proxy_env(),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    bot: asyncio.subprocess.Process | None = None
    try:
        assert emulator.stdout is not None
        async with asyncio.timeout(20):
            while not (line := (await emulator.stdout.readline()).decode()).startswith(
                "Start the bot against it: "
            ):
                assert line, "the emulator ended before printing how to start the bot"
        command = line.removeprefix("Start the bot against it: ").split()
        settings = dict(word.split("=", 1) for word in command if "=" in word)
        assert command[len(settings) :] == ["python", "-m", "bot"]
        bot = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot",
            "--port",
            str(bot_port),
            "--db",
            str(tmp_path / "asks.db"),
            cwd=ROOT,
            env=no_proxy_env() | settings,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        assert bot.stdout is not None
        seen: list[str] = []
        async with asyncio.timeout(30):
            while not seen or not seen[-1].startswith("slack-questions listening on"):
                seen.append((await bot.stdout.readline()).decode())
                assert seen[-1], "the bot ended before listening:\n" + "".join(seen)
        assert seen[-1].startswith(
            f"slack-questions listening on http://127.0.0.1:{bot_port}: HTTP"
        )
        # Bolt's "As you gave `client` as well, `token` will be unused" is not printed.
        assert not any("will be unused" in line for line in seen), seen
    finally:
        for process in (bot, emulator):
            if process is not None and process.returncode is None:
                process.send_signal(signal.SIGTERM)
                await asyncio.wait_for(process.communicate(), 20)
    assert bot is not None
    assert bot.returncode == 0
