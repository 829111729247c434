"""SLA ladders on the emulator with a manual clock: remind, escalate, expire — each line once,
in order, across two replicas —, escalation widening who may answer, working hours moving the
steps, the message's time left, and an expiry that is never an approval."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot import SlackQuestionProvider, SlackSettings
from bot.review import ReviewPolicies, ReviewPolicy
from bot.store import AskState, EventKind, Verdict
from bot.store.sqlite import SqliteStore
from provider import (
    AgentRegistry,
    AskUserQuestionAnswer,
    ErrorCode,
    UserQuestionError,
    UserQuestionService,
)
from provider.errors import ABORTED_MESSAGE
from slack_emulator import ManualClock, Message, SlackEmulator, Slow

from ..harness import ALICE, BOB, CAROL, CHANNEL, SECRET, TOKEN, Bot, request, running_bot

BACKUP = "S0BACKUP01"  # carol
QUESTION = {
    "id": "db",
    "question": "Which database?",
    "options": [{"label": "Postgres"}, {"label": "SQLite"}],
}
TOOL = {
    "id": "tool",
    "question": "May I run this?",
    "detail": "rm -rf build",
    "options": [{"label": "Allow"}, {"label": "Deny"}],
    "intent": {"kind": "tool-approval", "allow": "Allow", "tool": "Bash"},
}
LADDER = ReviewPolicy(
    reviewers=(ALICE,),
    remind_after=900,
    escalate_after=3600,
    escalate_to=(BACKUP,),
    expire_after=14400,
)


@pytest.fixture(autouse=True)
def backup_group(emu: SlackEmulator) -> None:
    emu.workspace.add_usergroup(BACKUP, handle="backup", users=[CAROL])


def thread_lines(emu: SlackEmulator, message: Message) -> list[str]:
    """The bot's replies in the ask's thread (under the ask itself when it has no agent's
    thread), oldest first."""
    root = message.thread_ts or message.ts
    return [m.text for m in emu.thread(message.channel, root) if m.ts not in (message.ts, root)]


def sla_line(message: Message) -> str:
    [block] = [b for b in message.blocks if b.get("block_id") == "sla"]
    return str(block["elements"][0]["text"])


async def withdrawn_at_exit(asking: asyncio.Task[AskUserQuestionAnswer]) -> None:
    """A pending ask the test left: the bot's shutdown withdrew it."""
    with pytest.raises(UserQuestionError) as ended:
        await asking
    assert ended.value.code is ErrorCode.ASK_ABORTED


def escalated(message: Message) -> bool:
    """Whether the message shows its escalation taken (its next step is the expiry)."""
    return sla_line(message).startswith(":hourglass_flowing_sand: Expires")


@asynccontextmanager
async def replica(
    emu: SlackEmulator, db: Path, name: str, clock: ManualClock, policies: ReviewPolicies
) -> AsyncIterator[tuple[SlackQuestionProvider, UserQuestionService]]:
    """A provider sharing the SQLite file `db` with the other replicas (no Bolt server:
    these tests need no clicks)."""
    settings = SlackSettings(
        bot_token=TOKEN,
        signing_secret=SECRET,
        channel=CHANNEL,
        responders="*",
        api_url=emu.api_url,
        review=policies,
    )
    async with SqliteStore(db) as store:
        provider = await SlackQuestionProvider.start(
            settings, store=store, clock=clock, shared=True, replica=name
        )
        service = UserQuestionService(AgentRegistry())
        dispose = provider.register(service)
        try:
            yield provider, service
        finally:
            dispose()
            await provider.close()


async def test_remind_escalate_expire_come_in_order_each_once_across_two_replicas(
    emu: SlackEmulator, tmp_path: Path
) -> None:
    clock = ManualClock()
    policies = ReviewPolicies(default=LADDER)
    async with AsyncExitStack() as stack:
        a, asking_service = await stack.enter_async_context(
            replica(emu, tmp_path / "asks.db", "a", clock, policies)
        )
        b, _ = await stack.enter_async_context(
            replica(emu, tmp_path / "asks.db", "b", clock, policies)
        )
        asking = asyncio.create_task(asking_service.ask(request(QUESTION)))
        await emu.wait_for(lambda: bool(emu.calls_to("chat.postMessage")), what="the ask")
        await clock.sleeping()  # a's ladder
        await a.idle()
        await b.posting.sweep()  # b takes the posted ask in hand: its ladder runs too
        await clock.sleeping(2)
        for step in (900, 2700, 10800):
            clock.advance(step)
            await a.idle()
            await b.idle()
            if step != 10800:
                await clock.sleeping(2)
        with pytest.raises(UserQuestionError) as ended:
            await asking
        await a.deadlines.finished()
        await b.deadlines.finished()
        [record] = await a.store.recent()
        events = [e.kind for e in await a.store.events(record.id)]
        message = emu.message(CHANNEL, record.message_ts[0])
        lines = thread_lines(emu, message)
    assert lines == [
        f"<@{ALICE}>: this question has waited 15 min for an answer.",
        f"<!subteam^{BACKUP}>: nobody answered this question in 1 h, so you are asked too now "
        f"(with <@{ALICE}>). Answer it above.",
        "Nobody answered this question within 4 h: it expired, and the agent was told that "
        "nobody answered.",
    ]
    assert events.count(EventKind.REMINDED) == 1
    assert events.count(EventKind.ESCALATED) == 1
    assert events.count(EventKind.EXPIRED) == 1
    assert ended.value.code is ErrorCode.ASK_ABORTED
    assert ended.value.message == f"{ABORTED_MESSAGE}: nobody answered: it expired after 4 h"


async def click_and_read(bot: Bot, message: Message, user: str) -> None:
    await bot.emu.person(user).click(bot.now(message), text="Postgres")
    await bot.idle()


async def test_an_escalated_ask_is_answerable_by_the_backup_and_not_before(
    emu: SlackEmulator,
) -> None:
    clock = ManualClock()
    policies = ReviewPolicies(default=LADDER)
    async with running_bot(emu, review=policies, clock=clock) as bot:
        asking = bot.ask(QUESTION)
        message = await bot.posted()
        await clock.sleeping()
        await click_and_read(bot, message, CAROL)  # before the escalation: refused
        assert [e.text for e in emu.ephemerals(CAROL)] == [
            f"Only <@{ALICE}> may answer this question, so nothing changed."
        ]
        clock.advance(3600)  # reminded, then escalated
        await bot.idle()
        await emu.wait_for(lambda: escalated(bot.now(message)), what="the escalation saved")
        await click_and_read(bot, message, CAROL)
        answer = await asking
    assert answer.answers[0].selected == ["Postgres"]
    assert len(emu.ephemerals(CAROL)) == 1


async def test_escalation_does_not_widen_who_may_answer_to_others(emu: SlackEmulator) -> None:
    clock = ManualClock()
    async with running_bot(emu, review=ReviewPolicies(default=LADDER), clock=clock) as bot:
        asking = bot.ask(QUESTION)
        message = await bot.posted()
        await clock.sleeping()
        clock.advance(3600)
        await bot.idle()
        await emu.wait_for(lambda: escalated(bot.now(message)), what="the escalation saved")
        await click_and_read(bot, message, BOB)
        [record] = await bot.provider.store.recent()
    await withdrawn_at_exit(asking)
    assert record.state is AskState.PENDING
    assert [e.text for e in emu.ephemerals(BOB)] == [
        f"Only <@{ALICE}>, <!subteam^{BACKUP}> may answer this question, so nothing changed."
    ]


def at_paris(text: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=ZoneInfo("Europe/Paris")).timestamp()


async def test_working_hours_move_the_reminder_past_the_weekend(emu: SlackEmulator) -> None:
    clock = ManualClock(start=at_paris("2026-12-04T17:30"))  # a Friday, after hours
    hours = {"time_zone": "Europe/Paris", "start": "09:00", "end": "17:00"}
    policy = ReviewPolicy.model_validate({"remind_after": "1h", "working_hours": hours})
    async with running_bot(emu, review=ReviewPolicies(default=policy), clock=clock) as bot:
        asking = bot.ask(QUESTION)
        message = await bot.posted()
        await clock.sleeping()
        clock.advance(at_paris("2026-12-07T09:59") - clock.now())  # Monday, 59 working minutes
        await bot.idle()
        assert thread_lines(emu, message) == []
        clock.advance(60)
        await emu.wait_for(lambda: thread_lines(emu, message) != [], what="the reminder")
        lines = thread_lines(emu, message)
    await withdrawn_at_exit(asking)
    assert lines == ["This question has waited 1 h for an answer."]


async def test_the_message_shows_the_next_step_in_each_readers_local_time(
    emu: SlackEmulator,
) -> None:
    clock = ManualClock(start=1_800_000_000.0)
    async with running_bot(emu, review=ReviewPolicies(default=LADDER), clock=clock) as bot:
        asking = bot.ask(QUESTION)
        message = await bot.posted()
    await withdrawn_at_exit(asking)
    assert sla_line(message) == (
        ":hourglass_flowing_sand: Reminder "
        "<!date^1800000900^{date_short_pretty} at {time}|2027-01-15 08:15 UTC> · "
        "Expires unanswered "
        "<!date^1800014400^{date_short_pretty} at {time}|2027-01-15 12:00 UTC>"
    )


async def test_an_expired_tool_approval_is_never_an_approval(emu: SlackEmulator) -> None:
    clock = ManualClock()
    policy = ReviewPolicy(reviewers=(ALICE,), expire_after=600)
    async with running_bot(emu, review=ReviewPolicies(default=policy), clock=clock) as bot:
        asking = bot.ask(TOOL)
        message = await bot.posted()
        await clock.sleeping()
        clock.advance(600)
        with pytest.raises(UserQuestionError) as ended:
            await asking
        await bot.idle()
        [record] = await bot.provider.store.recent()
        shown = bot.now(message)
    assert ended.value.code is ErrorCode.ASK_ABORTED
    assert ended.value.message == f"{ABORTED_MESSAGE}: nobody answered: it expired after 10 min"
    assert record.verdict is Verdict.EXPIRED
    assert record.answer is None
    assert record.approvals == []
    assert [b for b in shown.blocks if b["type"] == "actions"] == []  # nothing left to click


async def test_the_team_view_shows_a_waiting_asks_sla_and_escalation_step(
    emu: SlackEmulator,
) -> None:
    clock = ManualClock(start=1_800_000_000.0)
    async with running_bot(emu, review=ReviewPolicies(default=LADDER), clock=clock) as bot:
        asking = bot.ask(QUESTION)
        message = await bot.posted()
        await clock.sleeping()
        clock.advance(3600)  # reminded, then escalated
        await emu.wait_for(lambda: escalated(bot.now(message)), what="the escalation saved")
        await emu.person(ALICE).command("/agent-questions")
        await emu.wait_for(lambda: bool(emu.ephemerals(ALICE)), what="the team view")
        [listed] = emu.ephemerals(ALICE)
    await withdrawn_at_exit(asking)
    waiting = str(listed.blocks[1]["text"]["text"])
    assert waiting.split("\n")[-1] == (
        f":stopwatch: Escalated to <!subteam^{BACKUP}> · next: Expires unanswered "
        "<!date^1800014400^{date_short_pretty} at {time}|2027-01-15 12:00 UTC>"
    )


@dataclass
class HeldReminder:
    """A bot whose Deadlines began to close while an ask's 15-min reminder was in Slack's
    hands: `released` lets the reminder's post answer."""

    bot: Bot
    message: Message
    closing: asyncio.Task[None]
    released: asyncio.Event


@asynccontextmanager
async def closing_while_a_reminder_is_posted(emu: SlackEmulator) -> AsyncIterator[HeldReminder]:
    clock = ManualClock()
    released = asyncio.Event()
    async with running_bot(emu, review=ReviewPolicies(default=LADDER), clock=clock) as bot:
        asking = bot.ask(QUESTION)
        message = await bot.posted()
        await clock.sleeping()
        emu.inject("chat.postMessage", Slow(30.0, released))  # the reminder's line
        clock.advance(900)
        await emu.wait_for(lambda: emu.held("chat.postMessage") == 1, what="the reminder held")
        closing = asyncio.create_task(bot.provider.deadlines.close())
        await asyncio.sleep(0)  # close has begun: the acting timer is left to finish
        try:
            yield HeldReminder(bot, message, closing, released)
        finally:
            asking.cancel()
            await asyncio.gather(asking, return_exceptions=True)


REMINDED = [f"<@{ALICE}>: this question has waited 15 min for an answer."]


async def test_closing_while_a_reminder_is_posted_lets_it_finish_and_stops_the_ladder(
    emu: SlackEmulator,
) -> None:
    async with closing_while_a_reminder_is_posted(emu) as held:
        held.released.set()
        # It hung here: the ladder went on to sleep until its escalation, and close waited.
        done, _ = await asyncio.wait({held.closing}, timeout=5)
        assert held.closing in done
        lines = thread_lines(emu, held.message)
        assert held.bot.provider.deadlines.watching == 0
    assert lines == REMINDED


async def test_cancelling_close_while_a_reminder_is_posted_is_not_swallowed_and_the_reminder_lands(
    emu: SlackEmulator,
) -> None:
    async with closing_while_a_reminder_is_posted(emu) as held:
        held.closing.cancel()
        async with asyncio.timeout(5):
            with pytest.raises(asyncio.CancelledError):
                await held.closing  # it was swallowed: close went on waiting for the timer
        held.released.set()
        await emu.wait_for(lambda: bool(thread_lines(emu, held.message)), what="the reminder")
        lines = thread_lines(emu, held.message)
    assert lines == REMINDED
