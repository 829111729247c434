"""How an ask ends: the table of endings, and every way besides an answer (aborts,
cancellation, dispose, Slack failures)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.outcomes import (
    ENDINGS,
    PLAN_ENDINGS,
    AskError,
    AskState,
    EventKind,
    PlanOutcome,
    Verdict,
    plan_outcome,
)
from bot.store.sqlite import SqliteStore
from provider import (
    AbortController,
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    ErrorCode,
    UserQuestionError,
)
from provider.errors import ABORTED_MESSAGE
from provider.relay_wire import AskState as WireAskState
from slack_emulator import ApiError, RateLimited, ServerError, SlackEmulator, Slow

from .harness import ALICE, Bot, running_bot

DB = {"id": "db", "question": "Which database?", "options": [{"label": "Postgres"}]}


def footer(bot: Bot, message_ts: str, channel: str) -> str:
    return str(bot.emu.message(channel, message_ts).blocks[-1])


async def ask_error(task: asyncio.Task[AskUserQuestionAnswer]) -> UserQuestionError:
    with pytest.raises(UserQuestionError) as caught:
        await task
    return caught.value


async def test_an_abort_signal_withdraws_the_question(bot: Bot) -> None:
    controller = AbortController()
    asking = bot.ask(DB, signal=controller.signal)
    message = await bot.posted()
    controller.abort("plan changed")
    error = await ask_error(asking)
    assert error.code is ErrorCode.ASK_ABORTED
    await bot.idle()
    updated = bot.now(message)
    assert "Withdrawn, nobody answered: plan changed" in str(updated.blocks[-1])
    assert not [b for b in updated.blocks if b["type"] == "actions"]


async def test_cancelling_the_task_withdraws_the_question_first(bot: Bot) -> None:
    asking = bot.ask(DB)
    message = await bot.posted()
    asking.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asking
    # The withdrawal finished before the cancellation reached us.
    assert "Withdrawn, nobody answered: the agent's task was cancelled" in str(
        bot.now(message).blocks[-1]
    )


async def test_disposing_the_provider_aborts_every_pending_ask(bot: Bot) -> None:
    first = bot.ask(DB)
    second = bot.ask({**DB, "id": "db2"})
    await bot.posted(2)
    bot.dispose()
    assert (await ask_error(first)).code is ErrorCode.ASK_ABORTED
    assert (await ask_error(second)).code is ErrorCode.ASK_ABORTED
    assert bot.service.provider is None
    await bot.idle()
    for n in (1, 2):
        message = await bot.posted(n)
        assert "Withdrawn, nobody answered: the Slack provider was disposed" in str(
            message.blocks[-1]
        )


async def test_disposing_while_an_ask_is_still_being_stored_aborts_it(
    emu: SlackEmulator, tmp_path: Path
) -> None:
    async with SqliteStore(tmp_path / "asks.db") as store, running_bot(emu, store=store) as bot:
        asking = bot.ask(DB)
        await asyncio.sleep(0)  # one turn of the loop: the store write is under way
        bot.dispose()
        assert (await ask_error(asking)).code is ErrorCode.ASK_ABORTED
        await bot.idle()
        assert "Withdrawn, nobody answered: the Slack provider was disposed" in str(
            (await bot.posted()).blocks
        )


async def held_back_by_a_429(bot: Bot) -> asyncio.Task[AskUserQuestionAnswer]:
    """An ask whose post Slack answered 429 with a minute's `Retry-After`."""
    bot.emu.inject("chat.postMessage", RateLimited(retry_after=60), times=None)
    asking = bot.ask(DB)
    await bot.emu.wait_for(
        lambda: [c.status for c in bot.emu.calls_to("chat.postMessage")] == [429],
        what="the post answered 429",
    )
    return asking


async def test_cancelling_an_ask_whose_post_waits_out_a_429_withdraws_it_unposted(
    bot: Bot,
) -> None:
    asking = await held_back_by_a_429(bot)
    asking.cancel()
    async with asyncio.timeout(10):  # not the minute Slack asked the post to wait
        with pytest.raises(asyncio.CancelledError):
            await asking
    [record] = await bot.provider.parts.store.recent()
    assert (record.verdict, record.reason, record.message_ts) == (
        Verdict.WITHDRAWN,
        "the agent's task was cancelled",
        [],
    )
    assert [c.status for c in bot.emu.calls_to("chat.postMessage")] == [429]


async def test_disposing_while_a_post_waits_out_a_429_aborts_the_ask_unposted(bot: Bot) -> None:
    asking = await held_back_by_a_429(bot)
    bot.dispose()
    async with asyncio.timeout(10):
        assert (await ask_error(asking)).code is ErrorCode.ASK_ABORTED
    assert [c.status for c in bot.emu.calls_to("chat.postMessage")] == [429]


async def test_a_click_after_a_withdrawal_is_told_so(bot: Bot) -> None:
    controller = AbortController()
    asking = bot.ask(DB, signal=controller.signal)
    message = await bot.posted()
    controller.abort()
    await ask_error(asking)
    await bot.emu.person(ALICE).click(message, text="Postgres")
    await bot.idle()
    assert [e.text for e in bot.emu.ephemerals(ALICE)] == [
        "The agent withdrew this question; no answer is needed."
    ]


@pytest.mark.parametrize("error", ["not_in_channel", "channel_not_found", "invalid_auth"])
async def test_a_slack_error_when_posting_is_ask_failed_naming_it(bot: Bot, error: str) -> None:
    bot.emu.inject("chat.postMessage", ApiError(error), times=None)
    failure = await ask_error(bot.ask(DB))
    assert failure.code is ErrorCode.ASK_FAILED
    assert failure.message == f"Slack refused chat.postMessage: {error}"


async def test_not_in_channel_comes_from_slack_itself(emu: SlackEmulator) -> None:
    emu.workspace.add_channel("C0NOBOTHER", name="no-bot", members=[ALICE])
    async with running_bot(emu, channel="C0NOBOTHER") as bot:
        failure = await ask_error(bot.ask(DB))
    assert failure.message == "Slack refused chat.postMessage: not_in_channel"


async def test_repeated_rate_limits_never_fail_the_ask_it_is_posted_once_slack_allows(
    bot: Bot,
) -> None:
    bot.emu.inject("chat.postMessage", RateLimited(retry_after=0), times=5)
    asking = bot.ask(DB)
    message = await bot.posted()
    assert [c.status for c in bot.emu.calls_to("chat.postMessage")] == [429] * 5 + [200]
    await bot.emu.person(ALICE).click(message, text="Postgres")
    assert (await asking).answers[0].selected == ["Postgres"]


async def test_a_single_rate_limit_is_retried_and_the_ask_succeeds(bot: Bot) -> None:
    bot.emu.inject("chat.postMessage", RateLimited(retry_after=0), times=1)
    asking = bot.ask(DB)
    message = await bot.posted()
    await bot.emu.person(ALICE).click(message, text="Postgres")
    assert (await asking).answers[0].selected == ["Postgres"]


async def test_a_single_503_is_retried_and_the_ask_succeeds(bot: Bot) -> None:
    bot.emu.inject("chat.postMessage", ServerError(status=503), times=1)
    asking = bot.ask(DB)
    message = await bot.posted()
    await bot.emu.person(ALICE).click(message, text="Postgres")
    assert (await asking).answers[0].selected == ["Postgres"]


async def test_a_post_that_times_out_but_reached_slack_is_kept_not_orphaned(
    emu: SlackEmulator,
) -> None:
    async with running_bot(emu, call_timeout=0.5) as bot:
        bot.emu.inject("chat.postMessage", Slow(seconds=1.0))  # Slack takes it, answers late
        asking = bot.ask(DB)
        message = await bot.posted()
        await emu.person(ALICE).click(message, text="Postgres")
        assert (await asking).answers[0].selected == ["Postgres"]
        assert len(bot.ask_posts()) == 1


# --- the table of endings ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("verdict", "state", "event", "code"),
    [
        (Verdict.ANSWERED, AskState.ANSWERED, EventKind.ANSWERED, None),
        (Verdict.WITHDRAWN, AskState.FAILED, EventKind.WITHDRAWN, ErrorCode.ASK_ABORTED),
        (Verdict.CLOSED, AskState.FAILED, EventKind.CLOSED, ErrorCode.ASK_ABORTED),
        (Verdict.CANCELLED, AskState.FAILED, EventKind.CANCELLED, ErrorCode.ASK_CANCELLED),
        (Verdict.EXPIRED, AskState.FAILED, EventKind.EXPIRED, ErrorCode.ASK_ABORTED),
        (Verdict.FAILED, AskState.FAILED, EventKind.FAILED, ErrorCode.ASK_FAILED),
    ],
)
def test_each_ending_names_its_state_event_and_error_code(
    verdict: Verdict, state: AskState, event: EventKind, code: ErrorCode | None
) -> None:
    ending = ENDINGS[verdict]
    assert (ending.state, ending.event, ending.code) == (state, event, code)


def test_an_aborting_ending_appends_its_detail_to_the_stable_seam_message() -> None:
    assert ENDINGS[Verdict.EXPIRED].error("it expired") == AskError(
        code=ErrorCode.ASK_ABORTED, message=f"{ABORTED_MESSAGE}: it expired"
    )
    assert ENDINGS[Verdict.WITHDRAWN].error(None) == AskError(
        code=ErrorCode.ASK_ABORTED, message=ABORTED_MESSAGE
    )


def test_a_failure_says_its_detail_and_an_answer_is_no_error() -> None:
    assert ENDINGS[Verdict.FAILED].error("channel_not_found") == AskError(
        code=ErrorCode.ASK_FAILED, message="channel_not_found"
    )
    assert ENDINGS[Verdict.ANSWERED].error("ignored") is None


def item(**fields: object) -> AskUserQuestionAnswerItem:
    return AskUserQuestionAnswerItem.model_validate({"id": "plan", **fields})


@pytest.mark.parametrize(
    ("verdict", "answer", "outcome"),
    [
        (Verdict.ANSWERED, item(selected=["Approve"]), PlanOutcome.APPROVED),
        (Verdict.ANSWERED, item(selected=["Approve", "Revise"]), PlanOutcome.DECLINED),
        (Verdict.ANSWERED, item(custom="split step 2"), PlanOutcome.CHANGES_REQUESTED),
        (Verdict.ANSWERED, item(selected=["Revise"]), PlanOutcome.DECLINED),
        (Verdict.ANSWERED, None, PlanOutcome.DECLINED),
        (Verdict.CANCELLED, None, PlanOutcome.DISCUSSED),
        (Verdict.EXPIRED, None, PlanOutcome.EXPIRED),
        (Verdict.WITHDRAWN, None, PlanOutcome.WITHDRAWN),
        (Verdict.FAILED, None, PlanOutcome.FAILED),
        (Verdict.CLOSED, None, PlanOutcome.FAILED),
    ],
)
def test_a_plan_review_ending_is_told_from_its_verdict_and_answer(
    verdict: Verdict, answer: AskUserQuestionAnswerItem | None, outcome: PlanOutcome
) -> None:
    assert plan_outcome(verdict, answer, "Approve") is outcome
    assert PLAN_ENDINGS[outcome].verdict is (
        Verdict.FAILED if verdict is Verdict.CLOSED else verdict
    )


def test_every_plan_ending_has_its_row() -> None:
    assert set(PLAN_ENDINGS) == set(PlanOutcome)


def test_the_store_and_the_relay_share_one_ask_state() -> None:
    assert AskState is WireAskState
