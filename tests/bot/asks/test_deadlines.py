"""Plan-review deadlines racing with people, and timers at shutdown."""

from __future__ import annotations

from bot.review import ReviewPolicies, ReviewPolicy
from bot.store import AskState, EventKind
from provider import AskUserQuestionRequest
from slack_emulator import ManualClock, SlackEmulator, Slow

from ..harness import ALICE, BOB, running_bot

PLAN = {
    "id": "plan",
    "question": "May I carry out this plan?",
    "detail": "# Plan\n\nDo it.",
    "options": [{"label": "Revise it"}, {"label": "Approve"}],
    "intent": {"kind": "plan-review", "approve": "Approve"},
}


async def test_a_decline_while_the_reminder_posts_stays_decided(emu: SlackEmulator) -> None:
    clock = ManualClock()
    policy = ReviewPolicies(default=ReviewPolicy(reviewers=(BOB,), remind_after=3600))
    async with running_bot(emu, review=policy, clock=clock) as bot:
        asking = bot.ask(PLAN)
        message = await bot.posted()
        await clock.sleeping()
        emu.inject("chat.postMessage", Slow(0.5))  # the reminder takes a while to post
        clock.advance(3600)
        await emu.person(BOB).click(message, text="Revise it")
        assert (await asking).answers[0].selected == ["Revise it"]
        await bot.provider.deadlines.finished()
        [record] = await bot.provider.store.recent()
        events = [e.kind for e in await bot.provider.store.events(record.id)]
    assert record.state is AskState.ANSWERED
    assert EventKind.REMINDED not in events


async def test_an_approval_while_the_reminder_posts_still_counts(emu: SlackEmulator) -> None:
    clock = ManualClock()
    policy = ReviewPolicies(default=ReviewPolicy(approvals=2, remind_after=3600))
    async with running_bot(emu, review=policy, clock=clock) as bot:
        asking = bot.ask(PLAN)
        message = await bot.posted()
        await clock.sleeping()
        emu.inject("chat.postMessage", Slow(0.5))
        clock.advance(3600)
        await emu.person(ALICE).click(message, text="Approve")
        await bot.provider.deadlines.finished()
        await bot.idle()
        await emu.person(BOB).click(bot.now(message), text="Approve")
        assert (await asking).answers[0].selected == ["Approve"]


async def test_closing_the_provider_leaves_no_timer_running(emu: SlackEmulator) -> None:
    clock = ManualClock()
    policy = ReviewPolicies(default=ReviewPolicy(expire_after=86400))
    async with running_bot(emu, review=policy, clock=clock) as bot:
        asks = bot.provider.asks
        # What the relay does on POST /v1/asks: store, answer 201, post in a tracked task.
        record, _ = await asks.create(AskUserQuestionRequest.model_validate({"questions": [PLAN]}))
        bot.provider.tasks.spawn(bot.provider.posting.post(record.id), name="post")
        await bot.provider.close()
        assert bot.provider.deadlines.watching == 0
