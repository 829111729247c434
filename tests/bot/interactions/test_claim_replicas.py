"""Claim and Release across two replicas sharing one store (SQLite, PostgreSQL): two people claiming at once on two
replicas make one holder and one thread line, the other told who holds it; a release clicked
twice, on each replica, is one line."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot import SlackQuestionProvider
from bot.store import AskRecord, EventKind
from slack_emulator import ManualClock, Message, SlackEmulator

from ..claim_replicas import BACKENDS, replica, shared_location, thread_lines
from ..harness import ALICE, BOB, CHANNEL, REVIEWERS, request


@pytest.fixture(params=BACKENDS)
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    return shared_location(request, tmp_path)


QUESTION = {
    "id": "db",
    "question": "Which database?",
    "options": [{"label": "Postgres"}, {"label": "SQLite"}],
}


@dataclass
class Two:
    """Two replicas, the URLs their Bolt apps are served at, and an ask both hold."""

    a: SlackQuestionProvider
    b: SlackQuestionProvider
    urls: dict[str, str]
    record: AskRecord
    message: Message

    async def idle(self) -> None:
        await self.a.idle()
        await self.b.idle()


@pytest.fixture
async def two(emu: SlackEmulator, db: Path | str) -> AsyncIterator[Two]:
    clock = ManualClock()
    async with AsyncExitStack() as stack:
        a, a_url = await stack.enter_async_context(replica(emu, db, "a", clock))
        b, b_url = await stack.enter_async_context(replica(emu, db, "b", clock))
        record, _ = await a.asks.create(request(QUESTION))
        record = await a.posting.post(record.id)
        await b.posting.sweep()  # b holds it too
        message = emu.message(CHANNEL, record.message_ts[0])
        yield Two(a, b, {"a": a_url, "b": b_url}, record, message)


async def click_on(emu: SlackEmulator, two: Two, where: str, user: str, text: str) -> None:
    with emu.delivering_to(two.urls[where]):
        await emu.person(user).click(emu.message(CHANNEL, two.message.ts), text=text)


async def test_two_claims_at_once_on_two_replicas_make_one_holder_and_one_line(
    emu: SlackEmulator, two: Two
) -> None:
    await asyncio.gather(
        click_on(emu, two, "a", ALICE, "Claim"), click_on(emu, two, "b", BOB, "Claim")
    )
    await emu.wait_for(
        lambda: bool(emu.ephemerals(ALICE) or emu.ephemerals(BOB)), what="the refusal"
    )
    await two.idle()
    stored = await two.a.store.get(two.record.id)
    assert stored is not None
    holder = stored.holder
    other = BOB if holder == ALICE else ALICE
    events = [e.kind for e in await two.a.store.events(two.record.id)]
    assert holder in (ALICE, BOB)
    assert thread_lines(emu, two.message) == [f"🙋 <@{holder}> claimed this question."]
    assert events.count(EventKind.CLAIMED) == 1
    assert [e.text for e in emu.ephemerals(other)] == [
        f"🙋 <@{holder}> has claimed this question: only they may answer it now, so nothing "
        "changed."
    ]


async def test_a_release_clicked_on_each_replica_is_one_line(emu: SlackEmulator, two: Two) -> None:
    await click_on(emu, two, "a", ALICE, "Claim")
    await two.idle()
    await two.b.posting.sweep()
    await asyncio.gather(
        click_on(emu, two, "a", ALICE, "Release"), click_on(emu, two, "b", ALICE, "Release")
    )
    await emu.wait_for(lambda: bool(emu.ephemerals(ALICE)), what="the second release's note")
    await two.idle()
    events = [e.kind for e in await two.a.store.events(two.record.id)]
    assert thread_lines(emu, two.message) == [
        f"🙋 <@{ALICE}> claimed this question.",
        f"<@{ALICE}> released this question: it is back with <!subteam^{REVIEWERS}>.",
    ]
    assert events.count(EventKind.RELEASED) == 1
    assert [e.text for e in emu.ephemerals(ALICE)] == [
        "Nobody holds this question: nothing changed."
    ]
