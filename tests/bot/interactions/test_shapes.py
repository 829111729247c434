"""Every question shape at Slack's limits: shown with the right element, or refused first."""

from __future__ import annotations

from typing import Any

import pytest

from provider import ErrorCode, UserQuestionError

from ..harness import ALICE, Bot


def options(n: int) -> list[dict[str, str]]:
    return [{"label": f"Option {i}"} for i in range(n)]


def elements(blocks: list[dict[str, Any]], block_id: str) -> list[str]:
    """The element types in the block with this id."""
    [block] = [b for b in blocks if b.get("block_id") == block_id]
    if block["type"] == "actions":
        return [e["type"] for e in block["elements"]]
    return [block["element"]["type"]]


async def test_a_lone_question_with_11_options_is_buttons(bot: Bot) -> None:
    asking = bot.ask({"id": "q", "question": "Pick", "options": options(11)})
    message = await bot.posted()
    assert elements(message.blocks, "q") == ["button"] * 12  # 11 options and "Other…"
    await bot.emu.person(ALICE).click(message, text="Option 10")
    assert (await asking).answers[0].selected == ["Option 10"]


async def test_a_batch_question_with_11_options_is_a_select(bot: Bot) -> None:
    asking = bot.ask(
        {"id": "q", "question": "Pick", "options": options(11)},
        {"id": "r", "question": "Why?"},
    )
    message = await bot.posted()
    assert elements(message.blocks, "q") == ["static_select"]
    alice = bot.emu.person(ALICE)
    await alice.select(message, block_id="q", value="10")
    await alice.type(message, block_id="r", text="because")
    await alice.click(message, text="Submit")
    assert (await asking).answers[0].selected == ["Option 10"]


async def test_a_lone_question_with_26_options_is_a_menu_answered_by_one_pick(bot: Bot) -> None:
    asking = bot.ask({"id": "q", "question": "Pick", "options": options(26)})
    message = await bot.posted()
    assert elements(message.blocks, "q") == ["static_select", "button"]
    [menu] = [e for b in message.blocks if b.get("block_id") == "q" for e in b["elements"]][:1]
    value = next(o["value"] for o in menu["options"] if o["text"]["text"] == "Option 25")
    await bot.emu.person(ALICE).select(message, block_id="q", value=value)
    assert (await asking).answers[0].selected == ["Option 25"]


async def test_a_multi_select_with_26_options_is_a_multi_select_menu(bot: Bot) -> None:
    asking = bot.ask({"id": "q", "question": "Pick", "multi_select": True, "options": options(26)})
    message = await bot.posted()
    assert elements(message.blocks, "q") == ["multi_static_select"]
    alice = bot.emu.person(ALICE)
    await alice.select(message, block_id="q", values=["25", "3"])
    await alice.click(message, text="Submit")
    assert (await asking).answers[0].selected == ["Option 3", "Option 25"]


async def test_101_options_are_refused_before_anything_is_posted(bot: Bot) -> None:
    with pytest.raises(UserQuestionError) as caught:
        await bot.ask({"id": "q", "question": "Pick", "options": options(101)})
    assert caught.value.code is ErrorCode.ASK_FAILED
    assert caught.value.message == (
        "Slack cannot show this ask: question q has 101 options; Slack menus hold at most 100"
    )
    assert bot.emu.calls_to("chat.postMessage") == []


async def test_100_options_are_shown(bot: Bot) -> None:
    asking = bot.ask({"id": "q", "question": "Pick", "options": options(100)})
    message = await bot.posted()
    assert elements(message.blocks, "q") == ["static_select", "button"]
    asking.cancel()


async def test_a_300_character_id_is_refused_before_anything_is_posted(bot: Bot) -> None:
    with pytest.raises(UserQuestionError) as caught:
        await bot.ask({"id": "x" * 300, "question": "Pick", "options": options(2)})
    assert caught.value.code is ErrorCode.ASK_FAILED
    assert "is 300 characters; Slack block ids hold at most 255" in caught.value.message
    assert bot.emu.calls_to("chat.postMessage") == []


async def test_a_255_character_id_is_shown(bot: Bot) -> None:
    asking = bot.ask({"id": "x" * 255, "question": "Pick", "options": options(2)})
    message = await bot.posted()
    await bot.emu.person(ALICE).click(message, text="Option 1")
    assert (await asking).answers[0].id == "x" * 255


async def test_a_60_question_batch_is_split_into_messages_and_answered_part_by_part(
    bot: Bot,
) -> None:
    questions = [
        {"id": f"q{i}", "question": f"Question {i}?", "options": options(3)} for i in range(60)
    ]
    asking = bot.ask(*questions)
    alice = bot.emu.person(ALICE)
    parts: list[str] = []
    n = 1
    while len(parts) < 60:
        message = await bot.posted(n)
        assert len(message.blocks) <= 50
        ids = [b["block_id"] for b in message.blocks if str(b.get("block_id", "")).startswith("q")]
        for qid in ids:
            await alice.choose(message, block_id=qid, value=str(int(qid[1:]) % 3))
        parts.extend(ids)
        await alice.click(message, text="Submit")
        n += 1
    answer = await asking
    assert [a.id for a in answer.answers] == [f"q{i}" for i in range(60)]
    assert [a.selected for a in answer.answers] == [[f"Option {i % 3}"] for i in range(60)]
    assert n - 1 == len(bot.ask_posts()) > 1
