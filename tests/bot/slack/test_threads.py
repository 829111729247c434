"""Where asks go: one thread per agent session, or where the host routes it."""

from __future__ import annotations

import asyncio

from provider import Agent

from ..harness import ALICE, CHANNEL, OTHER_CHANNEL, Bot

NAME = {"id": "name", "question": "Name the service"}


def roots(bot: Bot) -> list[str]:
    return [m.text for m in bot.emu.channel_messages(CHANNEL) if m.user == bot.emu.bot_user_id]


async def test_an_agents_first_ask_opens_a_thread_whose_root_names_the_agent(bot: Bot) -> None:
    agent = Agent("planner-7", name="Release planner")
    bot.agents.enter(agent)
    bot.ask(NAME, agent=agent)
    message = await bot.posted()
    [root] = bot.emu.channel_messages(CHANNEL)
    assert root.text == "Release planner needs answers from people"
    assert "Agent Release planner (`planner-7`) needs answers" in str(root.blocks)
    assert message.thread_ts == root.ts


async def test_every_ask_of_a_session_is_a_reply_in_its_thread(bot: Bot) -> None:
    agent = Agent("planner-7", name="Release planner")
    bot.agents.enter(agent)
    bot.ask(NAME, agent=agent)
    bot.ask({**NAME, "id": "owner"}, agent=agent)
    first, second = await bot.posted(1), await bot.posted(2)
    assert first.thread_ts == second.thread_ts
    assert len(roots(bot)) == 1
    assert [m.ts for m in bot.emu.thread(CHANNEL, str(first.thread_ts))[1:]] == [
        first.ts,
        second.ts,
    ]


async def test_two_first_asks_at_once_open_one_thread(bot: Bot) -> None:
    agent = Agent("racer")
    bot.agents.enter(agent)
    bot.ask(NAME, agent=agent)
    bot.ask({**NAME, "id": "other"}, agent=agent)
    await asyncio.gather(bot.posted(1), bot.posted(2))
    assert len(roots(bot)) == 1


async def test_two_agents_get_two_threads(bot: Bot) -> None:
    one, two = Agent("one", name="One"), Agent("two", name="Two")
    bot.agents.enter(one)
    bot.agents.enter(two)
    bot.ask(NAME, agent=one)
    bot.ask(NAME, agent=two)
    first, second = await bot.posted(1), await bot.posted(2)
    assert first.thread_ts != second.thread_ts
    assert sorted(roots(bot)) == ["One needs answers from people", "Two needs answers from people"]


async def test_an_agentless_ask_is_posted_at_the_top_level(bot: Bot) -> None:
    bot.ask(NAME)
    message = await bot.posted()
    assert message.thread_ts is None
    assert [m.ts for m in bot.emu.channel_messages(CHANNEL)] == [message.ts]


async def test_a_host_can_route_a_session_to_an_existing_thread(bot: Bot) -> None:
    started = await bot.emu.person(ALICE).say(OTHER_CHANNEL, "@bot please deploy")
    bot.emu.workspace.add_member(OTHER_CHANNEL, bot.emu.bot_user_id)
    agent = Agent("deployer")
    bot.agents.enter(agent)
    await bot.provider.route("deployer", OTHER_CHANNEL, started.ts)
    bot.ask(NAME, agent=agent)
    message = await bot.posted()
    assert (message.channel, message.thread_ts) == (OTHER_CHANNEL, started.ts)
    assert roots(bot) == []
