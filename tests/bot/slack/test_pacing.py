"""Channel pacing: one call in flight per channel, updates first, a 429 waited out, drops,
and work queued with no task of its own."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from typing import Any

import pytest

from bot.slack.api import SlackClient, web_client
from bot.slack.pacing import ChannelPosts, Dropped, QueuedTurn, Turn
from slack_emulator import PostingRate, RateLimited, SlackEmulator

from ..harness import CHANNEL, TOKEN


@pytest.fixture
async def client(emu: SlackEmulator) -> AsyncIterator[SlackClient]:
    client = web_client(TOKEN, base_url=emu.api_url)
    yield client
    if client.session is not None:
        await client.session.close()


async def test_posts_beyond_the_rate_wait_for_retry_after_and_none_fails(
    emu: SlackEmulator, client: SlackClient
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


async def test_one_call_is_in_flight_per_channel(emu: SlackEmulator, client: SlackClient) -> None:
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
    emu: SlackEmulator, client: SlackClient
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
    emu: SlackEmulator, client: SlackClient
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
    emu: SlackEmulator, client: SlackClient
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


class _Held:
    """Holds `CHANNEL`'s lane with a call that ends when `free()` is called."""

    def __init__(self, posts: ChannelPosts) -> None:
        self._holding = asyncio.Event()
        self._free = asyncio.Event()
        self.task = asyncio.create_task(posts.pacing.send(CHANNEL, Turn.POST, self._wait))

    @classmethod
    async def lane(cls, posts: ChannelPosts) -> _Held:
        held = cls(posts)
        await held._holding.wait()
        return held

    async def _wait(self) -> None:
        self._holding.set()
        await self._free.wait()

    async def free(self) -> None:
        self._free.set()
        await self.task


class _Spawner:
    """Starts and tracks tasks like the app's `Tasks`."""

    def __init__(self) -> None:
        self.tasks: set[asyncio.Task[None]] = set()

    def __call__(self, work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        task = asyncio.create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    async def idle(self) -> None:
        while self.tasks:
            await asyncio.gather(*self.tasks)


async def test_a_thousand_queued_works_hold_no_task_and_run_in_their_order(
    emu: SlackEmulator, client: SlackClient
) -> None:
    posts = ChannelPosts(client)
    spawn = _Spawner()
    held = await _Held.lane(posts)
    tasks_before = len(asyncio.all_tasks())

    def post(n: int) -> Callable[[QueuedTurn], Awaitable[None]]:
        async def work(turn: QueuedTurn) -> None:
            await posts.post_message(
                Turn.POST, channel=CHANNEL, text=f"#{n}", order=float(n), on=turn
            )

        return work

    for n in reversed(range(1000)):  # made newest first: the order is what counts
        posts.pacing.queue(CHANNEL, Turn.POST, post(n), spawn=spawn, order=float(n))

    assert posts.pacing.queued(CHANNEL) == 1000
    assert len(asyncio.all_tasks()) == tasks_before
    await held.free()
    await spawn.idle()
    assert [m.text for m in emu.channel_messages(CHANNEL)] == [f"#{n}" for n in range(1000)]


async def test_queued_work_makes_its_call_on_its_turn_ahead_of_later_posts(
    emu: SlackEmulator, client: SlackClient
) -> None:
    posts = ChannelPosts(client)
    spawn = _Spawner()
    held = await _Held.lane(posts)

    async def work(turn: QueuedTurn) -> None:
        await asyncio.sleep(0.05)  # e.g. taking its lease: the turn stays its own meanwhile
        await posts.post_message(Turn.POST, channel=CHANNEL, text="queued", order=1.0, on=turn)

    posts.pacing.queue(CHANNEL, Turn.POST, work, spawn=spawn, order=1.0)
    later = asyncio.create_task(posts.post_message(Turn.POST, channel=CHANNEL, text="later"))
    await held.free()
    await asyncio.gather(later, spawn.idle())
    assert [m.text for m in emu.channel_messages(CHANNEL)] == ["queued", "later"]


async def test_a_dropped_queued_work_never_starts(emu: SlackEmulator, client: SlackClient) -> None:
    posts = ChannelPosts(client)
    spawn = _Spawner()
    held = await _Held.lane(posts)
    started: list[str] = []

    def work(name: str) -> Callable[[QueuedTurn], Awaitable[None]]:
        async def run(turn: QueuedTurn) -> None:
            started.append(name)
            await posts.post_message(Turn.POST, channel=CHANNEL, text=name, key=name, on=turn)

        return run

    posts.pacing.queue(CHANNEL, Turn.POST, work("gone"), spawn=spawn, key="gone", order=1.0)
    posts.pacing.queue(CHANNEL, Turn.POST, work("kept"), spawn=spawn, key="kept", order=2.0)
    posts.pacing.drop(CHANNEL, "gone")
    assert posts.pacing.queued(CHANNEL) == 1
    await held.free()
    await spawn.idle()
    assert started == ["kept"]
    assert [m.text for m in emu.channel_messages(CHANNEL)] == ["kept"]


async def test_queued_work_that_makes_no_call_passes_its_turn_on(
    emu: SlackEmulator, client: SlackClient
) -> None:
    posts = ChannelPosts(client)
    spawn = _Spawner()

    async def nothing(turn: QueuedTurn) -> None:
        await asyncio.sleep(0)  # e.g. another replica holds the ask's lease

    posts.pacing.queue(CHANNEL, Turn.POST, nothing, spawn=spawn, order=1.0)
    await spawn.idle()
    await asyncio.wait_for(posts.post_message(Turn.POST, channel=CHANNEL, text="next"), 5)
    assert [m.text for m in emu.channel_messages(CHANNEL)] == ["next"]


async def test_queued_work_is_not_started_once_tasks_are_refused(
    emu: SlackEmulator, client: SlackClient
) -> None:
    posts = ChannelPosts(client)

    def refuse(work: Coroutine[Any, Any, None]) -> None:
        work.close()  # the app is shutting down: the ask stays pending in the store

    async def never(turn: QueuedTurn) -> None:
        raise AssertionError("started after shutdown")

    posts.pacing.queue(CHANNEL, Turn.POST, never, spawn=refuse, order=1.0)
    await asyncio.wait_for(posts.post_message(Turn.POST, channel=CHANNEL, text="next"), 5)
    assert [m.text for m in emu.channel_messages(CHANNEL)] == ["next"]


def _queue_posts(
    posts: ChannelPosts, spawn: _Spawner, agent: str, orders: list[int], turn: Turn = Turn.POST
) -> None:
    """Queue one post per order for `agent`, each text `agent` + its order (e.g. "a1")."""
    for n in orders:
        posts.pacing.queue(
            CHANNEL, turn, _post_as(posts, agent, n, turn), spawn=spawn, agent=agent, order=n
        )


def _post_as(
    posts: ChannelPosts, agent: str, n: int, turn: Turn = Turn.POST
) -> Callable[[QueuedTurn], Awaitable[None]]:
    async def work(on: QueuedTurn) -> None:
        await posts.post_message(
            turn, channel=CHANNEL, text=f"{agent}{n}", agent=agent, order=n, on=on
        )

    return work


async def test_queued_posts_take_turns_across_agents(
    emu: SlackEmulator, client: SlackClient
) -> None:
    posts = ChannelPosts(client)
    spawn = _Spawner()
    held = await _Held.lane(posts)
    _queue_posts(posts, spawn, "a", [1, 2, 3, 4, 5])
    _queue_posts(posts, spawn, "b", [6, 7])
    _queue_posts(posts, spawn, "c", [8])
    await held.free()
    await spawn.idle()
    texts = [m.text for m in emu.channel_messages(CHANNEL)]
    assert texts == ["a1", "b6", "c8", "a2", "b7", "a3", "a4", "a5"]


async def test_each_agents_posts_go_in_their_creation_order(
    emu: SlackEmulator, client: SlackClient
) -> None:
    posts = ChannelPosts(client)
    spawn = _Spawner()
    held = await _Held.lane(posts)
    _queue_posts(posts, spawn, "a", [3, 1, 2])  # their tasks reach the lane in another order
    _queue_posts(posts, spawn, "b", [9, 4])
    await held.free()
    await spawn.idle()
    assert [m.text for m in emu.channel_messages(CHANNEL)] == ["a1", "b4", "a2", "b9", "a3"]


async def test_an_agent_queueing_during_anothers_burst_is_posted_next(
    emu: SlackEmulator, client: SlackClient
) -> None:
    posts = ChannelPosts(client)
    spawn = _Spawner()

    async def fifth(on: QueuedTurn) -> None:
        # The other agent's ask arrives while the burst's fifth post holds the turn.
        _queue_posts(posts, spawn, "b", [1000])
        await _post_as(posts, "a", 5)(on)

    held = await _Held.lane(posts)
    for n in range(1, 21):
        work = fifth if n == 5 else _post_as(posts, "a", n)
        posts.pacing.queue(CHANNEL, Turn.POST, work, spawn=spawn, agent="a", order=n)
    await held.free()
    await spawn.idle()
    texts = [m.text for m in emu.channel_messages(CHANNEL)]
    assert texts[:7] == ["a1", "a2", "a3", "a4", "a5", "b1000", "a6"]
    assert len(texts) == 21


async def test_agents_take_turns_at_their_roots_too(
    emu: SlackEmulator, client: SlackClient
) -> None:
    posts = ChannelPosts(client)
    spawn = _Spawner()
    held = await _Held.lane(posts)
    _queue_posts(posts, spawn, "a", [1, 2, 3], Turn.ROOT)
    _queue_posts(posts, spawn, "b", [4], Turn.ROOT)
    await held.free()
    await spawn.idle()
    assert [m.text for m in emu.channel_messages(CHANNEL)] == ["a1", "b4", "a2", "a3"]


async def test_updates_then_roots_go_before_every_agents_posts(
    emu: SlackEmulator, client: SlackClient
) -> None:
    posts = ChannelPosts(client)
    spawn = _Spawner()
    first = await posts.post_message(Turn.POST, channel=CHANNEL, text="ask")
    held = await _Held.lane(posts)
    _queue_posts(posts, spawn, "a", [1, 2])
    _queue_posts(posts, spawn, "b", [3])
    _queue_posts(posts, spawn, "c", [4], Turn.ROOT)

    async def close(on: QueuedTurn) -> None:
        update = lambda: client.chat_update(channel=CHANNEL, ts=first["ts"], text="decided")  # noqa: E731
        await posts.pacing.send(CHANNEL, Turn.CLOSE, update, on=on)

    posts.pacing.queue(CHANNEL, Turn.CLOSE, close, spawn=spawn)
    await held.free()
    await spawn.idle()
    order = [c.params.get("text") for c in emu.calls if c.ok and c.method.startswith("chat.")]
    assert order == ["ask", "decided", "c4", "a1", "b3", "a2"]


async def test_a_post_refused_with_429_keeps_its_agents_turn(
    emu: SlackEmulator, client: SlackClient
) -> None:
    posts = ChannelPosts(client)
    spawn = _Spawner()
    held = await _Held.lane(posts)
    _queue_posts(posts, spawn, "a", [1, 2])
    _queue_posts(posts, spawn, "b", [3])
    emu.inject("chat.postMessage", RateLimited(retry_after=0))
    await held.free()
    await spawn.idle()
    calls = [(c.status, c.params.get("text")) for c in emu.calls_to("chat.postMessage")]
    assert calls == [(429, "a1"), (200, "a1"), (200, "b3"), (200, "a2")]


async def test_a_dropped_post_leaves_its_agents_turn_to_the_next_agent(
    emu: SlackEmulator, client: SlackClient
) -> None:
    posts = ChannelPosts(client)
    spawn = _Spawner()
    held = await _Held.lane(posts)
    posts.pacing.queue(
        CHANNEL, Turn.POST, _post_as(posts, "a", 1), spawn=spawn, key="a1", agent="a", order=1
    )
    _queue_posts(posts, spawn, "b", [2, 3])
    posts.pacing.drop(CHANNEL, "a1")
    assert posts.pacing.queued(CHANNEL) == 2
    await held.free()
    await spawn.idle()
    assert [m.text for m in emu.channel_messages(CHANNEL)] == ["b2", "b3"]


async def test_a_post_waiting_out_a_429_gives_up_its_turn_when_shutdown_begins(
    emu: SlackEmulator, client: SlackClient
) -> None:
    posts = ChannelPosts(client)
    emu.inject("chat.postMessage", RateLimited(retry_after=60))
    post = asyncio.create_task(posts.post_message(Turn.POST, channel=CHANNEL, key="a1", text="a1"))
    await emu.wait_for_call("chat.postMessage")
    posts.pacing.stop()
    async with asyncio.timeout(5):  # a guard: without `stop` it would wait the 60 s out
        with pytest.raises(Dropped):
            await post
    assert [c.status for c in emu.calls_to("chat.postMessage")] == [429]


async def test_once_stopped_posts_are_refused_at_once_and_updates_still_go(
    emu: SlackEmulator, client: SlackClient
) -> None:
    posts = ChannelPosts(client)
    posted = await posts.post_message(Turn.POST, channel=CHANNEL, text="before")
    posts.pacing.stop()
    with pytest.raises(Dropped):
        await posts.post_message(Turn.POST, channel=CHANNEL, key="a2", text="after")
    await posts.update(channel=CHANNEL, ts=str(posted["ts"]), text="closed")
    assert [m.text for m in emu.channel_messages(CHANNEL)] == ["closed"]
