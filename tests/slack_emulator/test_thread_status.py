"""assistant.threads.setStatus: the thread's status line ("<app> is waiting…"), as Slack's
docs describe it — chat:write in channels, cleared by an empty status or by the app's next
reply in the thread, gone two minutes after it was set."""

from __future__ import annotations

import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from slack_emulator import ManualClock, SlackEmulator, ThreadStatus

from .conftest import LOBBY, QUESTIONS


async def thread(client: AsyncWebClient) -> str:
    root = await client.chat_postMessage(channel=QUESTIONS, text="Deploy agent started")
    return str(root["ts"])


async def test_a_status_set_on_a_channel_thread_is_recorded_on_that_thread(
    emu: SlackEmulator, client: AsyncWebClient, clock: ManualClock
) -> None:
    ts = await thread(client)
    await client.assistant_threads_setStatus(
        channel_id=QUESTIONS, thread_ts=ts, status="is waiting for an answer from @ana"
    )
    assert emu.thread_status(QUESTIONS, ts) == ThreadStatus(
        channel=QUESTIONS,
        thread_ts=ts,
        status="is waiting for an answer from @ana",
        loading_messages=(),
        set_at=clock.now(),
    )


async def test_an_empty_status_clears_it(emu: SlackEmulator, client: AsyncWebClient) -> None:
    ts = await thread(client)
    await client.assistant_threads_setStatus(channel_id=QUESTIONS, thread_ts=ts, status="is busy")
    await client.assistant_threads_setStatus(channel_id=QUESTIONS, thread_ts=ts, status="")
    assert emu.thread_status(QUESTIONS, ts) is None


async def test_the_apps_next_reply_in_the_thread_clears_it(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    ts = await thread(client)
    await client.assistant_threads_setStatus(channel_id=QUESTIONS, thread_ts=ts, status="is busy")
    await client.chat_postMessage(channel=QUESTIONS, thread_ts=ts, text="Which database?")
    assert emu.thread_status(QUESTIONS, ts) is None


async def test_a_message_elsewhere_leaves_it(emu: SlackEmulator, client: AsyncWebClient) -> None:
    ts = await thread(client)
    await client.assistant_threads_setStatus(channel_id=QUESTIONS, thread_ts=ts, status="is busy")
    await client.chat_postMessage(channel=QUESTIONS, text="another thread")
    assert emu.thread_status(QUESTIONS, ts) is not None


async def test_it_is_gone_two_minutes_after_it_was_set_unless_renewed(
    emu: SlackEmulator, client: AsyncWebClient, clock: ManualClock
) -> None:
    ts = await thread(client)
    await client.assistant_threads_setStatus(channel_id=QUESTIONS, thread_ts=ts, status="is busy")
    clock.advance(119.0)
    await client.assistant_threads_setStatus(channel_id=QUESTIONS, thread_ts=ts, status="is busy")
    clock.advance(119.0)
    assert emu.thread_status(QUESTIONS, ts) is not None
    clock.advance(1.0)
    assert emu.thread_status(QUESTIONS, ts) is None


async def test_loading_messages_are_kept_and_more_than_ten_are_refused(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    ts = await thread(client)
    await client.assistant_threads_setStatus(
        channel_id=QUESTIONS, thread_ts=ts, status="is busy", loading_messages=["a", "b"]
    )
    status = emu.thread_status(QUESTIONS, ts)
    assert status is not None
    assert status.loading_messages == ("a", "b")
    with pytest.raises(SlackApiError) as raised:
        await client.assistant_threads_setStatus(
            channel_id=QUESTIONS, thread_ts=ts, status="x", loading_messages=["m"] * 11
        )
    assert raised.value.response["error"] == "invalid_arguments"


async def test_an_unknown_thread_is_invalid_thread_ts(client: AsyncWebClient) -> None:
    with pytest.raises(SlackApiError) as raised:
        await client.assistant_threads_setStatus(
            channel_id=QUESTIONS, thread_ts="1700000000.999999", status="is busy"
        )
    assert raised.value.response["error"] == "invalid_thread_ts"


async def test_a_channel_without_the_bot_is_refused_as_chat_post_message_is(
    client: AsyncWebClient,
) -> None:
    with pytest.raises(SlackApiError) as raised:
        await client.assistant_threads_setStatus(
            channel_id=LOBBY, thread_ts="1700000000.000100", status="is busy"
        )
    assert raised.value.response["error"] == "not_in_channel"
