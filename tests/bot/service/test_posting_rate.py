"""A burst of asks at Slack's posting rate: they queue in their channel, none fails."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import aiohttp
import pytest

from bot.service.server import Server
from bot.slack.messages import METADATA_EVENT
from bot.slack.threads import ROOT_METADATA_EVENT
from bot.store import AskRecord
from bot.store.sqlite import SqliteStore
from provider import AskUserQuestionItem
from slack_emulator import PostingRate, SlackEmulator, Slow

from ..harness import CHANNEL
from .harness import in_process, relay

QUESTION = {"id": "go", "question": "Go ahead?", "options": [{"label": "Yes"}, {"label": "No"}]}
# Slack's shape (a short burst, then a steady rate) at 20 posts a second, so it takes seconds.
FAST_SLACK = PostingRate(per_second=20.0, burst=3)
ASKS = 100
# Slow enough that posting the stored asks takes seconds, one at a time.
SLOW_SLACK = PostingRate(per_second=10.0, burst=1)
STORED = 20
BURST = 400
BUILDER = {"id": "session-builder", "name": "builder"}
REVIEWER = {"id": "session-reviewer", "name": "reviewer"}


def posted(emu: SlackEmulator) -> list[str]:
    """The ids of the asks Slack took a post of, in the order it took them."""
    return [
        c.params["metadata"]["event_payload"]["ask_id"]
        for c in emu.calls_to("chat.postMessage")
        if c.ok and c.params.get("metadata", {}).get("event_type") == METADATA_EVENT
    ]


def posts_seen(emu: SlackEmulator) -> list[str]:
    """Every post Slack took, in its order: an ask's id, or "root <session>" for a root."""
    seen = []
    for call in emu.calls_to("chat.postMessage"):
        metadata = call.params.get("metadata", {})
        if not call.ok:
            continue
        if metadata.get("event_type") == ROOT_METADATA_EVENT:
            seen.append(f"root {metadata['event_payload']['session']}")
        elif metadata.get("event_type") == METADATA_EVENT:
            seen.append(metadata["event_payload"]["ask_id"])
    return seen


# Timed against Slack's rate: it runs in CI's serial run of the marked tests, where no other
# test competes for the cores.
@pytest.mark.slow
async def test_a_hundred_asks_in_one_channel_are_all_posted_in_order_at_the_allowed_rate(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    emu.limit_posting(FAST_SLACK)
    started = time.monotonic()
    ids = []
    for _ in range(ASKS):
        status, body = await relay(
            http,
            "POST",
            f"{server.url}/v1/asks",
            json={"questions": [QUESTION], "agent": {"id": "session-1", "name": "builder"}},
        )
        assert status == 201
        ids.append(body["id"])

    await emu.wait_for(lambda: len(posted(emu)) == ASKS, what="every ask posted", within=60)
    elapsed = time.monotonic() - started

    got = posted(emu)
    assert got == ids
    # The thread root and the asks: all but the burst wait for the rate.
    allowed = (ASKS + 1 - FAST_SLACK.burst) / FAST_SLACK.per_second
    assert allowed * 0.95 <= elapsed <= allowed * 1.10
    for ask_id in ids:
        _, view = await relay(http, "GET", f"{server.url}/v1/asks/{ask_id}")
        assert (view["state"], view.get("error")) == ("pending", None)


async def test_an_ask_still_queued_shows_queued_to_the_agent_and_withdraws_unposted(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    emu.limit_posting(PostingRate(per_second=0.5, burst=1))
    ids = []
    for _ in range(3):
        _, body = await relay(http, "POST", f"{server.url}/v1/asks", json={"questions": [QUESTION]})
        ids.append(body["id"])
    await emu.wait_for(
        lambda: any(c.status == 429 for c in emu.calls_to("chat.postMessage")),
        what="the channel at its rate",
    )
    _, last = await relay(http, "GET", f"{server.url}/v1/asks/{ids[2]}")
    assert last == {"id": ids[2], "state": "pending", "detail": "queued", "policy": "default"}

    status, withdrawn = await relay(http, "DELETE", f"{server.url}/v1/asks/{ids[2]}")
    assert (status, withdrawn["state"], withdrawn["error"]["code"]) == (
        200,
        "failed",
        "ASK_ABORTED",
    )
    texts = [m.text for m in emu.channel_messages(CHANNEL)]
    assert len(texts) == 1, "only the first ask got its turn; the withdrawn one never will"


async def test_a_thousand_asks_queued_in_one_channel_hold_no_task_each(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    emu.limit_posting(PostingRate(per_second=0.5, burst=1))
    gate = asyncio.Semaphore(8)

    async def ask() -> str:
        async with gate:
            status, body = await relay(
                http, "POST", f"{server.url}/v1/asks", json={"questions": [QUESTION]}
            )
        assert status == 201
        return str(body["id"])

    ids = await asyncio.gather(*(ask() for _ in range(1000)))
    # A few asks are posted; the others wait their turn as queue entries: the work in
    # flight (one post waiting out Slack's 429) and the status line are all that run.
    await emu.wait_for(lambda: len(server.provider.tasks) <= 2, what="placing done")
    assert len(asyncio.all_tasks()) < 50
    assert len(emu.channel_messages(CHANNEL)) < 100
    _, last = await relay(http, "GET", f"{server.url}/v1/asks/{ids[-1]}")
    assert last == {"id": ids[-1], "state": "pending", "detail": "queued", "policy": "default"}


async def test_a_restart_with_unposted_asks_listens_at_once_then_posts_them_in_order(
    emu: SlackEmulator, http: aiohttp.ClientSession, tmp_path: Path
) -> None:
    ids = [f"unposted-{n:02d}" for n in range(STORED)]
    async with SqliteStore(tmp_path / "asks.db") as store:  # what a crash left behind
        for n, ask_id in enumerate(ids):
            await store.add(
                AskRecord(
                    id=ask_id,
                    questions=[AskUserQuestionItem.model_validate(QUESTION)],
                    created_at=1_700_000_000.0 + n,
                    channel=CHANNEL,
                )
            )
    emu.limit_posting(SLOW_SLACK)
    async with in_process(emu, tmp_path / "asks.db") as server:
        async with http.get(f"{server.url}/healthz") as response:
            assert response.status == 200
        assert len(posted(emu)) < STORED, "start-up did not wait for Slack's rate"

        await emu.wait_for(lambda: len(posted(emu)) == STORED, what="every ask posted", within=30)
        assert posted(emu) == ids


async def test_four_hundred_asks_from_one_agent_delay_another_agents_ask_by_one_post_at_most(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    async def ask(agent: dict[str, str]) -> str:
        status, body = await relay(
            http, "POST", f"{server.url}/v1/asks", json={"questions": [QUESTION], "agent": agent}
        )
        assert status == 201
        return str(body["id"])

    async def placed(*ask_ids: str) -> None:
        # An ask is placed in its session's thread, then queued, by its "place" task.
        names = {f"place {ask_id}" for ask_id in ask_ids}
        await asyncio.gather(*(t for t in asyncio.all_tasks() if t.get_name() in names))

    lane = server.parts.posts.pacing
    opened = [await ask(REVIEWER), await ask(BUILDER)]  # both threads open
    await emu.wait_for(lambda: posted(emu) == opened, what="each agent's first ask posted")
    # Slack holds the burst's first post: the rest of the burst waits in the lane behind it.
    held = asyncio.Event()
    emu.inject("chat.postMessage", Slow(60, held))
    gate = asyncio.Semaphore(8)

    async def burst() -> str:
        async with gate:
            return await ask(BUILDER)

    await placed(*await asyncio.gather(*(burst() for _ in range(BURST))))
    await emu.wait_for(lambda: emu.held("chat.postMessage") == 1, what="the burst's first post")
    assert lane.queued(CHANNEL) == BURST - 1

    urgent = await ask(REVIEWER)
    await placed(urgent)
    assert lane.queued(CHANNEL) == BURST
    held.set()
    await emu.wait_for(lambda: urgent in posted(emu), what="the reviewer's ask posted")

    # After the two threads (two roots, two asks): the post in flight when it was queued,
    # then the reviewer's ask, not the builder's 399 others.
    seen = posts_seen(emu)[4:]
    assert seen.index(urgent) == 1
    assert seen[0] != urgent
