"""Issue 23, crashes and replicas, through real `python -m bot` processes: a restart under
another replica name leaves no ask stranded and no live buttons on a settled ask, and two
replicas opening one session at once post one thread root.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import pytest

from bot.asks.posting import POST_LEASE_S
from bot.slack.threads import THREAD_LEASE_S
from bot.store import AskRecord
from bot.store.postgres import PostgresStore
from bot.store.sqlite import SqliteStore
from slack_emulator import Message, SlackEmulator, Slow

from ..harness import ALICE, CHANNEL
from .harness import Process, free_port, relay, service_env
from .slow_proxy import SlowProxy
from .test_relay import DB, ask_posts, posted
from .test_replicas import replica

AGENT = {"id": "session-1", "name": "Planner"}
# At most, Slack holds a call the test kills the service during (released once it has).
IN_FLIGHT_S = 10.0


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


async def create(http: aiohttp.ClientSession, service: Process, **extra: Any) -> str:
    status, body = await relay(
        http, "POST", f"{service.url}/v1/asks", json={"questions": [DB], **extra}
    )
    assert status == 201
    return str(body["id"])


def hold_the_next_post(emu: SlackEmulator) -> asyncio.Event:
    """Hold the next chat.postMessage in Slack's hands until the event is set."""
    released = asyncio.Event()
    emu.inject("chat.postMessage", Slow(IN_FLIGHT_S, released))
    return released


async def killed_while_posting(
    emu: SlackEmulator, service: Process, released: asyncio.Event
) -> None:
    """Kill the service while Slack holds its post (`hold_the_next_post`); Slack then
    stores the message, which nobody records."""
    await emu.wait_for(lambda: emu.held("chat.postMessage") == 1, what="the post in flight")
    await service.kill()
    released.set()
    await emu.wait_for(
        lambda: any(c.ok for c in emu.calls_to("chat.postMessage")), what="the post in Slack"
    )


async def crashed_mid_post(
    emu: SlackEmulator, http: aiohttp.ClientSession, service: Process, **extra: Any
) -> str:
    """Start `service`, ask there, and kill it while Slack holds the post; the ask's id."""
    await service.start()
    released = hold_the_next_post(emu)
    ask_id = await create(http, service, **extra)
    await killed_while_posting(emu, service, released)
    return ask_id


def live_buttons(message: Message) -> bool:
    return any(block.get("type") == "actions" for block in message.blocks)


async def answered(http: aiohttp.ClientSession, service: Process, ask_id: str) -> dict[str, Any]:
    status, view = await relay(http, "GET", f"{service.url}/v1/asks/{ask_id}?wait=20")
    assert (status, view["state"]) == (200, "answered"), view
    return dict(view)


# --- 1. a restart under another replica name strands nothing --------------------------------


async def test_a_restart_on_another_port_posts_an_ask_whose_post_a_kill_left_in_slack_once(
    emu: SlackEmulator, tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    db = tmp_path / "asks.db"
    first = Process(service_env(emu, db, free_port()))
    ask_id = await crashed_mid_post(emu, http, first)
    message = await posted(emu)
    second = Process(service_env(emu, db, free_port()))  # another port: another replica name
    await second.start()
    emu.request_url = f"{second.url}/slack/events"
    try:
        await emu.person(ALICE).click(message, text="Postgres")
        view = await answered(http, second, ask_id)
        await emu.wait_for(lambda: not live_buttons(emu.message(CHANNEL, message.ts)))
    finally:
        assert await second.stop() == 0
    assert view["answer"] == {"answers": [{"id": "db", "selected": ["Postgres"]}]}
    assert len(ask_posts(emu)) == 1


async def test_a_restart_on_another_port_takes_over_a_dead_processs_thread_at_once(
    emu: SlackEmulator, tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    # The kill lands while a new session's root is in Slack's hands: the dead process holds
    # the session's thread lease, under its name (host and old port).
    db = tmp_path / "asks.db"
    first = Process(service_env(emu, db, free_port()))
    await crashed_mid_post(emu, http, first, agent=AGENT)
    second = Process(service_env(emu, db, free_port()))
    await second.start()
    try:
        # Alone on its store, the new process knows the lease holder is dead: it finds the
        # root at once instead of waiting out the lease.
        await emu.wait_for(
            lambda: len(ask_posts(emu)) == 1, within=THREAD_LEASE_S / 2, what="the ask posted"
        )
    finally:
        assert await second.stop() == 0
    [root] = emu.channel_messages(CHANNEL)
    assert [m.thread_ts for m in ask_posts(emu)] == [root.ts]


# Waits out the dead replica's post lease (30 s) by its nature.
@pytest.mark.slow
async def test_a_replica_restarted_under_another_name_records_the_dead_ones_post_once(
    emu: SlackEmulator, postgres_url: str, http: aiohttp.ClientSession
) -> None:
    first = replica(emu, postgres_url, "a")
    ask_id = await crashed_mid_post(emu, http, first)
    message = await posted(emu)
    second = replica(emu, postgres_url, "b")
    await second.start()
    emu.request_url = f"{second.url}/slack/events"
    try:
        # The dead replica's post lease keeps it out until it lapses; the periodic pass
        # then looks for the message (and records it, before a click can settle the ask).
        await emu.wait_for(
            lambda: bool(emu.calls_to("conversations.history")),
            within=POST_LEASE_S + 10,
            what="the message looked for",
        )
        await emu.person(ALICE).click(message, text="SQLite")
        await answered(http, second, ask_id)
        await emu.wait_for(lambda: not live_buttons(emu.message(CHANNEL, message.ts)))
    finally:
        assert await second.stop() == 0
    record = await stored(postgres_url, ask_id)
    assert record.message_ts == [message.ts]
    assert len(ask_posts(emu)) == 1


# --- 2. a click on a message nobody recorded ---------------------------------------------------


async def test_a_click_on_a_dead_replicas_unrecorded_message_shows_the_decision_on_it(
    emu: SlackEmulator, postgres_url: str, http: aiohttp.ClientSession
) -> None:
    first = replica(emu, postgres_url, "a")
    ask_id = await crashed_mid_post(emu, http, first)
    message = await posted(emu)
    # Under another name: the dead replica's post lease keeps the ask unrecorded for now.
    second = replica(emu, postgres_url, "b")
    await second.start()
    emu.request_url = f"{second.url}/slack/events"
    try:
        assert (await emu.person(ALICE).click(message, text="SQLite")).acked
        await answered(http, second, ask_id)
        await emu.wait_for(
            lambda: not live_buttons(emu.message(CHANNEL, message.ts)), what="the decision shown"
        )
    finally:
        assert await second.stop() == 0
    record = await stored(postgres_url, ask_id)
    assert (record.shown, record.message_ts) == (True, [message.ts])
    assert len(ask_posts(emu)) == 1


async def test_a_click_on_an_unrecorded_message_while_its_ask_waits_its_turn_shows_the_decision(
    emu: SlackEmulator, tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    # One process, restarted under its own name: the recovered ask waits its turn in the
    # channel behind an older ask's post, and a click on the dead process's message
    # settles it meanwhile.
    db = tmp_path / "asks.db"
    service = Process(service_env(emu, db, free_port()))
    ask_id = await crashed_mid_post(emu, http, service)
    message = await posted(emu)
    async with SqliteStore(db) as store:
        [record] = await store.recent()
        older = AskRecord(id="older", questions=record.questions, created_at=record.created_at - 1)
        await store.add(older.evolve(channel=CHANNEL))
    ahead = hold_the_next_post(emu)  # the restart's first post: the older ask's
    await service.start()
    emu.request_url = f"{service.url}/slack/events"
    try:
        await emu.wait_for(lambda: emu.held("chat.postMessage") == 2, what="the older post")
        assert (await emu.person(ALICE).click(message, text="SQLite")).acked
        await answered(http, service, ask_id)
        ahead.set()
        await emu.wait_for(
            lambda: not live_buttons(emu.message(CHANNEL, message.ts)), what="the decision shown"
        )
    finally:
        assert await service.stop() == 0
    async with SqliteStore(db) as store:
        shown = await store.get(ask_id)
    assert shown is not None
    assert (shown.shown, shown.message_ts) == (True, [message.ts])
    assert len(ask_posts(emu)) == 2  # the older ask's, and the dead process's: none again


async def stored(postgres_url: str, ask_id: str) -> AskRecord:
    async with PostgresStore(postgres_url) as store:
        record = await store.get(ask_id)
    assert record is not None
    return record


# --- 3. two replicas, one new session ----------------------------------------------------------

SESSIONS = 20
# B's network delay to PostgreSQL, each way: between B's read of "no thread" and its next
# lease attempt lie 100 ms, so A's recording of a thread often falls in between.
B_LATENCY_S = 0.05
# At most, Slack holds A's roots (well inside the thread lease, so A's leases never lapse).
HOLD_S = 5.0


@contextlib.asynccontextmanager
async def a_near_and_b_far(
    emu: SlackEmulator, postgres_url: str
) -> AsyncIterator[tuple[Process, Process]]:
    """Replicas A and B on one database, B's store calls through a slow network."""
    port = urlsplit(postgres_url).port
    assert port is not None
    proxy = SlowProxy(port, B_LATENCY_S)
    async with proxy:
        a, b = replica(emu, postgres_url, "a"), replica(emu, proxy.through(postgres_url), "b")
        await asyncio.gather(a.start(), b.start())
        emu.request_url = f"{a.url}/slack/events"
        try:
            yield a, b
        finally:
            for process in (a, b):
                assert await process.stop() == 0, "".join(process.output)


async def test_two_replicas_opening_each_of_twenty_new_sessions_at_once_post_one_root_each(
    emu: SlackEmulator, postgres_url: str
) -> None:
    async with a_near_and_b_far(emu, postgres_url) as (a, b), aiohttp.ClientSession() as http:

        async def ask(process: Process, session: int) -> None:
            agent = {"id": f"session-{session}", "name": "Planner"}
            status, _ = await relay(
                http, "POST", f"{process.url}/v1/asks", json={"questions": [DB], "agent": agent}
            )
            assert status == 201

        # A opens every session's thread, its roots held in Slack's hands (A holds each
        # session's lease meanwhile); B is asked in the same sessions, finds no thread and
        # waits for one. Then Slack lets A's roots through: A records each thread and gives
        # its lease back while B is between a read and a lease.
        released = asyncio.Event()
        emu.inject("chat.postMessage", Slow(HOLD_S, released), times=None)
        await asyncio.gather(*(ask(a, n) for n in range(SESSIONS)))
        await emu.wait_for(lambda: emu.held("chat.postMessage") == 1, what="A's first root")
        await asyncio.gather(*(ask(b, n) for n in range(SESSIONS)))
        emu.clear_faults()
        released.set()
        await emu.wait_for(
            lambda: len(ask_posts(emu)) == 2 * SESSIONS, within=60, what="every ask posted"
        )
    roots = emu.channel_messages(CHANNEL)
    assert len(roots) == SESSIONS
    # Both asks of each session in its one thread: none under a root of its own.
    threads = [m.thread_ts or "top level" for m in ask_posts(emu)]
    assert sorted(threads) == sorted(2 * [r.ts for r in roots])
