"""A batch of questions answered in the message, and in the form modal."""

from __future__ import annotations

import pytest

from provider import ErrorCode, UserQuestionError
from slack_emulator import RateLimited

from ..harness import ALICE, BOB, Bot

DB = {
    "id": "db",
    "question": "Which database?",
    "options": [{"label": "Postgres", "description": "server"}, {"label": "SQLite"}],
}
LANGS = {
    "id": "langs",
    "question": "Which languages?",
    "multi_select": True,
    "options": [{"label": "Go"}, {"label": "Rust"}, {"label": "Zig"}],
}
NAME = {"id": "name", "question": "Name the service"}


def other(index: int) -> str:
    return f"sq~o.{index}"


def skip(index: int) -> str:
    return f"sq~s.{index}"


async def test_each_question_is_an_input_block_whose_id_is_the_question_id(bot: Bot) -> None:
    bot.ask(DB, LANGS, NAME)
    message = await bot.posted()
    inputs = {b["block_id"]: b["element"]["type"] for b in message.blocks if b["type"] == "input"}
    assert {qid: inputs[qid] for qid in ("db", "langs", "name")} == {
        "db": "radio_buttons",
        "langs": "checkboxes",
        "name": "plain_text_input",
    }


async def test_a_batch_answered_in_the_message_comes_back_in_request_order(bot: Bot) -> None:
    asking = bot.ask(DB, LANGS, NAME)
    message = await bot.posted()
    alice = bot.emu.person(ALICE)
    await alice.type(message, block_id="name", text="  billing-api \n")
    await alice.check(message, block_id="langs", values=["2", "0"])
    await alice.choose(message, block_id="db", value="1")
    await alice.click(message, text="Submit")
    answer = await asking
    assert answer.to_wire() == {
        "answers": [
            {"id": "db", "selected": ["SQLite"]},
            {"id": "langs", "selected": ["Go", "Zig"]},
            {"id": "name", "selected": [], "custom": "billing-api"},
        ]
    }


async def test_a_skipped_question_is_an_empty_selection(bot: Bot) -> None:
    asking = bot.ask(DB, LANGS, NAME)
    message = await bot.posted()
    alice = bot.emu.person(ALICE)
    await alice.choose(message, block_id="db", value="0")
    await alice.check(message, block_id=skip(1), values=["skip"])
    await alice.check(message, block_id=skip(2), values=["skip"])
    await alice.click(message, text="Submit")
    answer = await asking
    assert answer.to_wire() == {
        "answers": [
            {"id": "db", "selected": ["Postgres"]},
            {"id": "langs", "selected": []},
            {"id": "name", "selected": []},
        ]
    }


async def test_multi_select_with_other_returns_both(bot: Bot) -> None:
    asking = bot.ask(DB, LANGS)
    message = await bot.posted()
    alice = bot.emu.person(ALICE)
    await alice.check(message, block_id=skip(0), values=["skip"])
    await alice.check(message, block_id="langs", values=["1"])
    await alice.type(message, block_id=other(1), text="OCaml")
    await alice.click(message, text="Submit")
    answer = await asking
    assert answer.answers[1].to_wire() == {"id": "langs", "selected": ["Rust"], "custom": "OCaml"}


async def test_single_select_with_other_returns_custom_and_no_selection(bot: Bot) -> None:
    asking = bot.ask(DB, NAME)
    message = await bot.posted()
    alice = bot.emu.person(ALICE)
    await alice.choose(message, block_id="db", value="0")
    await alice.type(message, block_id=other(0), text="MySQL")
    await alice.check(message, block_id=skip(1), values=["skip"])
    await alice.click(message, text="Submit")
    answer = await asking
    assert answer.answers[0].to_wire() == {"id": "db", "selected": [], "custom": "MySQL"}


async def test_submit_with_a_missing_answer_tells_the_person_and_keeps_the_ask_open(
    bot: Bot,
) -> None:
    asking = bot.ask(DB, NAME)
    message = await bot.posted()
    alice = bot.emu.person(ALICE)
    await alice.choose(message, block_id="db", value="0")
    await alice.click(message, text="Submit")
    await bot.idle()
    assert [e.text for e in bot.emu.ephemerals(ALICE)] == [
        "Nothing was sent yet; please finish these first:\n"
        "• *Name the service* — Type an answer, or skip this question."
    ]
    assert not asking.done()
    await alice.type(message, block_id="name", text="svc")
    await alice.click(message, text="Submit")
    assert (await asking).answers[1].custom == "svc"


async def test_choosing_skip_and_answering_is_refused(bot: Bot) -> None:
    asking = bot.ask(DB, NAME)
    message = await bot.posted()
    alice = bot.emu.person(ALICE)
    await alice.choose(message, block_id="db", value="0")
    await alice.check(message, block_id=skip(0), values=["skip"])
    await alice.type(message, block_id="name", text="svc")
    await alice.click(message, text="Submit")
    await bot.idle()
    assert "You chose Skip and also answered; keep one." in bot.emu.ephemerals(ALICE)[0].text
    assert not asking.done()
    asking.cancel()


# --- the same batch in the form modal -----------------------------------------------------


async def test_a_batch_answered_in_the_modal_comes_back_in_request_order(bot: Bot) -> None:
    asking = bot.ask(DB, LANGS, NAME)
    message = await bot.posted()
    alice = bot.emu.person(ALICE)
    await alice.click(message, text="Answer in a form")
    await bot.idle()
    [form] = bot.emu.views(ALICE)
    assert [b["block_id"] for b in form.blocks if b["block_id"] in ("db", "langs", "name")] == [
        "db",
        "langs",
        "name",
    ]
    await alice.choose(form, block_id="db", value="0")
    await alice.type(form, block_id=other(0), text="CockroachDB")
    await alice.check(form, block_id="langs", values=["0", "1"])
    await alice.type(form, block_id=other(1), text="C")
    await alice.check(form, block_id=skip(2), values=["skip"])
    delivery = await alice.submit(bot.emu.views(ALICE)[0])
    assert delivery.ack in (None, {})
    answer = await asking
    assert answer.to_wire() == {
        "answers": [
            {"id": "db", "selected": [], "custom": "CockroachDB"},
            {"id": "langs", "selected": ["Go", "Rust"], "custom": "C"},
            {"id": "name", "selected": []},
        ]
    }
    assert bot.emu.views(ALICE) == []


async def test_a_missing_answer_in_the_modal_is_an_error_under_that_question(bot: Bot) -> None:
    asking = bot.ask(DB, NAME)
    message = await bot.posted()
    alice = bot.emu.person(ALICE)
    await alice.click(message, text="Answer in a form")
    await bot.idle()
    form = bot.emu.views(ALICE)[0]
    await alice.type(form, block_id="name", text="svc")
    delivery = await alice.submit(bot.emu.views(ALICE)[0])
    assert delivery.ack == {
        "response_action": "errors",
        "errors": {"db": "Choose an answer, type one under Other, or skip this question."},
    }
    assert len(bot.emu.views(ALICE)) == 1  # the form stays open
    assert not asking.done()
    asking.cancel()


async def test_closing_the_modal_is_ask_aborted(bot: Bot) -> None:
    asking = bot.ask(DB, NAME)
    message = await bot.posted()
    alice = bot.emu.person(ALICE)
    await alice.click(message, text="Answer in a form")
    await bot.idle()
    delivery = await alice.close(bot.emu.views(ALICE)[0])
    assert delivery is not None
    assert delivery.kind == "view_closed"
    with pytest.raises(UserQuestionError) as caught:
        await asking
    assert caught.value.code is ErrorCode.ASK_ABORTED
    await bot.idle()
    footer = str(bot.now(message).blocks[-1])
    assert f"<@{ALICE}> closed the form" in footer


async def test_a_late_part_update_never_lands_over_the_final_outcome(bot: Bot) -> None:
    questions = [
        {"id": f"q{i}", "question": f"Question {i}?", "options": [{"label": "A"}, {"label": "B"}]}
        for i in range(17)
    ]
    asking = bot.ask(*questions)  # 16 questions in part 1, 1 in part 2
    first, second = await bot.posted(1), await bot.posted(2)
    alice, bob = bot.emu.person(ALICE), bot.emu.person(BOB)
    for i in range(16):
        await alice.choose(first, block_id=f"q{i}", value="0")
    # Slack rate-limits part 1's "answered" update once; its channel's lane waits, then retries.
    bot.emu.inject("chat.update", RateLimited(retry_after=1))
    await alice.click(first, text="Submit")
    await bot.emu.wait_for(
        lambda: any(c.method == "chat.update" and c.status == 429 for c in bot.emu.calls),
        what="the rate-limited update",
    )
    await bob.choose(second, block_id="q16", value="1")
    await bob.click(second, text="Submit")
    assert len((await asking).answers) == 17
    await bot.idle()
    shown = str(bot.now(first).blocks)
    assert f"Answered by <@{BOB}>" in shown
    assert "waiting for the rest" not in shown


async def test_what_was_put_in_the_message_is_carried_into_the_form(bot: Bot) -> None:
    # Issue 23, finding 7: boxes ticked in the message were lost on "Answer in a form".
    asking = bot.ask(DB, LANGS, NAME)
    message = await bot.posted()
    alice = bot.emu.person(ALICE)
    await alice.check(message, block_id="langs", values=["2", "0"])
    await alice.choose(message, block_id="db", value="1")
    await alice.type(message, block_id="name", text="billing-api")
    await alice.click(message, text="Answer in a form")
    await bot.idle()
    [form] = bot.emu.views(ALICE)
    inputs = {b["block_id"]: b["element"] for b in form.blocks if b["type"] == "input"}
    assert [o["value"] for o in inputs["langs"]["initial_options"]] == ["0", "2"]
    assert inputs["db"]["initial_option"]["value"] == "1"
    assert inputs["name"]["initial_value"] == "billing-api"
    await alice.submit(form)
    answer = await asking
    assert answer.to_wire() == {
        "answers": [
            {"id": "db", "selected": ["SQLite"]},
            {"id": "langs", "selected": ["Go", "Zig"]},
            {"id": "name", "selected": [], "custom": "billing-api"},
        ]
    }
