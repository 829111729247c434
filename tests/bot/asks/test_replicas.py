"""Two replicas' `Asks` on one store: an ask queued in one is posted once, whoever posts it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from bot.asks.lifecycle import Asks
from bot.asks.posting import Posting
from bot.clock import SystemClock
from bot.review import ReviewPolicies
from bot.slack.api import web_client
from bot.slack.messages import METADATA_EVENT, AskMessages
from bot.slack.pacing import ChannelPosts, Turn
from bot.slack.threads import Threads
from bot.store import AskRecord, EventKind
from bot.store.leases import Leases
from bot.store.sqlite import SqliteStore
from bot.tasks import Tasks
from provider import AskUserQuestionItem, AskUserQuestionRequest
from slack_emulator import SlackEmulator

from ..harness import CHANNEL, TOKEN

QUESTION = AskUserQuestionItem.model_validate(
    {"id": "db", "question": "Which database?", "options": [{"label": "Postgres"}]}
)


@dataclass
class Replica:
    """One replica's asks, its store connection and its channel lanes."""

    asks: Asks
    posting: Posting
    store: SqliteStore
    posts: ChannelPosts
    tasks: Tasks


@asynccontextmanager
async def replica(emu: SlackEmulator, db: Path, name: str) -> AsyncIterator[Replica]:
    """A replica on the SQLite file `db`, shared with the others (`shared=True`)."""
    client = web_client(TOKEN, base_url=emu.api_url)
    async with SqliteStore(db) as store:
        posts = ChannelPosts(client)
        clock = SystemClock()
        tasks = Tasks()
        leases = Leases(store, name, clock=clock, shared=True)
        messages = AskMessages(client, store, ReviewPolicies(), clock, posts=posts)
        asks = Asks(store=store, messages=messages, clock=clock, tasks=tasks, shared=True)
        posting = Posting(
            asks,
            store=store,
            threads=Threads(store, CHANNEL, posts=posts, clock=clock, leases=leases),
            messages=messages,
            leases=leases,
            clock=clock,
            tasks=tasks,
            shared=True,
        )
        try:
            yield Replica(asks, posting, store, posts, tasks)
        finally:
            await tasks.drain()
            if client.session is not None:
                await client.session.close()


def ask_posts(emu: SlackEmulator) -> list[str]:
    """The ts of every ask part Slack took."""
    return [
        str(call.response["ts"])
        for call in emu.calls_to("chat.postMessage")
        if call.ok and (call.params.get("metadata") or {}).get("event_type") == METADATA_EVENT
    ]


async def busy_lane(posts: ChannelPosts) -> tuple[asyncio.Event, asyncio.Task[bool]]:
    """Hold the replica's lane in CHANNEL (a call in flight) until the event is set."""
    free = asyncio.Event()
    holding = asyncio.create_task(posts.pacing.send(CHANNEL, Turn.POST, free.wait))
    await asyncio.sleep(0)  # its turn is taken
    return free, holding


async def test_an_ask_queued_on_one_replica_and_posted_by_another_is_not_posted_again(
    emu: SlackEmulator, tmp_path: Path
) -> None:
    async with (
        replica(emu, tmp_path / "asks.db", "a") as a,
        replica(emu, tmp_path / "asks.db", "b") as b,
    ):
        free, holding = await busy_lane(a.posts)
        record, _ = await a.asks.create(AskUserQuestionRequest(questions=[QUESTION]))
        a.posting.post_soon(record.id)  # waits its turn behind the call in flight
        await b.posting.sweep()  # b takes it in hand and posts it meanwhile
        await b.tasks.idle()
        assert len(ask_posts(emu)) == 1

        free.set()
        await holding
        await a.tasks.idle()  # a's queued post has had its turn

        assert len(ask_posts(emu)) == 1
        stored = await a.store.get(record.id)
        assert stored is not None
        assert stored.message_ts == ask_posts(emu)
        posted = [e for e in await a.store.events(record.id) if e.kind is EventKind.POSTED]
        assert len(posted) == 1


async def test_a_recovered_ask_found_posted_by_another_replica_records_its_ts_once(
    emu: SlackEmulator, tmp_path: Path
) -> None:
    async with SqliteStore(tmp_path / "asks.db") as store:
        await store.add(
            AskRecord(id="a1", questions=[QUESTION], created_at=1_700_000_000.0, channel=CHANNEL)
        )
    async with (
        replica(emu, tmp_path / "asks.db", "a") as a,
        replica(emu, tmp_path / "asks.db", "b") as b,
    ):
        free, holding = await busy_lane(a.posts)
        # a's copy waits its turn (recovery does not wait for it), stale once b posts it.
        await asyncio.wait_for(a.posting.recover(), 5)
        await b.posting.sweep()
        await b.tasks.idle()
        assert len(ask_posts(emu)) == 1

        free.set()
        await holding
        await a.tasks.idle()

        assert len(ask_posts(emu)) == 1
        stored = await a.store.get("a1")
        assert stored is not None
        assert stored.message_ts == ask_posts(emu)
