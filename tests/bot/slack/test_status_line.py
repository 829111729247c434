"""Thread status: while an ask waits, Slack shows "<app> is waiting…" under its thread —
set, renewed inside Slack's two minutes, restored after the app's own replies, cleared when
the last waiting ask there settles; a failure never reaches the ask."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator

import pytest

from bot.slack.api import SlackClient, web_client
from bot.slack.status_line import ThreadStatuses
from slack_emulator import ApiError, ManualClock, SlackEmulator, Slow

CHANNEL = "C0QUESTION"
WAITING = "is waiting for an answer"


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
async def emu(clock: ManualClock) -> AsyncIterator[SlackEmulator]:
    async with SlackEmulator(clock=clock) as emulator:
        emulator.workspace.add_channel(
            CHANNEL, name="agent-questions", members=[emulator.bot_user_id]
        )
        yield emulator


@pytest.fixture
async def client(emu: SlackEmulator) -> AsyncIterator[SlackClient]:
    web = web_client(emu.bot_token, base_url=emu.api_url)
    yield web
    if web.session is not None:
        await web.session.close()


@pytest.fixture
async def statuses(client: SlackClient, clock: ManualClock) -> AsyncIterator[ThreadStatuses]:
    keeper = ThreadStatuses(client, clock)
    yield keeper
    await keeper.close()


async def thread(client: SlackClient) -> str:
    return str((await client.chat_postMessage(channel=CHANNEL, text="Deploy agent"))["ts"])


async def test_a_waiting_ask_shows_its_status_under_the_thread(
    emu: SlackEmulator, client: SlackClient, statuses: ThreadStatuses
) -> None:
    ts = await thread(client)
    statuses.waiting("a1", CHANNEL, ts, WAITING)
    await statuses.sent()
    status = emu.thread_status(CHANNEL, ts)
    assert status is not None
    assert status.status == WAITING


async def test_the_status_is_renewed_before_slack_drops_it_after_two_minutes(
    emu: SlackEmulator, client: SlackClient, statuses: ThreadStatuses, clock: ManualClock
) -> None:
    ts = await thread(client)
    statuses.waiting("a1", CHANNEL, ts, WAITING)
    await statuses.sent()
    for renewal in (2, 3, 4):
        await clock.sleeping()
        clock.advance(90.0)
        await emu.wait_for_call("assistant.threads.setStatus", count=renewal)
    assert emu.thread_status(CHANNEL, ts) is not None  # 270 s after it was first set


async def test_the_apps_reply_in_the_thread_clears_it_and_posted_shows_it_again(
    emu: SlackEmulator, client: SlackClient, statuses: ThreadStatuses
) -> None:
    ts = await thread(client)
    statuses.waiting("a1", CHANNEL, ts, WAITING)
    await statuses.sent()
    await client.chat_postMessage(channel=CHANNEL, thread_ts=ts, text="Reminder")
    assert emu.thread_status(CHANNEL, ts) is None
    statuses.posted(CHANNEL, ts)
    await statuses.sent()
    status = emu.thread_status(CHANNEL, ts)
    assert status is not None
    assert status.status == WAITING


async def test_settling_the_last_waiting_ask_clears_it_and_stops_renewing(
    emu: SlackEmulator, client: SlackClient, statuses: ThreadStatuses, clock: ManualClock
) -> None:
    ts = await thread(client)
    statuses.waiting("a1", CHANNEL, ts, WAITING)
    await statuses.sent()
    statuses.settled("a1", CHANNEL, ts)
    await statuses.sent()
    assert emu.thread_status(CHANNEL, ts) is None
    assert [c.params["status"] for c in emu.calls_to("assistant.threads.setStatus")] == [
        WAITING,
        "",
    ]
    assert clock.sleepers == 0


async def test_with_two_asks_waiting_settling_one_shows_the_other(
    emu: SlackEmulator, client: SlackClient, statuses: ThreadStatuses
) -> None:
    ts = await thread(client)
    statuses.waiting("a1", CHANNEL, ts, "is waiting for an answer from @ana")
    await statuses.sent()
    statuses.waiting("a2", CHANNEL, ts, "is waiting for an answer from @bob")
    await statuses.sent()
    statuses.settled("a2", CHANNEL, ts)
    await statuses.sent()
    status = emu.thread_status(CHANNEL, ts)
    assert status is not None
    assert status.status == "is waiting for an answer from @ana"
    statuses.settled("a1", CHANNEL, ts)
    await statuses.sent()
    assert emu.thread_status(CHANNEL, ts) is None


async def test_a_thread_shows_the_newest_waiting_asks_status_as_asks_come_and_go(
    client: SlackClient, statuses: ThreadStatuses
) -> None:
    ts = await thread(client)
    shown = []
    for ask_id in ("a1", "a2", "a3", "a1"):  # a1 waits again (a reminder): newest now
        statuses.waiting(ask_id, CHANNEL, ts, f"waits for {ask_id}")
        shown.append(statuses.shown(CHANNEL, ts))
    for ask_id in ("a1", "nobody", "a3", "a2"):
        statuses.settled(ask_id, CHANNEL, ts)
        shown.append(statuses.shown(CHANNEL, ts))
    assert shown == [
        *("waits for a1", "waits for a2", "waits for a3", "waits for a1"),
        *("waits for a3", "waits for a3", "waits for a2", None),
    ]


async def test_a_lone_ask_waiting_again_keeps_its_thread_and_settling_another_leaves_it(
    client: SlackClient, statuses: ThreadStatuses
) -> None:
    ts = await thread(client)
    statuses.waiting("a1", CHANNEL, ts, "first")
    statuses.waiting("a1", CHANNEL, ts, "again")
    statuses.settled("other", CHANNEL, ts)
    again = statuses.shown(CHANNEL, ts)
    statuses.settled("a1", CHANNEL, ts)
    assert (again, statuses.shown(CHANNEL, ts)) == ("again", None)


async def test_a_status_slack_refuses_is_logged_once_and_the_ask_goes_on(
    emu: SlackEmulator,
    client: SlackClient,
    statuses: ThreadStatuses,
    caplog: pytest.LogCaptureFixture,
) -> None:
    ts = await thread(client)
    emu.inject("assistant.threads.setStatus", ApiError("not_allowed_token_type"), times=None)
    statuses.waiting("a1", CHANNEL, ts, WAITING)
    await statuses.sent()
    statuses.posted(CHANNEL, ts)
    await statuses.sent()
    # The client logs each failed call too (bot.slack); the status line's own word is once.
    warnings = [
        r.getMessage()
        for r in caplog.records
        if r.levelno == logging.WARNING and r.name == "bot.slack.status_line"
    ]
    assert warnings == [
        f"Slack did not show the thread status in {CHANNEL}/{ts} (assistant.threads.setStatus: "
        "not_allowed_token_type); asks there are unaffected"
    ]
    assert statuses.shown(CHANNEL, ts) == WAITING


def set_calls(emu: SlackEmulator) -> list[tuple[str, str]]:
    return [
        (str(c.params["thread_ts"]), str(c.params["status"]))
        for c in emu.calls_to("assistant.threads.setStatus")
    ]


async def test_a_thousand_waiting_threads_hold_one_writer_and_one_renewer_not_a_task_each(
    emu: SlackEmulator, statuses: ThreadStatuses, clock: ManualClock
) -> None:
    before = len(asyncio.all_tasks())
    for n in range(1000):
        statuses.waiting(f"a{n}", CHANNEL, f"1700000000.{n:06d}", WAITING)
    assert len(asyncio.all_tasks()) - before == 2
    await statuses.sent()
    assert len(emu.calls_to("assistant.threads.setStatus")) == 1000
    assert clock.sleepers == 1


async def test_a_set_then_a_clear_not_yet_sent_sends_only_the_clear(
    emu: SlackEmulator, client: SlackClient, statuses: ThreadStatuses
) -> None:
    ts = await thread(client)
    statuses.waiting("a1", CHANNEL, ts, WAITING)
    statuses.settled("a1", CHANNEL, ts)
    await statuses.sent()
    assert set_calls(emu) == [(ts, "")]


async def test_threads_are_sent_in_the_order_they_first_changed_each_with_its_latest_line(
    emu: SlackEmulator, client: SlackClient, statuses: ThreadStatuses
) -> None:
    first, second = await thread(client), await thread(client)
    statuses.waiting("a1", CHANNEL, first, "is waiting for an answer from @ana")
    statuses.waiting("a2", CHANNEL, second, WAITING)
    statuses.waiting("a3", CHANNEL, first, "is waiting for an answer from @bob")
    await statuses.sent()
    assert set_calls(emu) == [
        (first, "is waiting for an answer from @bob"),
        (second, WAITING),
    ]


async def test_a_clear_made_while_the_set_is_in_flight_follows_it(
    emu: SlackEmulator, client: SlackClient, statuses: ThreadStatuses
) -> None:
    ts = await thread(client)
    emu.inject("assistant.threads.setStatus", Slow(0.2))
    statuses.waiting("a1", CHANNEL, ts, WAITING)
    await emu.wait_for(lambda: emu.held("assistant.threads.setStatus") == 1, what="set in flight")
    statuses.settled("a1", CHANNEL, ts)
    await statuses.sent()
    assert set_calls(emu) == [(ts, WAITING), (ts, "")]
    assert emu.thread_status(CHANNEL, ts) is None


async def test_closing_sends_what_is_left_and_leaves_no_task_behind(
    emu: SlackEmulator, client: SlackClient, statuses: ThreadStatuses, clock: ManualClock
) -> None:
    ts = await thread(client)
    statuses.waiting("a1", CHANNEL, ts, WAITING)
    await statuses.close()
    assert set_calls(emu) == [(ts, WAITING)]
    assert [t.get_name() for t in asyncio.all_tasks() if t.get_name().startswith("thread")] == []
    assert clock.sleepers == 0
