"""Agent text: labels round-trip exactly, everything it writes renders as plain text."""

from __future__ import annotations

import json
from pathlib import Path

from bot.store.sqlite import SqliteStore
from provider import ToolError, ask_user_question_tool
from slack_emulator import SlackEmulator

from .harness import ALICE, Bot, running_bot

TRICKY = [
    "L" * 200,
    "Ship it 🚀 <@U0ALICE001> & <!channel>",
    "a > b && c < d",
    "Postgres (Recommended)",
]


async def test_tricky_labels_round_trip_exactly(bot: Bot) -> None:
    for index, label in enumerate(TRICKY):
        asking = bot.ask(
            {
                "id": f"q{index}",
                "question": "Pick",
                "options": [{"label": label} for label in TRICKY],
            }
        )
        message = await bot.posted(index + 1)
        await bot.emu.person(ALICE).click(message, action_id=f"sq_pick.{index}")
        assert (await asking).answers[0].selected == [label]


async def test_tricky_labels_round_trip_through_a_form(bot: Bot) -> None:
    asking = bot.ask(
        {
            "id": "multi",
            "question": "Pick",
            "multi_select": True,
            "options": [{"label": label} for label in TRICKY],
        }
    )
    message = await bot.posted()
    alice = bot.emu.person(ALICE)
    await alice.check(message, block_id="multi", values=["3", "0", "1", "2"])
    await alice.click(message, text="Submit")
    assert (await asking).answers[0].selected == TRICKY


async def test_agent_text_cannot_ping_mention_or_disguise_links(bot: Bot) -> None:
    hostile = "<!channel> <!here> <@U0ALICE001> <https://evil.example|your bank> & more"
    bot.ask(
        {
            "id": "q",
            "question": hostile,
            "header": hostile,
            "detail": hostile,
            "options": [{"label": "ok", "description": hostile}],
        }
    )
    message = await bot.posted()
    posted = json.dumps(message.blocks)
    for raw in ("<!channel>", "<!here>", "<@U0ALICE001>", "<https://evil.example|your bank>"):
        assert raw not in posted
    assert "&lt;!channel&gt; &lt;!here&gt; &lt;@U0ALICE001&gt;" in posted
    assert "&amp; more" in posted
    assert "<!channel>" not in message.text


async def test_the_answered_message_escapes_the_answer_too(bot: Bot) -> None:
    asking = bot.ask({"id": "q", "question": "Name?"})
    message = await bot.posted()
    alice = bot.emu.person(ALICE)
    await alice.type(message, block_id="q", text="<!channel> & co")
    await alice.click(message, text="Submit")
    assert (await asking).answers[0].custom == "<!channel> & co"
    await bot.idle()
    updated = json.dumps(bot.now(message).blocks)
    assert "<!channel>" not in updated
    assert "&lt;!channel&gt; &amp; co" in updated


async def test_a_long_detail_is_previewed_and_all_of_it_is_reachable(bot: Bot) -> None:
    detail = "\n".join(f"line {i}: " + "x" * 90 for i in range(300))  # ~30,000 characters
    asking = bot.ask(
        {"id": "q", "question": "Approve?", "detail": detail, "options": [{"label": "Yes"}]}
    )
    message = await bot.posted()
    assert "line 299" not in json.dumps(message.blocks)
    await bot.emu.person(ALICE).click(message, text="View all")
    await bot.idle()
    [details] = bot.emu.views(ALICE)
    shown = "".join(b["text"]["text"] for b in details.blocks if b["type"] == "section")
    assert all(f"line {i}: " + "x" * 90 in shown for i in range(300))
    asking.cancel()


async def test_other_opens_a_modal_whose_text_is_the_answer(bot: Bot) -> None:
    asking = bot.ask({"id": "db", "question": "Which?", "options": [{"label": "Postgres"}]})
    message = await bot.posted()
    alice = bot.emu.person(ALICE)
    await alice.click(message, text="Other…")
    await bot.idle()
    [modal] = bot.emu.views(ALICE)
    await alice.type(modal, block_id="db", text="  Spanner  ")
    await alice.submit(bot.emu.views(ALICE)[0])
    assert (await asking).to_wire() == {
        "answers": [{"id": "db", "selected": [], "custom": "Spanner"}]
    }


async def test_a_blank_other_answer_is_an_error_in_the_modal(bot: Bot) -> None:
    asking = bot.ask({"id": "db", "question": "Which?", "options": [{"label": "Postgres"}]})
    message = await bot.posted()
    alice = bot.emu.person(ALICE)
    await alice.click(message, text="Other…")
    await bot.idle()
    await alice.type(bot.emu.views(ALICE)[0], block_id="db", text="   ")
    delivery = await alice.submit(bot.emu.views(ALICE)[0])
    assert delivery.ack == {"response_action": "errors", "errors": {"db": "Type an answer."}}
    assert not asking.done()
    asking.cancel()


async def test_a_lone_surrogate_is_refused_before_the_store_or_slack(
    emu: SlackEmulator, tmp_path: Path
) -> None:
    args = '{"questions":[{"id":"6","question":"a","options":[{"label":"a","description":"\\udfff"}]}]}'
    async with (
        SqliteStore(tmp_path / "asks.db") as store,
        running_bot(emu, store=store) as bot,
    ):
        result = await ask_user_question_tool(bot.service).execute(args)
        assert result.error == ToolError(name="ToolInputError", code="INVALID_ARGUMENTS")
        assert "questions.0.options.0.description: Value error, contains U+DFFF" in result.content
        assert await store.recent() == []
    assert emu.calls_to("chat.postMessage") == []
