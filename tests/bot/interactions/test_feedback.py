"""Review that teaches: "Was this the right call?" on a decided ask — Slack's feedback
buttons and a note on its message, the same from the team view, stored per person and shown
as a tally (`bot/interactions/feedback.py`)."""

from __future__ import annotations

from typing import Any

from bot.interactions.feedback import BLANK_NOTE
from bot.slack.responders import ANYONE
from bot.store import Feedback, FeedbackVerdict, MemoryStore
from slack_emulator import ApiError, SlackEmulator
from slack_emulator.slack_objects import Message

from ..harness import ALICE, BOB, CAROL, CHANNEL, Bot, running_bot

RIGHT, WRONG = FeedbackVerdict.RIGHT, FeedbackVerdict.WRONG
DB = {
    "id": "db",
    "question": "Which database?",
    "options": [{"label": "Postgres"}, {"label": "SQLite"}],
}


async def decided(bot: Bot) -> tuple[Message, str]:
    """An ask answered by alice: its message as updated, and its id."""
    asking = bot.ask(DB)
    message = await bot.posted()
    await bot.emu.person(ALICE).click(message, text="SQLite")
    await asking
    await bot.idle()
    [ask] = await bot.provider.store.recent(limit=1)
    return bot.now(message), ask.id


def last_two(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in b.items() if k != "block_id"} for b in blocks[-2:]]


async def feedback_of(bot: Bot, ask_id: str) -> list[Feedback]:
    return await bot.provider.store.feedback([ask_id])


async def test_a_decided_message_ends_with_the_question_and_slacks_feedback_buttons(
    bot: Bot,
) -> None:
    message, ask_id = await decided(bot)
    assert last_two(message.blocks) == [
        {
            "type": "section",
            "text": {"type": "mrkdwn", "text": "_Was this the right call?_", "verbatim": True},
            "accessory": {
                "type": "button",
                "action_id": "sq_note",
                "text": {"type": "plain_text", "text": "Add a note", "emoji": True},
                "value": f"{ask_id}/0",
            },
        },
        {
            "type": "context_actions",
            "elements": [
                {
                    "type": "feedback_buttons",
                    "action_id": "sq_feedback",
                    "positive_button": {
                        "text": {"type": "plain_text", "text": "👍", "emoji": True},
                        "accessibility_label": "Yes, this was the right call",
                        "value": f"{ask_id}/1",
                    },
                    "negative_button": {
                        "text": {"type": "plain_text", "text": "👎", "emoji": True},
                        "accessibility_label": "No, this was the wrong call",
                        "value": f"{ask_id}/2",
                    },
                }
            ],
        },
    ]


async def test_a_thumbs_up_is_stored_with_who_gave_it_and_when(bot: Bot) -> None:
    message, ask_id = await decided(bot)
    delivery = await bot.emu.person(BOB).give_feedback(message, positive=True)
    await bot.idle()
    assert delivery.payload["actions"][0]["value"] == f"{ask_id}/1"
    [given] = await feedback_of(bot, ask_id)
    assert (given.person, given.verdict, given.note) == (BOB, RIGHT, None)


async def test_a_second_click_changes_the_persons_verdict(bot: Bot) -> None:
    message, ask_id = await decided(bot)
    await bot.emu.person(BOB).give_feedback(message, positive=True)
    await bot.idle()
    await bot.emu.person(BOB).give_feedback(message, positive=False)
    await bot.idle()
    assert [(f.person, f.verdict) for f in await feedback_of(bot, ask_id)] == [(BOB, WRONG)]
    assert bot.emu.ephemerals(BOB) == []


async def test_add_a_note_opens_a_small_modal_and_the_note_keeps_the_verdict(bot: Bot) -> None:
    message, ask_id = await decided(bot)
    bob = bot.emu.person(BOB)
    await bob.give_feedback(message, positive=False)
    await bot.idle()
    await bob.click(message, text="Add a note")
    await bot.emu.wait_for_call("views.open")
    [modal] = bot.emu.views(BOB)
    assert modal.callback_id == "sq_note"
    await bob.type(modal, block_id="sq~note", text="  should have asked security \n")
    delivery = await bob.submit(modal)
    await bot.idle()
    assert delivery.ack is None or "errors" not in delivery.ack
    [given] = await feedback_of(bot, ask_id)
    assert (given.verdict, given.note) == (WRONG, "should have asked security")


async def test_a_blank_note_is_refused_in_the_modal_and_nothing_is_stored(bot: Bot) -> None:
    message, ask_id = await decided(bot)
    bob = bot.emu.person(BOB)
    await bob.click(message, text="Add a note")
    await bot.emu.wait_for_call("views.open")
    [modal] = bot.emu.views(BOB)
    await bob.type(modal, block_id="sq~note", text="   ")
    delivery = await bob.submit(modal)
    assert delivery.ack == {"response_action": "errors", "errors": {"sq~note": BLANK_NOTE}}
    await bot.idle()
    assert await feedback_of(bot, ask_id) == []


async def test_the_team_view_shows_the_tally_and_the_latest_note(bot: Bot) -> None:
    message, _ = await decided(bot)
    await bot.emu.person(ALICE).give_feedback(message, positive=True)
    await bot.emu.person(BOB).give_feedback(message, positive=True)
    await bot.emu.person(CAROL).give_feedback(message, positive=False)
    await bot.idle()
    await bot.emu.person(CAROL).click(message, text="Add a note")
    await bot.emu.wait_for_call("views.open")
    [modal] = bot.emu.views(CAROL)
    await bot.emu.person(CAROL).type(modal, block_id="sq~note", text="should have asked security")
    await bot.emu.person(CAROL).submit(modal)
    await bot.idle()
    await bot.emu.person(BOB).open_home()
    await bot.emu.wait_for(lambda: _home_text(bot.emu, BOB) != "", what="the Home tab")
    await bot.idle()
    assert "\n👍 2 · 👎 1 — “should have asked security”" in _home_text(bot.emu, BOB)


async def test_feedback_from_the_home_tab_is_stored_and_the_tab_redrawn(bot: Bot) -> None:
    _, ask_id = await decided(bot)
    bob = bot.emu.person(BOB)
    await bob.open_home()
    await bot.emu.wait_for_call("views.publish")
    await bot.idle()
    home = bot.emu.home(BOB)
    assert home is not None
    await bob.select(home, action_id="sq_feedback_menu", value=f"{ask_id}/2")
    await bot.emu.wait_for_call("views.publish", count=2)
    await bot.idle()
    assert [(f.person, f.verdict) for f in await feedback_of(bot, ask_id)] == [(BOB, WRONG)]
    assert "\n👍 0 · 👎 1" in _home_text(bot.emu, BOB)


async def test_who_may_not_see_the_ask_is_told_why_and_nothing_is_stored(
    emu: SlackEmulator,
) -> None:
    store = MemoryStore()
    async with running_bot(emu, store=store, responders=[ALICE]) as bot:
        message, ask_id = await decided(bot)
        # The channel's members cannot be read: only those who may answer may review (fail closed).
        emu.inject("conversations.members", ApiError("missing_scope"), times=None)
        await emu.person(CAROL).give_feedback(message, positive=True)
        await bot.idle()
        assert [e.text for e in emu.ephemerals(CAROL)] == [
            "Only people who may see this ask can say whether it was the right call: "
            f"members of <#{CHANNEL}>, and those who may answer or review it. Nothing was recorded."
        ]
        assert await store.feedback([ask_id]) == []


async def test_a_withdrawn_ask_offers_no_feedback(emu: SlackEmulator) -> None:
    async with running_bot(emu, responders=ANYONE) as bot:
        asking = bot.ask(DB)
        message = await bot.posted()
        asking.cancel()
        await bot.emu.wait_for_call("chat.update")
        await bot.idle()
        types = [b["type"] for b in bot.now(message).blocks]
        assert "context_actions" not in types


def _home_text(emu: SlackEmulator, user: str) -> str:
    home = emu.home(user)
    if home is None:
        return ""
    return "\n".join(
        str(b["text"]["text"]) for b in home.blocks if b["type"] == "section" and "text" in b
    )
