"""Injected faults, as slack_sdk's AsyncWebClient sees them."""

from __future__ import annotations

import asyncio
import time

import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_async_handlers import AsyncRateLimitErrorRetryHandler
from slack_sdk.web.async_client import AsyncWebClient

from slack_emulator import ApiError, RateLimited, ServerError, SlackEmulator, Slow, SlowReply

from .conftest import BOT_TOKEN, QUESTIONS


async def test_a_rate_limit_is_a_429_with_retry_after(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    emu.inject("chat.postMessage", RateLimited(retry_after=7))
    with pytest.raises(SlackApiError) as caught:
        await client.chat_postMessage(channel=QUESTIONS, text="hi")
    response = caught.value.response
    assert (response.status_code, response.headers["Retry-After"], response.data) == (
        429,
        "7",
        {"ok": False, "error": "ratelimited"},
    )
    assert (await client.chat_postMessage(channel=QUESTIONS, text="hi"))["ok"] is True


async def test_slack_sdks_rate_limit_handler_retries_after_the_pause(emu: SlackEmulator) -> None:
    emu.inject("auth.test", RateLimited(retry_after=0))
    patient = AsyncWebClient(
        token=BOT_TOKEN,
        base_url=emu.api_url,
        retry_handlers=[AsyncRateLimitErrorRetryHandler(max_retry_count=1)],
    )
    assert (await patient.auth_test())["ok"] is True
    assert [call.status for call in emu.calls_to("auth.test")] == [429, 200]


async def test_a_server_error_is_a_5xx_without_a_slack_body(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    emu.inject("conversations.replies", ServerError(status=503))
    with pytest.raises(SlackApiError) as caught:
        await client.conversations_replies(channel=QUESTIONS, ts="1")
    assert caught.value.response.status_code == 503


async def test_a_slow_call_answers_late_but_normally(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    emu.inject("auth.test", Slow(seconds=0.3))
    started = time.monotonic()
    assert (await client.auth_test())["ok"] is True
    assert time.monotonic() - started >= 0.3


async def test_a_slow_call_trips_a_client_timeout(emu: SlackEmulator) -> None:
    emu.inject("auth.test", Slow(seconds=2))
    impatient = AsyncWebClient(token=BOT_TOKEN, base_url=emu.api_url, timeout=0.2)  # type: ignore[arg-type]
    with pytest.raises(TimeoutError):
        await impatient.auth_test()


async def test_a_slow_reply_stores_the_message_before_the_reply_leaves(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    emu.inject("chat.postMessage", SlowReply(seconds=0.3))
    started = time.monotonic()
    posting = asyncio.create_task(client.chat_postMessage(channel=QUESTIONS, text="hi"))
    await emu.wait_for(lambda: len(emu.channel_messages(QUESTIONS)) == 1)
    assert not posting.done()
    assert (await posting)["ts"] == emu.channel_messages(QUESTIONS)[0].ts
    assert time.monotonic() - started >= 0.3


async def test_a_forced_error_answers_as_slack_refuses(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    emu.inject("chat.postMessage", ApiError("channel_not_found"))
    with pytest.raises(SlackApiError) as caught:
        await client.chat_postMessage(channel=QUESTIONS, text="hi")
    assert (caught.value.response.status_code, caught.value.response.data) == (
        200,
        {"ok": False, "error": "channel_not_found"},
    )
    assert emu.channel_messages(QUESTIONS) == []


async def test_a_fault_lasts_for_the_given_number_of_calls(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    emu.inject("auth.test", ApiError("fatal_error"), times=2)
    outcomes = []
    for _ in range(3):
        try:
            outcomes.append((await client.auth_test())["ok"])
        except SlackApiError as error:
            outcomes.append(error.response["error"])
    assert outcomes == ["fatal_error", "fatal_error", True]


async def test_a_fault_without_a_count_lasts_until_cleared(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    emu.inject("*", ServerError(status=500), times=None)
    for _ in range(3):
        with pytest.raises(SlackApiError):
            await client.users_info(user="U0ALICE001")
    emu.clear_faults()
    assert (await client.auth_test())["ok"] is True
    assert [call.status for call in emu.calls] == [500, 500, 500, 200]


def test_a_server_error_needs_a_5xx_status() -> None:
    with pytest.raises(ValueError, match="5xx"):
        ServerError(status=404)
