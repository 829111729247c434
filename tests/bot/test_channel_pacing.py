"""Channel pacing: one call in flight per channel, updates first, a 429 waited out, drops."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from slack_sdk.web.async_client import AsyncWebClient

from bot.channel_pacing import ChannelPosts, Dropped, Turn
from bot.slack_api import web_client
from slack_emulator import PostingRate, SlackEmulator

from .harness import CHANNEL, TOKEN


@pytest.fixture
async def client(emu: SlackEmulator) -> AsyncIterator[AsyncWebClient]:
    client = web_client(TOKEN, base_url=emu.api_url)
    yield client
    if client.session is not None:
        await client.session.close()


async def test_posts_beyond_the_rate_wait_for_retry_after_and_none_fails(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    emu.limit_posting(PostingRate(per_second=50.0, burst=1))
    posts = ChannelPosts(client)
    sent = [
        asyncio.create_task(posts.post_message(Turn.POST, channel=CHANNEL, text=f"#{n}"))
        for n in range(6)
    ]
    await asyncio.gather(*sent)
    assert [m.text for m in emu.channel_messages(CHANNEL)] == [f"#{n}" for n in range(6)]
    refused = [c for c in emu.calls_to("chat.postMessage") if c.status == 429]
    assert refused, "the rate was reached, so Slack refused some posts first"


async def test_one_call_is_in_flight_per_channel(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    emu.limit_posting(PostingRate(per_second=1000.0, burst=100))
    posts = ChannelPosts(client)
    in_flight = 0
    most = 0

    async def call() -> None:
        nonlocal in_flight, most
        in_flight += 1
        most = max(most, in_flight)
        await posts.client.chat_postMessage(channel=CHANNEL, text="hi")
        in_flight -= 1

    await asyncio.gather(*(posts.pacing.send(CHANNEL, Turn.POST, call) for _ in range(5)))
    assert most == 1


async def test_closing_a_decided_asks_controls_goes_before_waiting_posts(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    posts = ChannelPosts(client)
    first = await posts.post_message(Turn.POST, channel=CHANNEL, text="ask")
    emu.limit_posting(PostingRate(per_second=20.0, burst=1))
    waiting = [
        asyncio.create_task(posts.post_message(Turn.POST, channel=CHANNEL, text=f"#{n}"))
        for n in range(3)
    ]
    await emu.wait_for(lambda: posts.pacing.queued(CHANNEL) == 2, what="two posts queued")
    closing = asyncio.create_task(posts.update(channel=CHANNEL, ts=first["ts"], text="decided"))
    await asyncio.gather(closing, *waiting)
    order = [c.params.get("text") for c in emu.calls if c.ok and c.method.startswith("chat.")]
    assert order == ["ask", "#0", "decided", "#1", "#2"]


async def test_a_thread_root_goes_before_waiting_ask_posts(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    emu.limit_posting(PostingRate(per_second=20.0, burst=1))
    posts = ChannelPosts(client)
    waiting = [
        asyncio.create_task(posts.post_message(Turn.POST, channel=CHANNEL, text=f"#{n}"))
        for n in range(3)
    ]
    await emu.wait_for(lambda: posts.pacing.queued(CHANNEL) == 2, what="two posts queued")
    root = asyncio.create_task(posts.post_message(Turn.ROOT, channel=CHANNEL, text="root"))
    await asyncio.gather(root, *waiting)
    assert [m.text for m in emu.channel_messages(CHANNEL)] == ["#0", "root", "#1", "#2"]


async def test_a_dropped_post_leaves_the_queue_unposted(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    emu.limit_posting(PostingRate(per_second=20.0, burst=1))
    posts = ChannelPosts(client)
    kept = asyncio.create_task(posts.post_message(Turn.POST, channel=CHANNEL, text="kept"))
    gone = asyncio.create_task(
        posts.post_message(Turn.POST, channel=CHANNEL, text="gone", key="ask-1")
    )
    await emu.wait_for(lambda: posts.pacing.queued(CHANNEL) == 1, what="one post queued")
    posts.pacing.drop(CHANNEL, "ask-1")
    with pytest.raises(Dropped):
        await gone
    await kept
    assert [m.text for m in emu.channel_messages(CHANNEL)] == ["kept"]
