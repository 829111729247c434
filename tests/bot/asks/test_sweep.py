"""The periodic pass (`Posting.sweep`) alone on its store: it posts what was left unposted,
and leaves alone an ask whose post waits to be tried again."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bot.asks.lifecycle import RETRY_AFTER
from bot.store.sqlite import SqliteStore
from slack_emulator import ApiError, ManualClock, SlackEmulator

from ..harness import running_bot
from .test_recovery import stored_but_unposted


async def test_a_post_slack_cannot_vouch_for_is_tried_once_per_retry_then_left_to_the_pass(
    emu: SlackEmulator, tmp_path: Path
) -> None:
    clock = ManualClock()
    async with SqliteStore(tmp_path / "asks.db") as store:
        # A crash left it unposted, or posted unrecorded: it is looked for in Slack before it
        # is posted, and Slack cannot be asked.
        await store.add(stored_but_unposted("a1"))
        emu.inject("conversations.history", ApiError("internal_error"), times=None)
        async with running_bot(emu, store=store, clock=clock) as bot:
            posting = bot.provider.parts.posting
            waited = 0.0
            for retry_at in RETRY_AFTER:
                await clock.sleeping()  # its post waits for its next try
                await posting.sweep()  # the periodic pass leaves it to that try
                clock.advance(retry_at - waited)
                waited = retry_at
            await asyncio.wait_for(bot.idle(), 10)  # the last try failed: no retry is left
            looked = len(emu.calls_to("conversations.history"))
            emu.clear_faults()
            await posting.sweep()  # the periodic pass takes it up again
            await bot.posted()
            await bot.idle()
            [record] = await store.recent()
    assert looked == 1 + len(RETRY_AFTER)
    assert len(bot.ask_posts()) == 1
    assert record.message_ts == [str(bot.ask_posts()[0].response["ts"])]
