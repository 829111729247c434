"""Posting in a process alone on its store: the post lease asks the store nothing."""

from __future__ import annotations

from provider import Agent
from slack_emulator import SlackEmulator

from ..harness import ALICE, running_bot
from ..interactions.test_one_click import DB
from ..store.test_leases import CountingStore


async def test_an_ask_posted_by_a_process_alone_on_its_store_takes_no_post_lease_there(
    emu: SlackEmulator,
) -> None:
    store = CountingStore()
    async with running_bot(emu, store=store) as bot:
        agent = Agent("planner-7", name="Release planner")
        bot.agents.enter(agent)
        asking = bot.ask(DB, agent=agent)
        message = await bot.posted()
        await emu.person(ALICE).click(message, text="SQLite")
        assert (await asking).answers[0].selected == ["SQLite"]
    # Only the session's thread lease is stored: its lapse would tell a restart that a
    # root may be in Slack unrecorded.
    assert [call.split()[:2] for call in store.calls] == [
        ["lease", "thread:planner-7"],
        ["release", "thread:planner-7"],
    ]
