"""Who may answer: configured users and user groups; everyone else is refused."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.slack.responders import ANYONE
from slack_emulator import SlackEmulator

from ..harness import ALICE, BOB, CAROL, REVIEWERS, Bot, running_bot

DB = {"id": "db", "question": "Which database?", "options": [{"label": "Postgres"}]}


@pytest.fixture
async def guarded(emu: SlackEmulator) -> AsyncIterator[Bot]:
    async with running_bot(emu, responders=[BOB, REVIEWERS]) as bot:
        yield bot


async def test_someone_outside_the_allowed_set_is_refused_and_nothing_changes(
    guarded: Bot,
) -> None:
    asking = guarded.ask(DB)
    message = await guarded.posted()
    await guarded.emu.person(CAROL).click(message, text="Postgres")
    await guarded.idle()
    assert [e.text for e in guarded.emu.ephemerals(CAROL)] == [
        f"Only <@{BOB}>, <!subteam^{REVIEWERS}> may answer this question, so nothing changed."
    ]
    assert guarded.now(message).blocks == message.blocks
    assert not asking.done()
    asking.cancel()


async def test_a_listed_user_may_answer(guarded: Bot) -> None:
    asking = guarded.ask(DB)
    await guarded.emu.person(BOB).click(await guarded.posted(), text="Postgres")
    assert (await asking).answers[0].selected == ["Postgres"]


async def test_a_member_of_an_allowed_group_may_answer(guarded: Bot) -> None:
    asking = guarded.ask(DB)
    await guarded.emu.person(ALICE).click(await guarded.posted(), text="Postgres")
    assert (await asking).answers[0].selected == ["Postgres"]


async def test_without_a_configured_set_anyone_in_the_channel_may_answer(bot: Bot) -> None:
    asking = bot.ask(DB)
    await bot.emu.person(CAROL).click(await bot.posted(), text="Postgres")
    assert (await asking).answers[0].selected == ["Postgres"]


async def test_an_outsider_cannot_open_the_form(guarded: Bot) -> None:
    asking = guarded.ask(DB, {"id": "name", "question": "Name?"})
    await guarded.emu.person(CAROL).click(await guarded.posted(), text="Answer in a form")
    await guarded.idle()
    assert guarded.emu.views(CAROL) == []
    assert len(guarded.emu.ephemerals(CAROL)) == 1
    asking.cancel()


async def test_a_star_lets_any_member_of_the_channel_answer(emu: SlackEmulator) -> None:
    async with running_bot(emu, responders=ANYONE) as bot:
        asking = bot.ask(DB)
        await bot.emu.person(CAROL).click(await bot.posted(), text="Postgres")
        assert (await asking).answers[0].selected == ["Postgres"]


async def test_with_no_responders_nobody_may_answer_and_is_told_why(emu: SlackEmulator) -> None:
    async with running_bot(emu, responders=()) as bot:
        asking = bot.ask(DB)
        message = await bot.posted()
        await bot.emu.person(ALICE).click(message, text="Postgres")
        await bot.idle()
        assert [e.text for e in bot.emu.ephemerals(ALICE)] == [
            "Nobody may answer this question: no responders are configured."
        ]
        assert bot.now(message).blocks == message.blocks
        assert not asking.done()
        asking.cancel()
