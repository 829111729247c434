"""kill -9 of `python -m bot` at each step of an ask's life: nothing lost, nothing posted twice,
and every acked click answers the ask after the restart.

Each kill lands at a known step: a `Slow` fault holds the Web API call of that step in the
emulator, and the test kills the service once the emulator has the call in hand.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import AsyncIterator
from contextlib import closing
from pathlib import Path

import aiohttp
import pytest

from bot.store import AskRecord, AskState
from bot.store.sqlite import SqliteStore
from slack_emulator import ApiCall, SlackEmulator, Slow

from ..harness import ALICE, REVIEWERS
from .harness import Process, free_port, relay, service_env
from .test_relay import DB, ask_posts, posted

HOLD = 10.0  # at most, a held call waits in the emulator: the kill lands inside it
# (the test ends the hold, `released`, once the kill has landed, instead of waiting it out)


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


async def create(http: aiohttp.ClientSession, service: Process) -> str:
    status, body = await relay(http, "POST", f"{service.url}/v1/asks", json={"questions": [DB]})
    assert status == 201
    return str(body["id"])


async def answered(http: aiohttp.ClientSession, service: Process, ask_id: str) -> AskRecord:
    """The ask once settled, read back through the relay and then from the file."""
    status, body = await relay(http, "GET", f"{service.url}/v1/asks/{ask_id}?wait=20")
    assert (status, body["state"]) == (200, "answered"), body
    async with SqliteStore(Path(service.env["SLACK_QUESTIONS_DB"])) as store:
        record = await store.get(ask_id)
    assert record is not None
    return record


async def stopped_with_an_empty_inbox(service: Process) -> None:
    """SIGTERM (handlers in flight finish), then nothing is left to replay."""
    assert await service.stop() == 0
    async with SqliteStore(Path(service.env["SLACK_QUESTIONS_DB"])) as store:
        assert await store.inbox_pending() == []


async def restarted(service: Process, emu: SlackEmulator) -> None:
    await service.kill()
    await service.start()  # same file, same port
    emu.request_url = f"{service.url}/slack/events"


async def test_a_kill_right_after_the_201_posts_the_ask_once_after_the_restart(
    emu: SlackEmulator, tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    service = Process(service_env(emu, tmp_path / "asks.db", free_port()))
    await service.start()
    try:
        ask_id = await create(http, service)
        await restarted(service, emu)  # the post may or may not have left: either is fine
        await emu.person(ALICE).click(await posted(emu), text="SQLite")
        record = await answered(http, service, ask_id)
    finally:
        await stopped_with_an_empty_inbox(service)
    assert record.answer is not None
    assert record.answer.answers[0].selected == ["SQLite"]
    assert len(ask_posts(emu)) == 1


async def test_a_kill_while_the_post_is_in_slacks_hands_posts_nothing_twice(
    emu: SlackEmulator, tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    service = Process(service_env(emu, tmp_path / "asks.db", free_port()))
    await service.start()
    emu.request_url = f"{service.url}/slack/events"
    try:
        released = asyncio.Event()
        emu.inject("chat.postMessage", Slow(HOLD, released))
        ask_id = await create(http, service)
        await emu.wait_for(lambda: emu.held("chat.postMessage") == 1, what="the post in flight")
        await service.kill()
        released.set()
        # Slack stores the message although its reply finds nobody: we never recorded it.
        message = await posted(emu)
        await service.start()
        await emu.person(ALICE).click(message, text="Postgres")
        record = await answered(http, service, ask_id)
    finally:
        await stopped_with_an_empty_inbox(service)
    assert record.message_ts == [message.ts]
    assert len(ask_posts(emu)) == 1


async def test_a_click_acked_right_before_a_kill_answers_the_ask_after_the_restart(
    emu: SlackEmulator, tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    # Answering needs the reviewers group's members: the click's handler asks Slack for them
    # after the ack, and the kill lands while that call is held.
    env = service_env(emu, tmp_path / "asks.db", free_port(), SLACK_QUESTIONS_RESPONDERS=REVIEWERS)
    service = Process(env)
    await service.start()
    emu.request_url = f"{service.url}/slack/events"
    try:
        ask_id = await create(http, service)
        message = await posted(emu)
        released = asyncio.Event()
        emu.inject("usergroups.users.list", Slow(HOLD, released))
        delivery = await emu.person(ALICE).click(message, text="Postgres")
        assert delivery.acked
        await emu.wait_for(
            lambda: emu.held("usergroups.users.list") == 1, what="the handler's lookup"
        )
        async with SqliteStore(tmp_path / "asks.db") as store:
            assert (await store.get(ask_id)) is not None
            assert [r.state for r in await store.recent()] == [AskState.PENDING]
        await restarted(service, emu)
        released.set()
        record = await answered(http, service, ask_id)
    finally:
        await stopped_with_an_empty_inbox(service)
    assert record.answer is not None
    assert record.answer.answers[0].selected == ["Postgres"]
    assert record.decided_by == ALICE
    assert len(ask_posts(emu)) == 1


async def test_a_pick_decided_before_its_ack_is_answered_before_a_kill_and_shown_after(
    emu: SlackEmulator, tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    # Anyone may answer: the click is settled before its ack, and the kill lands while the
    # update showing the decision is held.
    service = Process(service_env(emu, tmp_path / "asks.db", free_port()))
    await service.start()
    emu.request_url = f"{service.url}/slack/events"
    try:
        ask_id = await create(http, service)
        message = await posted(emu)
        # Clicked once the post is saved: a pick arriving while it is being saved is kept
        # in the inbox instead (its ack must not wait for the post's lock).
        await emu.wait_for(
            lambda: saved_as_posted(tmp_path / "asks.db", ask_id), what="the post saved"
        )
        released = asyncio.Event()
        emu.inject("chat.update", Slow(HOLD, released))
        delivery = await emu.person(ALICE).click(message, text="Postgres")
        assert delivery.acked
        await emu.wait_for(lambda: emu.held("chat.update") == 1, what="the decision's update")
        async with SqliteStore(tmp_path / "asks.db") as store:
            assert [r.state for r in await store.recent()] == [AskState.ANSWERED]
            assert await store.inbox_pending() == []
        await restarted(service, emu)
        released.set()
        record = await answered(http, service, ask_id)
        # The held update (from the killed process) and the restart's own, which marks it shown.
        await emu.wait_for(
            lambda: sum(c.ok for c in emu.calls_to("chat.update")) == 2,
            what="the decision shown again",
        )
    finally:
        await stopped_with_an_empty_inbox(service)
    async with SqliteStore(tmp_path / "asks.db") as store:
        assert (shown := await store.get(ask_id)) is not None
        assert shown.shown
    assert record.answer is not None
    assert record.answer.answers[0].selected == ["Postgres"]
    assert record.decided_by == ALICE
    assert len(ask_posts(emu)) == 1


async def test_every_acked_click_of_a_burst_killed_mid_way_is_answered_once(
    emu: SlackEmulator, tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    env = service_env(emu, tmp_path / "asks.db", free_port(), SLACK_QUESTIONS_RESPONDERS=REVIEWERS)
    service = Process(env)
    await service.start()
    emu.request_url = f"{service.url}/slack/events"
    try:
        ids = [await create(http, service) for _ in range(3)]
        await emu.wait_for(lambda: len(ask_posts(emu)) == 3, what="three asks posted")
        messages = [await posted(emu, n) for n in (1, 2, 3)]
        released = asyncio.Event()
        emu.inject("usergroups.users.list", Slow(HOLD, released), times=None)
        deliveries = await asyncio.gather(
            *(emu.person(ALICE).click(m, text="SQLite") for m in messages)
        )
        assert all(d.acked for d in deliveries)
        await restarted(service, emu)
        emu.clear_faults()
        released.set()  # the lookups held since before the kill, and any the restart made
        records = [await answered(http, service, ask_id) for ask_id in ids]
    finally:
        await stopped_with_an_empty_inbox(service)
    assert [r.answer.answers[0].selected if r.answer else None for r in records] == [["SQLite"]] * 3
    assert len(ask_posts(emu)) == 3


async def test_a_kill_while_the_thread_root_is_in_slacks_hands_leaves_one_root(
    emu: SlackEmulator, tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    service = Process(service_env(emu, tmp_path / "asks.db", free_port()))
    await service.start()
    emu.request_url = f"{service.url}/slack/events"
    try:
        released = asyncio.Event()
        # The first post: the session's root.
        emu.inject("chat.postMessage", Slow(HOLD, released))
        status, _ = await relay(
            http,
            "POST",
            f"{service.url}/v1/asks",
            json={"questions": [DB], "agent": {"id": "session-1", "name": "Planner"}},
        )
        assert status == 201
        await emu.wait_for(lambda: emu.held("chat.postMessage") == 1, what="the root in flight")
        await service.kill()
        released.set()
        await emu.wait_for_call("chat.postMessage")
        await service.start()
        await posted(emu)
    finally:
        await stopped_with_an_empty_inbox(service)
    roots = [
        c
        for c in emu.calls_to("chat.postMessage")
        if c.ok and not c.params.get("thread_ts") and c not in ask_calls(emu)
    ]
    assert len(roots) == 1


def ask_calls(emu: SlackEmulator) -> list[ApiCall]:
    return [
        c
        for c in emu.calls_to("chat.postMessage")
        if (c.params.get("metadata") or {}).get("event_type") == "slack_questions_ask"
    ]


def saved_as_posted(db: Path, ask_id: str) -> bool:
    """Whether the service has saved the ask's message as posted (read as another process)."""
    with closing(sqlite3.connect(db)) as conn:
        row = conn.execute("SELECT record FROM asks WHERE id = ?", (ask_id,)).fetchone()
    return row is not None and bool(json.loads(row[0])["message_ts"])
