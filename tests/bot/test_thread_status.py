"""Thread status: while an ask waits, Slack shows "<app> is waiting…" under its thread —
set, renewed inside Slack's two minutes, restored after the app's own replies, cleared when
the last waiting ask there settles; a failure never reaches the ask."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

import pytest
from slack_sdk.web.async_client import AsyncWebClient

from bot.thread_status import ThreadStatuses
from slack_emulator import ApiError, ManualClock, SlackEmulator

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
async def client(emu: SlackEmulator) -> AsyncIterator[AsyncWebClient]:
    web = AsyncWebClient(token=emu.bot_token, base_url=emu.api_url)
    yield web
    if web.session is not None:
        await web.session.close()


@pytest.fixture
async def statuses(client: AsyncWebClient, clock: ManualClock) -> AsyncIterator[ThreadStatuses]:
    keeper = ThreadStatuses(client, clock)
    yield keeper
    await keeper.close()


async def thread(client: AsyncWebClient) -> str:
    return str((await client.chat_postMessage(channel=CHANNEL, text="Deploy agent"))["ts"])


async def test_a_waiting_ask_shows_its_status_under_the_thread(
    emu: SlackEmulator, client: AsyncWebClient, statuses: ThreadStatuses
) -> None:
    ts = await thread(client)
    await statuses.waiting("a1", CHANNEL, ts, WAITING)
    status = emu.thread_status(CHANNEL, ts)
    assert status is not None
    assert status.status == WAITING


async def test_the_status_is_renewed_before_slack_drops_it_after_two_minutes(
    emu: SlackEmulator, client: AsyncWebClient, statuses: ThreadStatuses, clock: ManualClock
) -> None:
    ts = await thread(client)
    await statuses.waiting("a1", CHANNEL, ts, WAITING)
    for renewal in (2, 3, 4):
        await clock.sleeping()
        clock.advance(90.0)
        await emu.wait_for_call("assistant.threads.setStatus", count=renewal)
    assert emu.thread_status(CHANNEL, ts) is not None  # 270 s after it was first set


async def test_the_apps_reply_in_the_thread_clears_it_and_posted_shows_it_again(
    emu: SlackEmulator, client: AsyncWebClient, statuses: ThreadStatuses
) -> None:
    ts = await thread(client)
    await statuses.waiting("a1", CHANNEL, ts, WAITING)
    await client.chat_postMessage(channel=CHANNEL, thread_ts=ts, text="Reminder")
    assert emu.thread_status(CHANNEL, ts) is None
    await statuses.posted(CHANNEL, ts)
    status = emu.thread_status(CHANNEL, ts)
    assert status is not None
    assert status.status == WAITING


async def test_settling_the_last_waiting_ask_clears_it_and_stops_renewing(
    emu: SlackEmulator, client: AsyncWebClient, statuses: ThreadStatuses, clock: ManualClock
) -> None:
    ts = await thread(client)
    await statuses.waiting("a1", CHANNEL, ts, WAITING)
    await statuses.settled("a1", CHANNEL, ts)
    assert emu.thread_status(CHANNEL, ts) is None
    assert [c.params["status"] for c in emu.calls_to("assistant.threads.setStatus")] == [
        WAITING,
        "",
    ]
    assert clock.sleepers == 0


async def test_with_two_asks_waiting_settling_one_shows_the_other(
    emu: SlackEmulator, client: AsyncWebClient, statuses: ThreadStatuses
) -> None:
    ts = await thread(client)
    await statuses.waiting("a1", CHANNEL, ts, "is waiting for an answer from @ana")
    await statuses.waiting("a2", CHANNEL, ts, "is waiting for an answer from @bob")
    await statuses.settled("a2", CHANNEL, ts)
    status = emu.thread_status(CHANNEL, ts)
    assert status is not None
    assert status.status == "is waiting for an answer from @ana"
    await statuses.settled("a1", CHANNEL, ts)
    assert emu.thread_status(CHANNEL, ts) is None


async def test_a_status_slack_refuses_is_logged_once_and_the_ask_goes_on(
    emu: SlackEmulator,
    client: AsyncWebClient,
    statuses: ThreadStatuses,
    caplog: pytest.LogCaptureFixture,
) -> None:
    ts = await thread(client)
    emu.inject("assistant.threads.setStatus", ApiError("not_allowed_token_type"), times=None)
    await statuses.waiting("a1", CHANNEL, ts, WAITING)
    await statuses.posted(CHANNEL, ts)
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings == [
        f"Slack did not show the thread status in {CHANNEL}/{ts} (assistant.threads.setStatus: "
        "not_allowed_token_type); asks there are unaffected"
    ]
    assert statuses.shown(CHANNEL, ts) == WAITING
