"""A lone single-select question: one click answers it."""

from __future__ import annotations

import asyncio

from ..harness import ALICE, BOB, Bot

DB = {
    "id": "db",
    "question": "Which database?",
    "options": [{"label": "Postgres (Recommended)"}, {"label": "SQLite"}],
}


async def test_one_click_returns_the_label(bot: Bot) -> None:
    asking = bot.ask(DB)
    message = await bot.posted()
    await bot.emu.person(ALICE).click(message, text="SQLite")
    answer = await asking
    assert answer.to_wire() == {"answers": [{"id": "db", "selected": ["SQLite"]}]}


async def test_the_buttons_block_id_is_the_question_id(bot: Bot) -> None:
    bot.ask(DB)
    message = await bot.posted()
    buttons = [b for b in message.blocks if b["type"] == "actions"]
    assert [b["block_id"] for b in buttons] == ["db"]


async def test_the_message_is_updated_with_answer_and_answerer(bot: Bot) -> None:
    asking = bot.ask(DB)
    message = await bot.posted()
    await bot.emu.person(ALICE).click(message, text="Postgres (Recommended)")
    await asking
    await bot.idle()
    updated = bot.now(message)
    text = " ".join(str(b) for b in updated.blocks)
    assert "*Postgres (Recommended)*" in text
    assert f"Answered by <@{ALICE}>" in text
    assert not [b for b in updated.blocks if b["type"] in ("actions", "input")]


async def test_of_two_clicks_at_once_the_first_wins_and_the_second_is_refused(bot: Bot) -> None:
    asking = bot.ask(DB)
    message = await bot.posted()
    # Both people see the buttons; both clicks are on their way before either is handled.
    await asyncio.gather(
        bot.emu.person(ALICE).click(message, text="SQLite"),
        bot.emu.person(BOB).click(message, text="Postgres (Recommended)"),
    )
    answer = await asking
    await bot.idle()
    assert answer.to_wire() == {"answers": [{"id": "db", "selected": ["SQLite"]}]}
    assert [e.text for e in bot.emu.ephemerals(BOB)] == [
        f"This question was already answered by <@{ALICE}>."
    ]
    assert bot.emu.ephemerals(ALICE) == []
