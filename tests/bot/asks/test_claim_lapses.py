"""A claim lapses after its policy's `claim_lapse`, on a manual clock: the ask returns to its
pool with one line in its thread — once across two replicas (on SQLite and PostgreSQL), and
taken over by the other replica when the one that saw the claim stops, or after a restart."""

from __future__ import annotations

from contextlib import AsyncExitStack
from pathlib import Path

import pytest

from bot import SlackQuestionProvider
from bot.store import AskRecord, EventKind
from bot.store.sqlite import SqliteStore
from slack_emulator import ManualClock, Message, SlackEmulator

from ..claim_replicas import BACKENDS, LAPSE, POLICIES, replica, shared_location, thread_lines
from ..harness import ALICE, BOB, CHANNEL, REVIEWERS, request, running_bot


@pytest.fixture(params=BACKENDS)
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    return shared_location(request, tmp_path)


QUESTION = {
    "id": "db",
    "question": "Which database?",
    "options": [{"label": "Postgres"}, {"label": "SQLite"}],
}
CLAIMED = f"🙋 <@{ALICE}> claimed this question."
LAPSED = (
    f"<@{ALICE}>'s claim on this question lapsed after 30 min: it is back with "
    f"<!subteam^{REVIEWERS}>."
)


def buttons(message: Message) -> list[str]:
    [controls] = [b for b in message.blocks if b.get("block_id") == "sq~claim"]
    return [e["text"]["text"] for e in controls["elements"]]


async def ask_and_claim(
    emu: SlackEmulator, a: SlackQuestionProvider, a_url: str, b: SlackQuestionProvider
) -> tuple[AskRecord, Message]:
    """An ask made and posted by `a` (as the relay makes one: nobody in `a` waits on it),
    held by `b` too, and claimed by alice with a click that `a` handles; `b` reads the claim
    on its sweep."""
    record, _ = await a.asks.create(request(QUESTION))
    record = await a.posting.post(record.id)
    await b.posting.sweep()
    message = emu.message(CHANNEL, record.message_ts[0])
    emu.request_url = a_url
    await emu.person(ALICE).click(message, text="Claim")
    await emu.wait_for(lambda: thread_lines(emu, message) == [CLAIMED], what="the claim")
    await a.idle()
    await b.posting.sweep()
    return record, message


async def test_a_claim_lapses_back_to_the_pool_after_its_policys_time(emu: SlackEmulator) -> None:
    clock = ManualClock()
    async with running_bot(emu, review=POLICIES, clock=clock) as bot:
        asking = bot.ask(QUESTION)
        message = await bot.posted()
        await bot.emu.person(ALICE).click(message, text="Claim")
        await bot.idle()
        await clock.sleeping()
        clock.advance(LAPSE - 1)
        await bot.idle()
        early = thread_lines(emu, message)
        clock.advance(1)
        await emu.wait_for(lambda: len(thread_lines(emu, message)) == 2, what="the lapse")
        await bot.idle()
        [record] = await bot.provider.store.recent()
        shown = bot.now(message)
        await bot.emu.person(BOB).click(shown, text="Postgres")  # the pool's again
        answer = await asking
    assert early == [CLAIMED]
    assert thread_lines(emu, message) == [CLAIMED, LAPSED]
    assert (record.holder, record.claimed_at) == (None, None)
    assert buttons(shown) == ["Claim", "Reassign…"]
    assert answer.answers[0].selected == ["Postgres"]


async def test_the_other_replica_lapses_a_claim_once_after_the_claiming_one_stops(
    emu: SlackEmulator, db: Path | str
) -> None:
    clock = ManualClock()
    async with replica(emu, db, "b", clock) as (b, _):
        async with replica(emu, db, "a", clock) as (a, a_url):
            record, message = await ask_and_claim(emu, a, a_url, b)
            await clock.sleeping(2)  # both replicas count down to the lapse
        # a stopped: its timer with it.
        await clock.sleeping(1)
        clock.advance(LAPSE)
        await emu.wait_for(lambda: len(thread_lines(emu, message)) == 2, what="the lapse")
        await b.idle()
        stored = await b.store.get(record.id)
        events = [e.kind for e in await b.store.events(record.id)]
        shown = emu.message(CHANNEL, message.ts)
    assert thread_lines(emu, message) == [CLAIMED, LAPSED]
    assert events.count(EventKind.CLAIMED) == 1
    assert events.count(EventKind.CLAIM_LAPSED) == 1
    assert stored is not None
    assert stored.holder is None
    assert buttons(shown) == ["Claim", "Reassign…"]


async def test_two_running_replicas_lapse_a_claim_once(emu: SlackEmulator, db: Path | str) -> None:
    clock = ManualClock()
    async with AsyncExitStack() as stack:
        b, _ = await stack.enter_async_context(replica(emu, db, "b", clock))
        a, a_url = await stack.enter_async_context(replica(emu, db, "a", clock))
        record, message = await ask_and_claim(emu, a, a_url, b)
        await clock.sleeping(2)
        clock.advance(LAPSE)
        await emu.wait_for(lambda: len(thread_lines(emu, message)) == 2, what="the lapse")
        await a.parts.claim_lapses.finished()
        await b.parts.claim_lapses.finished()
        await a.idle()
        await b.idle()
        events = [e.kind for e in await b.store.events(record.id)]
    assert thread_lines(emu, message) == [CLAIMED, LAPSED]
    assert events.count(EventKind.CLAIM_LAPSED) == 1


async def test_a_claim_that_lapsed_while_the_bot_was_down_lapses_once_at_restart(
    emu: SlackEmulator, tmp_path: Path
) -> None:
    clock = ManualClock()
    async with SqliteStore(tmp_path / "asks.db") as store:
        async with running_bot(emu, review=POLICIES, clock=clock, store=store) as bot:
            record, _ = await bot.provider.asks.create(request(QUESTION))
            record = await bot.provider.posting.post(record.id)
            message = emu.message(CHANNEL, record.message_ts[0])
            await emu.person(ALICE).click(message, text="Claim")
            await bot.idle()
        clock.advance(LAPSE)  # while it was down
        async with running_bot(emu, review=POLICIES, clock=clock, store=store) as bot:
            await emu.wait_for(lambda: len(thread_lines(emu, message)) == 2, what="the lapse")
            await bot.provider.parts.claim_lapses.finished()
            await bot.idle()
            events = [e.kind for e in await store.events(record.id)]
    assert thread_lines(emu, message) == [CLAIMED, LAPSED]
    assert events.count(EventKind.CLAIM_LAPSED) == 1
