"""Two `python -m bot` replicas on one PostgreSQL database (issue 14's acceptance).

Each replica is a real process; the emulator delivers each click to the replica a test names
(`emu.delivering_to`), as a load balancer or Socket Mode would spread them.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from bot.store import AskState, EventKind
from bot.store.postgres import PostgresStore
from provider import AskUserQuestionRequest, RelayProvider
from slack_emulator import SlackEmulator

from ..harness import ALICE, BOB, CAROL, CHANNEL
from .harness import RELAY_TOKEN, Process, free_port, relay, service_env, spawn
from .test_relay import DB, ask_posts, posted

REQUEST = AskUserQuestionRequest.model_validate({"questions": [DB]})
AGENT = {"id": "planner-7", "name": "Release planner"}


def replica(emu: SlackEmulator, postgres_url: str, name: str) -> Process:
    env = service_env(emu, Path("unused.db"), free_port(), SLACK_QUESTIONS_REPLICA=name)
    return Process({**env, "SLACK_QUESTIONS_DB": postgres_url})


@contextlib.asynccontextmanager
async def two_replicas(
    emu: SlackEmulator, postgres_url: str
) -> AsyncIterator[tuple[Process, Process]]:
    """Replicas A and B, started at once on the (empty) database; Slack delivers to A unless
    a test says otherwise."""
    a, b = replica(emu, postgres_url, "a"), replica(emu, postgres_url, "b")
    await asyncio.gather(a.start(), b.start())
    emu.request_url = f"{a.url}/slack/events"
    try:
        yield a, b
    finally:
        for process in (a, b):
            if process.proc is not None and process.proc.returncode is None:
                assert await process.stop() == 0, "".join(process.output)


def events_of(b: Process) -> str:
    return f"{b.url}/slack/events"


async def test_two_replicas_starting_at_once_on_an_empty_database_both_come_up(
    emu: SlackEmulator, postgres_url: str
) -> None:
    async with two_replicas(emu, postgres_url) as (a, b), aiohttp.ClientSession() as http:
        for process in (a, b):
            async with http.get(f"{process.url}/healthz") as response:
                assert response.status == 200
    async with PostgresStore(postgres_url) as store:
        assert await store.recent() == []


async def test_an_ask_made_on_a_is_posted_once_and_a_click_on_b_answers_as_wait(
    emu: SlackEmulator, postgres_url: str
) -> None:
    async with two_replicas(emu, postgres_url) as (a, b), aiohttp.ClientSession() as http:
        status, body = await relay(
            http, "POST", f"{a.url}/v1/asks", json={"questions": [DB], "agent": AGENT}
        )
        assert status == 201
        message = await posted(emu)
        waiting = asyncio.create_task(relay(http, "GET", f"{a.url}/v1/asks/{body['id']}?wait=30"))
        with emu.delivering_to(events_of(b)):
            delivery = await emu.person(ALICE).click(message, text="Postgres")
        assert delivery.acked
        status, view = await asyncio.wait_for(waiting, 20)
    assert (status, view["state"], view["answer"], view["decided_by"]) == (
        200,
        "answered",
        {"answers": [{"id": "db", "selected": ["Postgres"]}]},
        ALICE,
    )
    assert len(ask_posts(emu)) == 1
    assert len(emu.channel_messages(CHANNEL)) == 1  # one thread root


async def test_relay_provider_pointed_at_a_gets_the_answer_of_a_click_on_b(
    emu: SlackEmulator, postgres_url: str
) -> None:
    async with (
        two_replicas(emu, postgres_url) as (a, b),
        RelayProvider(a.url, RELAY_TOKEN) as relay_provider,
    ):
        asking = asyncio.create_task(relay_provider.ask(REQUEST))
        message = await posted(emu)
        with emu.delivering_to(events_of(b)):
            await emu.person(BOB).click(message, text="SQLite")
        answer = await asyncio.wait_for(asking, 20)
    assert answer.to_wire() == {"answers": [{"id": "db", "selected": ["SQLite"]}]}


async def test_an_ask_made_on_a_is_withdrawn_through_b(
    emu: SlackEmulator, postgres_url: str
) -> None:
    async with two_replicas(emu, postgres_url) as (a, b), aiohttp.ClientSession() as http:
        _, body = await relay(http, "POST", f"{a.url}/v1/asks", json={"questions": [DB]})
        await posted(emu)
        waiting = asyncio.create_task(relay(http, "GET", f"{a.url}/v1/asks/{body['id']}?wait=30"))
        status, view = await asyncio.wait_for(
            relay(http, "DELETE", f"{b.url}/v1/asks/{body['id']}"), 20
        )
        assert (status, view["state"], view["error"]["code"]) == (200, "failed", "ASK_ABORTED")
        _, waited = await asyncio.wait_for(waiting, 20)
    assert waited == view


# Seconds of load by its nature (a thousand clicks over two processes): .ci/run runs it.
@pytest.mark.slow
async def test_a_thousand_clicks_raced_over_both_replicas_answer_fifty_asks_once_each(
    emu: SlackEmulator, postgres_url: str
) -> None:
    asks, clicks_per_ask = 50, 20
    people = [ALICE, BOB, CAROL]
    async with two_replicas(emu, postgres_url) as (a, b), aiohttp.ClientSession() as http:
        for _ in range(asks):
            status, _ = await relay(http, "POST", f"{a.url}/v1/asks", json={"questions": [DB]})
            assert status == 201
        await emu.wait_for(lambda: len(ask_posts(emu)) == asks, within=60, what="50 asks")
        messages = ask_posts(emu)
        turns = itertools.count()

        async def click(message_index: int, person: str, target: Process) -> bool:
            with emu.delivering_to(events_of(target)):
                delivery = await emu.person(person).click(messages[message_index], text="Postgres")
            return delivery.acked

        # Waves of five asks, each ask's twenty clicks all at once, spread over A and B: the
        # clicks of a wave all find the buttons (before any of them answers), and two shared
        # cores still ack every one within Slack's three seconds.
        for wave in range(0, asks, 5):
            acked = await asyncio.gather(
                *(
                    click(m, people[n % 3], (a, b)[next(turns) % 2])
                    for m in range(wave, wave + 5)
                    for n in range(clicks_per_ask)
                )
            )
            assert all(acked)

        def told() -> int:
            return sum(len(emu.ephemerals(p)) for p in people)

        try:
            await emu.wait_for(
                lambda: told() >= asks * (clicks_per_ask - 1), within=60, what="every loser told"
            )
        except TimeoutError:
            errors = [
                line for p in (a, b) for line in p.output if "ERROR" in line or "rror" in line
            ]
            raise AssertionError((told(), errors[:10])) from None
        assert told() == asks * (clicks_per_ask - 1)
    async with PostgresStore(postgres_url) as store:
        records = await store.recent(limit=asks)
        answered_events = [
            [e for e in await store.events(r.id) if e.kind is EventKind.ANSWERED] for r in records
        ]
    assert [r.state for r in records] == [AskState.ANSWERED] * asks
    assert [len(events) for events in answered_events] == [1] * asks
    notes = [e.text for p in people for e in emu.ephemerals(p)]
    wrong = [note for note in notes if "already answered by" not in note]
    assert wrong == [], (len(wrong), wrong[:3])
    assert len(ask_posts(emu)) == asks  # none posted twice


async def wait_on(http: aiohttp.ClientSession, urls: list[str], ask_id: str) -> dict[str, object]:
    """A relay client behind a load balancer: a held wait that loses its replica asks the
    next one."""
    for url in itertools.cycle(urls):
        try:
            status, view = await relay(http, "GET", f"{url}/v1/asks/{ask_id}?wait=30")
        except aiohttp.ClientError:
            await asyncio.sleep(0.05)  # a dead replica refuses at once: do not spin
            continue
        assert status == 200
        if view["state"] != "pending":
            return dict(view)
    raise AssertionError("unreachable")


async def test_kill_9_of_a_leaves_b_serving_the_clicks_and_every_waiter_its_answer(
    emu: SlackEmulator, postgres_url: str
) -> None:
    async with two_replicas(emu, postgres_url) as (a, b), aiohttp.ClientSession() as http:
        ids = []
        for _ in range(3):
            status, body = await relay(
                http, "POST", f"{a.url}/v1/asks", json={"questions": [DB], "agent": AGENT}
            )
            assert status == 201
            ids.append(body["id"])
        await emu.wait_for(lambda: len(ask_posts(emu)) == 3, within=20, what="3 asks")
        messages = ask_posts(emu)
        waiters = [asyncio.create_task(wait_on(http, [a.url, b.url], i)) for i in ids]
        await a.kill()
        with emu.delivering_to(events_of(b)):
            for message in messages:
                assert (await emu.person(ALICE).click(message, text="Postgres")).acked
        views = await asyncio.wait_for(asyncio.gather(*waiters), 30)
    assert [(v["state"], v["decided_by"]) for v in views] == [("answered", ALICE)] * 3
    assert len(ask_posts(emu)) == 3  # none posted twice
    assert len(emu.channel_messages(CHANNEL)) == 1  # no second thread root


async def test_an_unreachable_postgresql_fails_start_up_with_exit_2_and_what_to_fix(
    emu: SlackEmulator,
) -> None:
    port = free_port()
    env = service_env(emu, Path("unused.db"), free_port())
    env["SLACK_QUESTIONS_DB"] = f"postgresql://bot:secret-pw@127.0.0.1:{port}/questions"
    proc = await spawn(env)
    output, _ = await asyncio.wait_for(proc.communicate(), 30)
    text = output.decode()
    assert proc.returncode == 2
    assert f"nothing accepts connections at 127.0.0.1:{port}" in text
    assert "secret-pw" not in text
