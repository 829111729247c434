"""Slack's posting rate per channel (an opt-in fault), as slack_sdk's AsyncWebClient sees it."""

from __future__ import annotations

import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from slack_emulator import PostingRate, SlackEmulator
from slack_emulator.posting_rate import PostingLimits

from .conftest import QUESTIONS


class _Ticks:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_burst_passes_then_each_post_waits_for_the_next_token() -> None:
    ticks = _Ticks()
    limits = PostingLimits(PostingRate(per_second=2.0, burst=3), now=ticks)
    assert [limits.take("C1") for _ in range(3)] == [None, None, None]
    assert limits.take("C1") == pytest.approx(0.5)
    ticks.now += 0.5
    assert limits.take("C1") is None


def test_each_channel_has_its_own_bucket() -> None:
    limits = PostingLimits(PostingRate(per_second=1.0, burst=1), now=_Ticks())
    assert (limits.take("C1"), limits.take("C2"), limits.take("C1")) == (None, None, 1.0)


def test_a_rate_must_be_positive_and_allow_a_post() -> None:
    with pytest.raises(ValueError, match="positive"):
        PostingRate(per_second=0)
    with pytest.raises(ValueError, match="at least one"):
        PostingRate(burst=0)


async def test_posts_beyond_the_burst_get_429_with_a_fractional_retry_after(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    emu.limit_posting(PostingRate(per_second=1.0, burst=2))
    for _ in range(2):
        await client.chat_postMessage(channel=QUESTIONS, text="hi")
    with pytest.raises(SlackApiError) as caught:
        await client.chat_postMessage(channel=QUESTIONS, text="one too many")
    response = caught.value.response
    assert (response.status_code, response.data) == (429, {"ok": False, "error": "ratelimited"})
    assert 0.9 < float(response.headers["Retry-After"]) <= 1.0
    assert [m.text for m in emu.channel_messages(QUESTIONS)] == ["hi", "hi"]


async def test_another_channel_and_other_methods_are_not_held_back(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    emu.limit_posting(PostingRate(per_second=1.0, burst=1))
    posted = await client.chat_postMessage(channel=QUESTIONS, text="hi")
    emu.workspace.add_channel("C0ELSEWHERE", name="elsewhere", members=[emu.bot_user_id])
    assert (await client.chat_postMessage(channel="C0ELSEWHERE", text="hi"))["ok"] is True
    assert (await client.chat_update(channel=QUESTIONS, ts=posted["ts"], text="edited"))["ok"]


async def test_clearing_faults_lifts_the_posting_rate(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    emu.limit_posting(PostingRate(per_second=0.01, burst=1))
    await client.chat_postMessage(channel=QUESTIONS, text="hi")
    emu.clear_faults()
    assert (await client.chat_postMessage(channel=QUESTIONS, text="again"))["ok"] is True
