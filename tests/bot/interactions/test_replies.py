"""A reply in the thread answers a lone question: its text, or the option it names."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from provider import Agent
from slack_emulator import SlackEmulator

from ..harness import ALICE, BOB, CAROL, CHANNEL, Bot, running_bot

NAME = {"id": "name", "question": "Name the service"}


async def test_a_thread_reply_answers_an_optionless_question(bot: Bot) -> None:
    agent = Agent("namer")
    bot.agents.enter(agent)
    asking = bot.ask(NAME, agent=agent)
    message = await bot.posted()
    await bot.emu.person(ALICE).reply(CHANNEL, str(message.thread_ts), "billing <api> & co\nv2")
    answer = await asking
    assert answer.to_wire() == {
        "answers": [{"id": "name", "selected": [], "custom": "billing <api> & co\nv2"}]
    }


async def test_a_reply_under_a_top_level_ask_answers_it(bot: Bot) -> None:
    asking = bot.ask(NAME)
    message = await bot.posted()
    await bot.emu.person(ALICE).reply(CHANNEL, message.ts, "svc")
    assert (await asking).answers[0].custom == "svc"


DB = {
    "id": "db",
    "question": "Which database?",
    "options": [{"label": "Postgres"}, {"label": "SQLite"}],
}


async def test_a_reply_naming_an_option_answers_a_single_choice(bot: Bot) -> None:
    asking = bot.ask(DB)
    message = await bot.posted()
    await bot.emu.person(ALICE).reply(CHANNEL, message.ts, "  sqlite ")
    assert (await asyncio.wait_for(asking, 20)).to_wire() == {
        "answers": [{"id": "db", "selected": ["SQLite"]}]
    }


async def test_a_reply_with_an_options_number_answers_a_single_choice(bot: Bot) -> None:
    asking = bot.ask(DB)
    message = await bot.posted()
    await bot.emu.person(ALICE).reply(CHANNEL, message.ts, "1")
    assert (await asyncio.wait_for(asking, 20)).to_wire() == {
        "answers": [{"id": "db", "selected": ["Postgres"]}]
    }


async def test_a_reply_naming_no_option_is_told_how_to_answer_and_answers_nothing(
    bot: Bot,
) -> None:
    asking = bot.ask(DB)
    message = await bot.posted()
    await bot.emu.person(ALICE).reply(CHANNEL, message.ts, "MySQL?")
    await bot.idle()
    assert not asking.done()
    assert [e.text for e in bot.emu.ephemerals(ALICE)] == [
        "That reply does not answer “Which database?”. Reply with one option's name or "
        "number (1 Postgres, 2 SQLite), or use the buttons."
    ]
    asking.cancel()


async def test_a_reply_does_not_answer_several_choices(bot: Bot) -> None:
    asking = bot.ask({**DB, "multiSelect": True})
    message = await bot.posted()
    await bot.emu.person(ALICE).reply(CHANNEL, message.ts, "SQLite")
    await bot.idle()
    assert not asking.done()
    assert bot.emu.ephemerals(ALICE) == []
    asking.cancel()


async def test_a_reply_does_not_approve_a_tool(bot: Bot) -> None:
    # Allow is a button: its confirm dialog and the policy's quorum apply there only.
    tool = {
        "id": "approve",
        "question": "Allow Bash?",
        "options": [{"label": "Allow"}, {"label": "Deny"}],
        "intent": {"kind": "tool-approval", "allow": "Allow", "tool": "Bash"},
    }
    asking = bot.ask(tool)
    message = await bot.posted()
    await bot.emu.person(ALICE).reply(CHANNEL, message.ts, "Allow")
    await bot.idle()
    assert not asking.done()
    asking.cancel()


@pytest.fixture
async def guarded(emu: SlackEmulator) -> AsyncIterator[Bot]:
    async with running_bot(emu, responders=[BOB]) as bot:
        yield bot


async def test_a_reply_from_someone_not_allowed_is_refused(guarded: Bot) -> None:
    asking = guarded.ask(NAME)
    message = await guarded.posted()
    await guarded.emu.person(CAROL).reply(CHANNEL, message.ts, "mine")
    await guarded.idle()
    assert not asking.done()
    assert len(guarded.emu.ephemerals(CAROL)) == 1
    await guarded.emu.person(BOB).reply(CHANNEL, message.ts, "ours")
    assert (await asking).answers[0].custom == "ours"


async def test_a_reply_answers_the_question_of_its_thread_among_many_pending(bot: Bot) -> None:
    agents = [Agent(f"agent-{n}") for n in range(5)]
    asking = []
    for n, agent in enumerate(agents):
        bot.agents.enter(agent)
        asking.append(bot.ask(NAME, agent=agent))
        await bot.posted(n + 1)
    third = await bot.posted(3)
    await bot.emu.person(ALICE).reply(CHANNEL, str(third.thread_ts), "svc-3")
    assert (await asking[2]).answers[0].custom == "svc-3"
    assert [task.done() for task in asking] == [False, False, True, False, False]
    assert bot.provider.asks.reply_target(CHANNEL, str(third.thread_ts)) is None
    for task in asking:
        task.cancel()
