"""kill -9 of `python -m bot` around the thread line of a rule's decision: a decision stored
but never told is told once after the restart; a line Slack stored but nobody recorded is
found, not posted again."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.store import AskRecord
from bot.store.postgres import PostgresStore
from bot.store.sqlite import SqliteStore
from slack_emulator import Message, SlackEmulator, Slow

from ..harness import CHANNEL
from .harness import Process, free_port, relay, service_env

HOLD = 10.0  # at most, a held call waits in the emulator (released once the kill landed)
POLICY = """
[[tools]]
name = "git-read-only"
tool = "Bash"
args = { command = "re:git (status|log|diff)( .*)?" }
decision = "allow"
"""
AGENT = {"id": "session-1", "name": "Claude Code · billing-api"}


def tool_call(command: str) -> dict[str, Any]:
    return {
        "id": "approve",
        "question": f"Allow Bash: {command}?",
        "options": [{"label": "Allow"}, {"label": "Deny"}],
        "intent": {
            "kind": "tool-approval",
            "allow": "Allow",
            "tool": "Bash",
            "input": {"command": command},
            "session": "session-1",
        },
    }


def roots(emu: SlackEmulator) -> list[Message]:
    """The session thread roots Slack holds in the channel."""
    return [
        message
        for message in emu.channel_messages(CHANNEL)
        if (message.metadata or {}).get("event_type") == "slack_questions_session"
    ]


def lines(emu: SlackEmulator) -> list[Message]:
    """The automatic lines Slack holds in the sessions' threads, oldest first."""
    return [
        message
        for root in roots(emu)
        for message in emu.thread(CHANNEL, root.ts)
        if (message.metadata or {}).get("event_type") == "slack_questions_line"
    ]


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


@pytest.fixture
def service(emu: SlackEmulator, tmp_path: Path) -> Process:
    policy = tmp_path / "review.toml"
    policy.write_text(POLICY)
    env = service_env(
        emu, tmp_path / "asks.db", free_port(), SLACK_QUESTIONS_REVIEW_POLICY=str(policy)
    )
    return Process(env)


async def decide(http: aiohttp.ClientSession, service: Process, command: str) -> str:
    """The relay's answer to a call the rule allows: 201, answered at once."""
    status, body = await relay(
        http,
        "POST",
        f"{service.url}/v1/asks",
        json={"questions": [tool_call(command)], "agent": AGENT},
    )
    assert (status, body["state"]) == (201, "answered"), body
    return str(body["id"])


async def stored(service: Process, ask_id: str) -> AskRecord:
    async with SqliteStore(Path(service.env["SLACK_QUESTIONS_DB"])) as store:
        record = await store.get(ask_id)
    assert record is not None
    return record


async def until_told(read: Callable[[], Awaitable[AskRecord | None]]) -> AskRecord:
    """The ask once a running service recorded its line (another process's store has no
    event to await here: it is read again every 50 ms, for at most 10 s)."""
    for _ in range(200):
        record = await read()
        assert record is not None
        if record.shown:
            return record
        await asyncio.sleep(0.05)
    raise AssertionError("the ask's line was never recorded")


async def test_a_decision_killed_before_its_line_is_told_once_after_the_restart(
    emu: SlackEmulator, service: Process, http: aiohttp.ClientSession
) -> None:
    await service.start()
    try:
        released = asyncio.Event()
        emu.inject("chat.postMessage", Slow(HOLD, released))  # the session's thread root
        ask_id = await decide(http, service, "git status")
        await emu.wait_for(lambda: emu.held("chat.postMessage") == 1, what="the root in flight")
        await service.kill()
        released.set()
        await emu.wait_for(lambda: len(roots(emu)) == 1, what="Slack storing the held root")
        assert lines(emu) == []
        await service.start()
        await emu.wait_for(lambda: len(lines(emu)) == 1, what="the line after the restart")
        record = await until_told(lambda: stored(service, ask_id))
    finally:
        assert await service.stop() == 0
    assert [m.text for m in lines(emu)] == [
        "✅ auto-allowed by rule `git-read-only`: Bash `git status`"
    ]
    assert len(roots(emu)) == 1
    assert (record.thread_ts, record.message_ts) == (roots(emu)[0].ts, [lines(emu)[0].ts])


async def test_a_line_in_slacks_hands_at_the_kill_is_found_not_posted_again(
    emu: SlackEmulator, service: Process, http: aiohttp.ClientSession
) -> None:
    await service.start()
    try:
        await decide(http, service, "git status")
        await emu.wait_for(lambda: len(lines(emu)) == 1, what="the first line")
        released = asyncio.Event()
        emu.inject("chat.postMessage", Slow(HOLD, released))  # the second call's line
        ask_id = await decide(http, service, "git diff")
        await emu.wait_for(lambda: emu.held("chat.postMessage") == 1, what="the line in flight")
        await service.kill()
        released.set()
        await emu.wait_for(lambda: len(lines(emu)) == 2, what="Slack storing the held line")
        await service.start()
        record = await until_told(lambda: stored(service, ask_id))
    finally:
        assert await service.stop() == 0
    assert [m.text for m in lines(emu)] == [
        "✅ auto-allowed by rule `git-read-only`: Bash `git status`",
        "✅ auto-allowed by rule `git-read-only`: Bash `git diff`",
    ]
    assert record.message_ts == [lines(emu)[1].ts]


def replica(emu: SlackEmulator, postgres_url: str, name: str, policy: Path) -> Process:
    env = service_env(
        emu,
        Path("unused.db"),
        free_port(),
        SLACK_QUESTIONS_REPLICA=name,
        SLACK_QUESTIONS_REVIEW_POLICY=str(policy),
    )
    return Process({**env, "SLACK_QUESTIONS_DB": postgres_url})


async def test_two_replicas_restarting_at_once_tell_an_untold_decision_once(
    emu: SlackEmulator, postgres_url: str, tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    policy = tmp_path / "review.toml"
    policy.write_text(POLICY)
    a, b = replica(emu, postgres_url, "a", policy), replica(emu, postgres_url, "b", policy)
    await asyncio.gather(a.start(), b.start())
    try:
        released = asyncio.Event()
        emu.inject("chat.postMessage", Slow(HOLD, released))  # the session's thread root
        ask_id = await decide(http, a, "git status")
        await emu.wait_for(lambda: emu.held("chat.postMessage") == 1, what="the root in flight")
        await asyncio.gather(a.kill(), b.kill())
        released.set()
        await emu.wait_for(lambda: len(roots(emu)) == 1, what="Slack storing the held root")
        await asyncio.gather(a.start(), b.start())  # both look for untold decisions at once
        await emu.wait_for(lambda: len(lines(emu)) == 1, what="the line after the restarts")
        async with PostgresStore(postgres_url) as store:
            record = await until_told(lambda: store.get(ask_id))
    finally:
        for process in (a, b):
            if process.proc is not None and process.proc.returncode is None:
                assert await process.stop() == 0, "".join(process.output)
    assert [m.text for m in lines(emu)] == [
        "✅ auto-allowed by rule `git-read-only`: Bash `git status`"
    ]
    assert len(roots(emu)) == 1
    assert (record.shown, record.message_ts) == (True, [lines(emu)[0].ts])
