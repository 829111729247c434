"""`Asks.wait` in one process: a pending ask holds no waiter until someone waits, and its
settle hands the waiter the record, with no read of the store."""

from __future__ import annotations

import asyncio

import pytest

from bot.asks.lifecycle import Asks
from bot.outcomes import Verdict
from bot.store import AskRecord, MemoryStore
from provider import AskUserQuestionAnswer
from slack_emulator import SlackEmulator

from ..asks.test_waiters import WAKE_S, CountingStore
from ..harness import ALICE, request, running_bot
from ..interactions.test_one_click import DB


async def test_a_pending_ask_holds_no_waiter_until_someone_waits(emu: SlackEmulator) -> None:
    async with running_bot(emu) as bot:
        asks: Asks = bot.provider.asks
        record, _ = await asks.create(request(DB))
        assert asks.waiters.waiting() == 0
        waiting = asyncio.create_task(asks.wait(record.id))
        await asyncio.sleep(0)
        assert asks.waiters.waiting(record.id) == 1
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        assert asks.waiters.waiting() == 0


async def test_the_answer_reaches_the_waiting_agent_without_a_store_read(
    emu: SlackEmulator,
) -> None:
    store = CountingStore()
    async with running_bot(emu, store=store) as bot:
        asking = bot.ask(DB)
        message = await bot.posted()
        await bot.idle()
        reads = store.reads
        await bot.emu.person(ALICE).click(message, text="SQLite")
        answer = await asyncio.wait_for(asking, WAKE_S)
        assert answer.to_wire() == {"answers": [{"id": "db", "selected": ["SQLite"]}]}
        assert store.reads == reads


class RoundTripStore(MemoryStore):
    """A store whose add answers one loop turn after it looked the idempotency key up, as
    a store across a thread or a connection does (SQLite's worker, when another writer
    holds the file; PostgreSQL)."""

    async def add(self, record: AskRecord) -> tuple[AskRecord, bool]:
        added = await super().add(record)
        await asyncio.sleep(0)
        return added


async def test_a_create_retried_while_its_ask_is_answered_does_not_hold_it_open_again(
    emu: SlackEmulator,
) -> None:
    # An agent's create retried with its idempotency key (its first 201 was lost in
    # transit) reads the ask pending; a person answers it before that read comes back.
    # The answered ask must not be held open again: alone on its store, a waiter on an
    # ask held here waits for its settle, which has come and gone.
    async with running_bot(emu, store=RoundTripStore()) as bot:
        asks: Asks = bot.provider.asks
        record, _ = await asks.create(request(DB), idempotency_key="key-1")
        retried = asyncio.create_task(asks.create(request(DB), idempotency_key="key-1"))
        await asyncio.sleep(0)  # the retry's add has read the ask, still pending
        answer = AskUserQuestionAnswer.model_validate(
            {"answers": [{"id": "db", "selected": ["SQLite"]}]}
        )
        assert await asks.settle(record.id, Verdict.ANSWERED, actor=ALICE, answer=answer)
        _, created = await retried
        assert not created
        async with asyncio.timeout(WAKE_S):
            settled = await asks.wait(record.id)  # held again, it waited for ever
        assert settled.answer == answer
        assert asks.live(record.id) is None
