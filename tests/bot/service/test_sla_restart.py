"""Issue 26: an ask's SLA ladder is stored, so a replica started after the one that posted it
was killed takes the ladder over — each step posted once, at its time, by the survivor."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from bot.store import EventKind
from bot.store.sqlite import SqliteStore
from slack_emulator import Message, SlackEmulator

from ..harness import ALICE, CAROL, CHANNEL
from .harness import Process, free_port, relay, service_env
from .test_relay import DB, posted

BACKUP = "S0BACKUP01"  # carol
# Real processes run on real time: steps a few seconds apart, the first after the kill.
POLICY = f"""
[default]
reviewers = ["{ALICE}"]
remind_after = "6s"
escalate_after = "9s"
escalate_to = ["{BACKUP}"]
expire_after = "1h"
"""


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


def replies(emu: SlackEmulator, message: Message) -> list[str]:
    """The bot's lines in the ask's thread, oldest first."""
    return [m.text for m in emu.thread(CHANNEL, message.ts) if m.ts != message.ts]


async def test_a_replica_started_after_a_kill_reminds_and_escalates_each_once(
    emu: SlackEmulator, tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    emu.workspace.add_usergroup(BACKUP, handle="backup", users=[CAROL])
    policy = tmp_path / "policy.toml"
    policy.write_text(POLICY)
    db = tmp_path / "asks.db"
    extra = {"SLACK_QUESTIONS_REVIEW_POLICY": str(policy)}
    first = Process(service_env(emu, db, free_port(), **extra))
    await first.start()
    status, body = await relay(http, "POST", f"{first.url}/v1/asks", json={"questions": [DB]})
    assert status == 201
    message = await posted(emu)
    await first.kill()  # before its first step: the ladder lives only in the store now
    assert replies(emu, message) == []
    second = Process(service_env(emu, db, free_port(), **extra))
    await second.start()
    try:
        await emu.wait_for(
            lambda: len(replies(emu, message)) >= 2, within=30, what="remind, then escalate"
        )
        status, view = await relay(http, "GET", f"{second.url}/v1/asks/{body['id']}")
    finally:
        assert await second.stop() == 0
    async with SqliteStore(db) as store:
        kinds = [e.kind for e in await store.events(str(body["id"]))]
    assert replies(emu, message) == [
        f"<@{ALICE}>: this question has waited 6 s for an answer.",
        f"<!subteam^{BACKUP}>: nobody answered this question in 9 s, so you are asked too now "
        f"(with <@{ALICE}>). Answer it above.",
    ]
    assert (kinds.count(EventKind.REMINDED), kinds.count(EventKind.ESCALATED)) == (1, 1)
    assert (status, view["state"]) == (200, "pending")
