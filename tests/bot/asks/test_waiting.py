"""`Asks.wait` in one process: a pending ask holds no waiter until someone waits, and its
settle hands the waiter the record, with no read of the store."""

from __future__ import annotations

import asyncio

import pytest

from bot.asks.lifecycle import Asks
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
