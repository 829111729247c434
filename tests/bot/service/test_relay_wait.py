"""The relay's held-open `GET /v1/asks/{id}?wait=S`: woken by the settle with its record,
nothing read and no task of its own; answered at once when the relay closes."""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp
import pytest

from bot.service.server import Server
from bot.store import AskRecord
from slack_emulator import SlackEmulator

from ..harness import ALICE
from .harness import relay
from .test_relay import DB, posted


async def created(server: Server, http: aiohttp.ClientSession, emu: SlackEmulator) -> str:
    """A posted, pending ask's id."""
    _, body = await relay(http, "POST", f"{server.url}/v1/asks", json={"questions": [DB]})
    await posted(emu)
    await server.provider.idle()
    return str(body["id"])


async def held(
    server: Server, http: aiohttp.ClientSession, ask_id: str, wait: str
) -> asyncio.Task[tuple[int, Any]]:
    """A `GET ?wait=` on `ask_id`, once it is held open (waiting on the ask)."""
    waiters = server.provider.asks.waiters
    before = waiters.waiting(ask_id)
    entered = asyncio.Event()
    wait_on = waiters.wait

    async def wait_noted(key: str, *, held: bool = False) -> AskRecord:
        entered.set()  # we run on into the wait, which enters before it first suspends
        return await wait_on(key, held=held)

    waiters.wait = wait_noted  # type: ignore[method-assign,assignment]
    try:
        get = asyncio.create_task(
            relay(http, "GET", f"{server.url}/v1/asks/{ask_id}", params={"wait": wait})
        )
        async with asyncio.timeout(5.0):
            await entered.wait()
    finally:
        del waiters.wait  # the class's own again
    assert waiters.waiting(ask_id) == before + 1
    return get


def counting_reads(server: Server, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids the service's store is asked for from now on."""
    reads: list[str] = []
    read = server.store.get

    async def get(ask_id: str) -> AskRecord | None:
        reads.append(ask_id)
        return await read(ask_id)

    monkeypatch.setattr(server.store, "get", get)
    return reads


async def test_a_held_get_is_answered_with_the_settled_record_and_nothing_is_read(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    ask_id = await created(server, http, emu)
    reads = counting_reads(server, monkeypatch)
    waiting = await held(server, http, ask_id, "30")
    await emu.person(ALICE).click(await posted(emu), text="SQLite")
    assert await waiting == (
        200,
        {
            "id": ask_id,
            "state": "answered",
            "answer": {"answers": [{"id": "db", "selected": ["SQLite"]}]},
            "decided_by": ALICE,
            "policy": "default",
        },
    )
    assert ask_id not in reads


async def test_a_pending_ask_holds_no_waiter_until_a_get_waits_on_it(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    ask_id = await created(server, http, emu)
    waiters = server.provider.asks.waiters
    assert waiters.waiting(ask_id) == 0
    waiting = await held(server, http, ask_id, "30")
    assert waiters.waiting(ask_id) == 1
    await emu.person(ALICE).click(await posted(emu), text="SQLite")
    await waiting
    assert waiters.waiting() == 0


async def test_a_held_get_waits_in_its_request_task_and_starts_no_task(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    ask_id = await created(server, http, emu)
    before = asyncio.all_tasks()
    waiting = await held(server, http, ask_id, "30")
    started = asyncio.all_tasks() - before - {waiting}
    # aiohttp's own (the connection's, the request's), none of the relay's.
    coroutines = {task.get_coro().__qualname__ for task in started}  # type: ignore[union-attr]
    assert coroutines <= {"RequestHandler.start", "RequestHandler._handle_request"}
    await emu.person(ALICE).click(await posted(emu), text="SQLite")
    await waiting
    await server.provider.idle()
    left = {task.get_coro().__qualname__ for task in asyncio.all_tasks() - before - {waiting}}  # type: ignore[union-attr]
    assert left <= {"RequestHandler.start"}  # kept-alive connections, nothing else


async def test_a_held_get_answers_pending_when_its_wait_runs_out(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    ask_id = await created(server, http, emu)
    status, view = await relay(
        http, "GET", f"{server.url}/v1/asks/{ask_id}", params={"wait": "0.05"}
    )
    assert (status, view) == (200, {"id": ask_id, "state": "pending", "policy": "default"})
    assert server.provider.asks.waiters.waiting() == 0


async def test_a_wait_on_an_unknown_ask_is_404_at_once(
    server: Server, http: aiohttp.ClientSession
) -> None:
    async with asyncio.timeout(5):  # not the 30 s it asks to wait
        status, problem = await relay(
            http, "GET", f"{server.url}/v1/asks/nope", params={"wait": "30"}
        )
    assert (status, problem["error"]["code"]) == (404, "NOT_FOUND")


async def test_closing_the_relay_answers_every_held_get_at_once_with_its_state(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    ask_id = await created(server, http, emu)
    gets = [await held(server, http, ask_id, "60") for _ in range(3)]
    server.relay.close()
    async with asyncio.timeout(5):  # not the 60 s they asked to wait
        answers = await asyncio.gather(*gets)
    assert answers == [(200, {"id": ask_id, "state": "pending", "policy": "default"})] * 3
    assert server.provider.asks.waiters.waiting() == 0


async def test_once_the_relay_closed_a_wait_answers_at_once(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    ask_id = await created(server, http, emu)
    server.relay.close()
    async with asyncio.timeout(5):
        status, view = await relay(
            http, "GET", f"{server.url}/v1/asks/{ask_id}", params={"wait": "60"}
        )
    assert (status, view) == (200, {"id": ask_id, "state": "pending", "policy": "default"})


async def test_two_gets_held_on_one_ask_both_get_the_answer(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    ask_id = await created(server, http, emu)
    first = await held(server, http, ask_id, "30")
    second = await held(server, http, ask_id, "30")
    await emu.person(ALICE).click(await posted(emu), text="Postgres")
    views = [view for _, view in await asyncio.gather(first, second)]
    assert [(v["state"], v["answer"]) for v in views] == [
        ("answered", {"answers": [{"id": "db", "selected": ["Postgres"]}]})
    ] * 2
