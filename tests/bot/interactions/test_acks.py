"""Acks first: Slack hears back at once, whatever the work after the ack does."""

from __future__ import annotations

from bot.store import AskEvent, AskRecord, MemoryStore
from slack_emulator import SlackEmulator, Slow

from ..harness import ALICE, running_bot

DB = {"id": "db", "question": "Which database?", "options": [{"label": "Postgres"}]}


async def test_a_click_is_acked_before_the_slow_message_update_finishes(emu: SlackEmulator) -> None:
    async with running_bot(emu) as bot:
        asking = bot.ask(DB)
        message = await bot.posted()
        # An ack that waited for the update would be late: Slack's 3 s deadline, shortened.
        emu.ack_deadline = 0.75
        emu.inject("chat.update", Slow(seconds=1.0))
        delivery = await emu.person(ALICE).click(message, text="Postgres")
        assert delivery.acked
        assert not delivery.late
        assert (await asking).answers[0].selected == ["Postgres"]
        assert [c for c in emu.calls_to("chat.update")] == []  # still under way
    # Closing drained the post-ack work: the update landed before close returned.
    assert len(emu.calls_to("chat.update")) == 1
    assert emu.violations == []


class BrokenStore(MemoryStore):
    """Saves nothing after the ask is posted: every later transition fails."""

    async def settle(self, record: AskRecord, event: AskEvent) -> bool:
        if event.kind == "answered":
            raise OSError("disk full")
        return await super().settle(record, event)


async def test_a_failure_after_the_ack_does_not_lose_the_ack(emu: SlackEmulator) -> None:
    async with running_bot(emu, store=BrokenStore()) as bot:
        asking = bot.ask(DB)
        message = await bot.posted()
        delivery = await emu.person(ALICE).click(message, text="Postgres")
        await bot.idle()
        assert (delivery.status, delivery.acked) == (200, True)
        # Nothing was decided, so the ask is still open for the next answer.
        assert not asking.done()
        asking.cancel()
