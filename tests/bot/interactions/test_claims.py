"""Claim, Release and Reassign… on an ask sent to a pool, through real clicks on the
emulator: who holds it is shown on the message and said once in the thread, everyone else is
refused by name, and only who may answer may claim or hand it on."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest

from bot.review import ReviewPolicies, ReviewPolicy
from bot.store import AskRecord, AskState, EventKind
from provider import Agent, AskUserQuestionAnswer, ErrorCode, UserQuestionError
from slack_emulator import ManualClock, Message, SlackEmulator

from ..harness import ALICE, BOB, CAROL, REVIEWERS, Bot, running_bot

START = 1_800_000_000.0
LAPSE = 1800.0
QUESTION = {
    "id": "db",
    "question": "Which database?",
    "options": [{"label": "Postgres"}, {"label": "SQLite"}],
}
PUSH = {
    "id": "tool",
    "question": "May I run this command?",
    "options": [{"label": "Allow"}, {"label": "Deny"}],
    "intent": {
        "kind": "tool-approval",
        "allow": "Allow",
        "tool": "Bash",
        "input": {"command": "git push origin main"},
    },
}
PLAN = {
    "id": "plan",
    "question": "May I carry out this plan?",
    "detail": "# Plan\n\nDo it.",
    "options": [{"label": "Revise it"}, {"label": "Approve"}],
    "intent": {"kind": "plan-review", "approve": "Approve"},
}
POOL = ReviewPolicy(reviewers=(REVIEWERS,), claim_lapse=LAPSE)
HELD_BY_ALICE = (
    f"🙋 <@{ALICE}> has claimed this question: only they may answer it now, so nothing changed."
)
UNTIL = "<!date^1800001800^{date_short_pretty} at {time}|2027-01-15 08:30 UTC>"


@pytest.fixture
async def pool(emu: SlackEmulator) -> AsyncIterator[Bot]:
    """A bot whose asks go to the reviewers group (alice, bob) and offer claims."""
    clock = ManualClock(start=START)
    async with running_bot(emu, review=ReviewPolicies(default=POOL), clock=clock) as running:
        yield running


def block(message: Message, block_id: str) -> dict[str, Any] | None:
    found = [b for b in message.blocks if b.get("block_id") == block_id]
    return found[0] if found else None


def buttons(message: Message) -> list[str]:
    """The labels of the claim controls."""
    controls = block(message, "sq~claim")
    return [] if controls is None else [e["text"]["text"] for e in controls["elements"]]


def holder_line(message: Message) -> str | None:
    held = block(message, "sq~held")
    return None if held is None else str(held["elements"][0]["text"])


def thread_lines(emu: SlackEmulator, message: Message) -> list[str]:
    """The bot's replies under the ask, oldest first."""
    root = message.thread_ts or message.ts
    return [m.text for m in emu.thread(message.channel, root) if m.ts not in (message.ts, root)]


async def click(bot: Bot, message: Message, user: str, text: str) -> None:
    await bot.emu.person(user).click(bot.now(message), text=text)
    await bot.idle()


async def stored(bot: Bot) -> AskRecord:
    [record] = await bot.provider.store.recent()
    return record


async def leave(asking: asyncio.Task[AskUserQuestionAnswer]) -> None:
    """Stop waiting for an ask the test is done with (the agent aborts it)."""
    asking.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await asking


async def withdrawn_at_exit(asking: asyncio.Task[AskUserQuestionAnswer]) -> None:
    with pytest.raises(UserQuestionError) as ended:
        await asking
    assert ended.value.code is ErrorCode.ASK_ABORTED


async def test_an_ask_sent_to_a_pool_offers_claim_and_reassign(pool: Bot) -> None:
    asking = pool.ask(QUESTION)
    message = await pool.posted()
    await leave(asking)
    assert buttons(message) == ["Claim", "Reassign…"]


async def test_an_ask_sent_to_one_person_offers_no_claim(emu: SlackEmulator) -> None:
    alone = ReviewPolicy(reviewers=(ALICE,), claim_lapse=LAPSE)
    async with running_bot(emu, review=ReviewPolicies(default=alone)) as bot:
        asking = bot.ask(QUESTION)
        message = await bot.posted()
    await withdrawn_at_exit(asking)
    assert buttons(message) == []


async def test_a_pool_whose_policy_sets_no_lapse_offers_no_claim(emu: SlackEmulator) -> None:
    unset = ReviewPolicy(reviewers=(REVIEWERS,))
    async with running_bot(emu, review=ReviewPolicies(default=unset)) as bot:
        asking = bot.ask(QUESTION)
        message = await bot.posted()
    await withdrawn_at_exit(asking)
    assert buttons(message) == []


async def test_claiming_shows_the_holder_until_the_lapse_and_says_so_in_the_thread(
    pool: Bot, emu: SlackEmulator
) -> None:
    asking = pool.ask(QUESTION)
    message = await pool.posted()
    await click(pool, message, ALICE, "Claim")
    shown = pool.now(message)
    record = await stored(pool)
    events = [e.kind for e in await pool.provider.store.events(record.id)]
    lines = thread_lines(emu, message)
    await leave(asking)
    assert holder_line(shown) == f"🙋 Claimed by <@{ALICE}> until {UNTIL}"
    assert buttons(shown) == ["Release", "Reassign…"]
    assert (record.holder, record.claimed_at) == (ALICE, START)
    assert events.count(EventKind.CLAIMED) == 1
    assert lines == [f"🙋 <@{ALICE}> claimed this question."]


async def test_someone_elses_answer_is_refused_while_claimed(pool: Bot, emu: SlackEmulator) -> None:
    asking = pool.ask(QUESTION)
    message = await pool.posted()
    await click(pool, message, ALICE, "Claim")
    await click(pool, message, BOB, "Postgres")
    assert [e.text for e in emu.ephemerals(BOB)] == [HELD_BY_ALICE]
    assert (await stored(pool)).state is AskState.PENDING
    await click(pool, message, ALICE, "SQLite")
    answer = await asking
    assert answer.answers[0].selected == ["SQLite"]


async def test_claiming_an_ask_someone_holds_is_refused_naming_them(
    pool: Bot, emu: SlackEmulator
) -> None:
    asking = pool.ask(QUESTION)
    message = await pool.posted()
    await click(pool, message, ALICE, "Claim")
    await emu.person(BOB).click(pool.now(message), action_id="sq_release")
    await pool.idle()
    record = await stored(pool)
    await leave(asking)
    assert [e.text for e in emu.ephemerals(BOB)] == [HELD_BY_ALICE]
    assert record.holder == ALICE


async def test_only_who_may_answer_may_claim(pool: Bot, emu: SlackEmulator) -> None:
    asking = pool.ask(QUESTION)
    message = await pool.posted()
    await click(pool, message, CAROL, "Claim")
    record = await stored(pool)
    events = [e.kind for e in await pool.provider.store.events(record.id)]
    await leave(asking)
    assert [e.text for e in emu.ephemerals(CAROL)] == [
        f"Only <!subteam^{REVIEWERS}> may answer this question, so nothing changed."
    ]
    assert record.holder is None
    assert EventKind.CLAIMED not in events
    assert thread_lines(emu, message) == []


async def test_the_holder_releases_the_ask_back_to_the_pool(pool: Bot, emu: SlackEmulator) -> None:
    asking = pool.ask(QUESTION)
    message = await pool.posted()
    await click(pool, message, ALICE, "Claim")
    await click(pool, message, ALICE, "Release")
    shown = pool.now(message)
    assert buttons(shown) == ["Claim", "Reassign…"]
    assert holder_line(shown) is None
    assert thread_lines(emu, message) == [
        f"🙋 <@{ALICE}> claimed this question.",
        f"<@{ALICE}> released this question: it is back with <!subteam^{REVIEWERS}>.",
    ]
    await click(pool, message, BOB, "Postgres")  # the pool's again: bob may answer
    answer = await asking
    assert answer.answers[0].selected == ["Postgres"]


async def open_reassign(bot: Bot, message: Message, user: str) -> Any:
    await bot.emu.person(user).click(bot.now(message), text="Reassign…")
    await bot.emu.wait_for(lambda: bool(bot.emu.views(user)), what="the Reassign modal")
    [modal] = bot.emu.views(user)
    return modal


async def hand_over(bot: Bot, message: Message, by: str, to: str) -> dict[str, str]:
    """`by` picks `to` in "Reassign…" and submits; the errors the modal then shows (it
    stays open with them; none: it closed)."""
    modal = await open_reassign(bot, message, by)
    person = bot.emu.person(by)
    await person.pick_user(modal, block_id="sq~reassign", user=to)
    await person.submit(modal)
    await bot.idle()
    still_open = bot.emu.views(by)
    return dict(still_open[0].errors or {}) if still_open else {}


async def test_reassign_hands_the_ask_to_the_named_person_who_alone_may_answer(
    pool: Bot, emu: SlackEmulator
) -> None:
    asking = pool.ask(QUESTION)
    message = await pool.posted()
    await click(pool, message, ALICE, "Claim")
    assert await hand_over(pool, message, ALICE, CAROL) == {}  # it closed
    shown = pool.now(message)
    assert thread_lines(emu, message)[-1] == f"↪️ <@{ALICE}> handed this to <@{CAROL}>."
    assert holder_line(shown) == f"🙋 Claimed by <@{CAROL}> until {UNTIL}"
    await click(pool, message, ALICE, "Postgres")  # alice handed it on: she is refused now
    assert [e.text for e in emu.ephemerals(ALICE)] == [
        f"🙋 <@{CAROL}> has claimed this question: only they may answer it now, so nothing changed."
    ]
    await click(pool, message, CAROL, "SQLite")  # no reviewer, but handed it by name
    answer = await asking
    assert answer.answers[0].selected == ["SQLite"]


async def test_the_reassign_modal_is_a_users_select_within_slacks_limits(
    pool: Bot, emu: SlackEmulator
) -> None:
    asking = pool.ask(QUESTION)
    message = await pool.posted()
    modal = await open_reassign(pool, message, BOB)
    await leave(asking)
    [picker] = [b for b in modal.blocks if b["type"] == "input"]
    assert (picker["block_id"], picker["element"]["type"]) == ("sq~reassign", "users_select")
    assert emu.violations == []


async def test_an_ask_is_not_handed_to_a_bot_and_the_giver_is_told(
    pool: Bot, emu: SlackEmulator
) -> None:
    asking = pool.ask(QUESTION)
    message = await pool.posted()
    errors = await hand_over(pool, message, BOB, emu.bot_user_id)
    record = await stored(pool)
    await leave(asking)
    assert errors == {}  # a bot is told apart only after the ack, by users.info
    assert [e.text for e in emu.ephemerals(BOB)] == [
        "They are not a person who can answer. It was not handed to "
        f"<@{emu.bot_user_id}>, so nothing changed."
    ]
    assert record.holder is None
    assert thread_lines(emu, message) == []


async def test_the_modal_refuses_handing_a_tool_approval_to_its_requester_who_may_not_approve(
    pool: Bot, emu: SlackEmulator
) -> None:
    agent = Agent("dev/session-1", name="Alice's agent", requester=ALICE)
    pool.agents.enter(agent)
    asking = pool.ask(PUSH, agent=agent)
    message = await pool.posted()
    errors = await hand_over(pool, message, BOB, ALICE)
    record = await stored(pool)
    await leave(asking)
    assert errors == {
        "sq~reassign": "The agent acts for them, and its policy does not let them approve "
        "this tool approval."
    }
    assert emu.ephemerals(BOB) == []
    assert record.holder is None


async def test_the_team_view_shows_who_holds_a_waiting_ask(pool: Bot, emu: SlackEmulator) -> None:
    asking = pool.ask(QUESTION)
    message = await pool.posted()
    await click(pool, message, ALICE, "Claim")
    await emu.person(ALICE).command("/agent-questions")
    await emu.wait_for(lambda: bool(emu.ephemerals(ALICE)), what="the team view")
    [listed] = emu.ephemerals(ALICE)
    await leave(asking)
    waiting = str(listed.blocks[1]["text"]["text"])
    assert waiting.split("\n")[-1] == (
        f"🙋 Claimed by <@{ALICE}> since "
        "<!date^1800000000^{date_short_pretty} at {time}|2027-01-15 08:00 UTC>"
    )


async def test_the_modal_refuses_handing_an_unclaimed_ask_to_yourself_pointing_to_claim(
    pool: Bot, emu: SlackEmulator
) -> None:
    asking = pool.ask(QUESTION)
    message = await pool.posted()
    errors = await hand_over(pool, message, BOB, BOB)
    record = await stored(pool)
    await leave(asking)
    assert errors == {"sq~reassign": "To take this question yourself, press Claim."}
    assert record.holder is None


async def test_the_requester_of_a_tool_approval_who_may_not_approve_it_cannot_claim_it(
    pool: Bot, emu: SlackEmulator
) -> None:
    agent = Agent("dev/session-1", name="Alice's agent", requester=ALICE)
    pool.agents.enter(agent)
    asking = pool.ask(PUSH, agent=agent)
    message = await pool.posted()
    await click(pool, message, ALICE, "Claim")
    record = await stored(pool)
    await leave(asking)
    assert [e.text for e in emu.ephemerals(ALICE)] == [
        "You are who the agent acts for, and its policy does not let you approve this tool "
        "approval: you cannot claim it, so nothing changed."
    ]
    assert record.holder is None


async def test_a_claimed_plan_review_refuses_another_reviewers_approval(
    pool: Bot, emu: SlackEmulator
) -> None:
    asking = pool.ask(PLAN)
    message = await pool.posted()
    assert buttons(message) == ["Claim", "Reassign…"]
    await click(pool, message, BOB, "Claim")
    await click(pool, message, ALICE, "Approve")
    record = await stored(pool)
    await leave(asking)
    assert [e.text for e in emu.ephemerals(ALICE)] == [
        f"🙋 <@{BOB}> has claimed this plan: only they may answer it now, so nothing changed."
    ]
    assert (record.state, record.approvals) == (AskState.PENDING, [])
