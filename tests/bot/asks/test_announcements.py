"""Two replicas' `Announcements` on one store: a rule's decision is told once in its
session's thread, whichever replica posts the line; the sweep takes over only a decision
its own replica left untold for a while."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from bot.asks.announcements import SWEEP_EVERY_S, Announcements
from bot.asks.lifecycle import Asks
from bot.asks.observers import Observers
from bot.review import ReviewPolicies, ToolRule
from bot.slack.api import web_client
from bot.slack.lines import LINE_METADATA_EVENT, ThreadLines
from bot.slack.messages import AskMessages
from bot.slack.pacing import ChannelPosts
from bot.slack.threads import Threads
from bot.store import EventKind, ThreadRef
from bot.store.leases import Leases
from bot.store.sqlite import SqliteStore
from bot.tasks import Tasks
from provider import AskUserQuestionItem, AskUserQuestionRequest
from slack_emulator import ManualClock, SlackEmulator

from ..harness import CHANNEL, TOKEN
from .test_replicas import busy_lane

POLICIES = ReviewPolicies(
    tools=(
        ToolRule(name="git-read-only", tool="Bash", args={"command": "git *"}, decision="allow"),
    )
)
CALL = AskUserQuestionItem.model_validate(
    {
        "id": "approve",
        "question": "Allow Bash: git status?",
        "options": [{"label": "Allow"}, {"label": "Deny"}],
        "intent": {
            "kind": "tool-approval",
            "allow": "Allow",
            "tool": "Bash",
            "input": {"command": "git status"},
            "session": "s1",
        },
    }
)
LINE = "✅ auto-allowed by rule `git-read-only`: Bash `git status`"


@dataclass
class Replica:
    """One replica's asks and announcements, its store connection and its channel lanes."""

    asks: Asks
    announcements: Announcements
    store: SqliteStore
    posts: ChannelPosts
    tasks: Tasks


@asynccontextmanager
async def replica(
    emu: SlackEmulator, db: Path, name: str, clock: ManualClock
) -> AsyncIterator[Replica]:
    """A replica on the SQLite file `db`, shared with the others (`shared=True`)."""
    client = web_client(TOKEN, base_url=emu.api_url)
    async with SqliteStore(db) as store:
        posts = ChannelPosts(client)
        tasks = Tasks()
        leases = Leases(store, name, clock=clock, shared=True)
        messages = AskMessages(client, store, POLICIES, clock, posts=posts)
        observers = Observers()
        asks = Asks(
            store=store,
            messages=messages,
            observers=observers,
            clock=clock,
            tasks=tasks,
            shared=True,
            policies=POLICIES,
            channel=CHANNEL,
        )
        announcements = Announcements(
            store=store,
            threads=Threads(store, CHANNEL, posts=posts, clock=clock, leases=leases),
            lines=ThreadLines(posts),
            leases=leases,
            tasks=tasks,
            clock=clock,
            observers=observers,
            shared=True,
        )
        observers.add(announcements)
        try:
            yield Replica(asks, announcements, store, posts, tasks)
        finally:
            await tasks.drain()
            if client.session is not None:
                await client.session.close()


def lines(emu: SlackEmulator) -> list[str]:
    """The texts of the automatic lines Slack took."""
    return [
        str(call.params["text"])
        for call in emu.calls_to("chat.postMessage")
        if call.ok and (call.params.get("metadata") or {}).get("event_type") == LINE_METADATA_EVENT
    ]


async def opened(replica: Replica) -> None:
    """The session's thread, opened before the test holds the lane (a root waits there too)."""
    root = await replica.posts.client.chat_postMessage(channel=CHANNEL, text="Claude Code")
    await replica.store.set_thread("s1", ThreadRef(channel=CHANNEL, thread_ts=str(root["ts"])))


async def decide(replica: Replica) -> str:
    """A call the rule allows, decided on `replica`: the agent's answer is stored first."""
    request = AskUserQuestionRequest(questions=[CALL])
    record, created = await replica.asks.create(request, agent_id="s1", agent_name="Claude Code")
    assert (created, record.decided_by) == (True, "rule:git-read-only")
    return record.id


async def test_a_line_waiting_on_its_replica_is_taken_over_by_anothers_sweep_and_told_once(
    emu: SlackEmulator, tmp_path: Path
) -> None:
    clock = ManualClock()
    async with (
        replica(emu, tmp_path / "asks.db", "a", clock) as a,
        replica(emu, tmp_path / "asks.db", "b", clock) as b,
    ):
        await opened(a)
        free, holding = await busy_lane(a.posts)
        ask_id = await decide(a)  # its line waits behind the call in flight on a
        await a.tasks.idle()
        clock.advance(SWEEP_EVERY_S + 1)
        await b.announcements.sweep()  # b finds it untold for too long, and tells it
        await b.tasks.idle()
        assert lines(emu) == [LINE]

        free.set()
        await holding
        await a.tasks.idle()  # a's queued line has had its turn: already told
        told = await a.store.get(ask_id)
        events = await a.store.events(ask_id)
    assert lines(emu) == [LINE]
    assert told is not None
    assert told.shown
    assert [e.kind for e in events].count(EventKind.SHOWN) == 1


async def test_the_sweep_leaves_a_fresh_decision_to_the_replica_telling_it(
    emu: SlackEmulator, tmp_path: Path
) -> None:
    clock = ManualClock()
    async with (
        replica(emu, tmp_path / "asks.db", "a", clock) as a,
        replica(emu, tmp_path / "asks.db", "b", clock) as b,
    ):
        await opened(a)
        free, holding = await busy_lane(a.posts)
        await decide(a)
        await a.tasks.idle()
        await b.announcements.sweep()
        await b.tasks.idle()
        assert lines(emu) == []
        free.set()
        await holding
        await asyncio.wait_for(a.tasks.idle(), 10)
    assert lines(emu) == [LINE]
