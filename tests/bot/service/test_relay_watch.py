"""`GET /v1/asks/watch`: one WebSocket waits on many asks, each one a held wait checked and
answered exactly as `GET /v1/asks/{id}?wait=` checks and answers it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.service import relay_watch
from bot.service.server import Server
from bot.store import AskRecord, CredentialLimits
from bot.store.sqlite import StoreError
from slack_emulator import SlackEmulator

from ..harness import ALICE
from .credentials import credential
from .harness import RELAY_TOKEN, in_process, relay
from .test_operations import samples
from .test_relay import DB, posted
from .waits import WaitsHeld, watch_waits


async def create(
    server: Server, http: aiohttp.ClientSession, agent: str | None = None
) -> dict[str, Any]:
    body: dict[str, Any] = {"questions": [DB]}
    if agent is not None:
        body["agent"] = {"id": agent}
    status, created = await relay(http, "POST", f"{server.url}/v1/asks", json=body)
    assert status == 201, created
    return dict(created)


@asynccontextmanager
async def watching(
    server: Server, http: aiohttp.ClientSession, token: str = RELAY_TOKEN
) -> AsyncIterator[aiohttp.ClientWebSocketResponse]:
    headers = {"Authorization": f"Bearer {token}"}
    async with http.ws_connect(f"{server.url}/v1/asks/watch", headers=headers) as socket:
        yield socket


async def frame(socket: aiohttp.ClientWebSocketResponse) -> dict[str, Any]:
    async with asyncio.timeout(10):
        received: dict[str, Any] = await socket.receive_json()
    return received


@pytest.fixture
def waits(server: Server, monkeypatch: pytest.MonkeyPatch) -> WaitsHeld:
    return watch_waits(server, monkeypatch)


async def test_a_watched_ask_is_sent_once_settled_as_its_get_answers_it(
    emu: SlackEmulator, http: aiohttp.ClientSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with in_process(emu, tmp_path / "asks.db", SLACK_QUESTIONS_METRICS="1") as server:
        waits = watch_waits(server, monkeypatch)
        ask = await create(server, http)
        message = await posted(emu)
        async with watching(server, http) as socket:
            await socket.send_json({"watch": [ask["id"]]})
            await waits.until(lambda held: held == 1)
            async with http.get(f"{server.url}/metrics") as response:
                gauge = samples(await response.text())[("slack_questions_relay_waiters", ())]
            held = server.relay.limits.held
            await emu.person(ALICE).click(message, text="SQLite")
            settled = await frame(socket)
        _, got = await relay(http, "GET", f"{server.url}/v1/asks/{ask['id']}")
    assert (gauge, held) == (1, 1)
    assert settled == {"id": ask["id"], "ask": got}
    assert got["answer"] == {"answers": [{"id": "db", "selected": ["SQLite"]}]}


async def test_an_ask_already_settled_is_sent_at_once(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    ask = await create(server, http)
    await posted(emu)
    _, withdrawn = await relay(http, "DELETE", f"{server.url}/v1/asks/{ask['id']}")
    async with watching(server, http) as socket:
        await socket.send_json({"watch": [ask["id"]]})
        assert await frame(socket) == {"id": ask["id"], "ask": withdrawn}
    assert withdrawn["error"]["code"] == "ASK_ABORTED"


async def test_another_agents_ask_is_refused_as_its_get_refuses_it_and_as_an_unknown_one(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator, waits: WaitsHeld
) -> None:
    theirs = await create(server, http, agent="builder")
    await posted(emu)
    token = await credential(server, "reviewer")
    status, got = await relay(http, "GET", f"{server.url}/v1/asks/{theirs['id']}", token=token)
    async with watching(server, http, token) as socket:
        await socket.send_json({"watch": [theirs["id"], "no-such-ask"]})
        frames = [await frame(socket), await frame(socket)]
    assert status == 404
    assert sorted(frames, key=lambda f: str(f["id"])) == [
        {"id": theirs["id"], "error": got["error"]},
        {
            "id": "no-such-ask",
            "error": {"name": "RelayError", "code": "NOT_FOUND", "message": "no ask no-such-ask"},
        },
    ]
    assert waits.now == 0  # neither was ever waited on


async def test_a_wrong_token_is_refused_before_the_upgrade_with_the_relays_401(
    server: Server, http: aiohttp.ClientSession
) -> None:
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        async with watching(server, http, token="wrong-token-000000"):
            pass  # pragma: no cover - refused before
    status, body = await relay(http, "GET", f"{server.url}/v1/asks/watch", token="wrong")
    assert refused.value.status == 401
    assert (status, body["error"]["code"]) == (401, "UNAUTHORIZED")


async def test_a_plain_get_is_refused_426_in_the_relays_error_shape(
    server: Server, http: aiohttp.ClientSession
) -> None:
    headers = {"Authorization": f"Bearer {RELAY_TOKEN}"}
    async with http.get(f"{server.url}/v1/asks/watch", headers=headers) as response:
        assert (response.status, response.headers["Upgrade"]) == (426, "websocket")
        assert await response.json() == {
            "error": {
                "name": "RelayError",
                "code": "UPGRADE_REQUIRED",
                "message": "/v1/asks/watch is a WebSocket: send the upgrade "
                "(`Connection: Upgrade`, `Upgrade: websocket`)",
            },
            "fields": [],
        }


async def test_closing_the_socket_drops_every_watch_it_holds(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator, waits: WaitsHeld
) -> None:
    asks = [await create(server, http), await create(server, http)]
    await posted(emu, 2)
    async with watching(server, http) as socket:
        await socket.send_json({"watch": [ask["id"] for ask in asks]})
        await waits.until(lambda held: held == 2)
    await waits.until(lambda held: held == 0)
    assert server.relay.limits.held == 0


async def test_unwatching_an_ask_drops_its_watch_only(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator, waits: WaitsHeld
) -> None:
    first, second = await create(server, http), await create(server, http)
    await posted(emu, 2)
    async with watching(server, http) as socket:
        await socket.send_json({"watch": [first["id"], second["id"]]})
        await waits.until(lambda held: held == 2)
        await socket.send_json({"unwatch": [first["id"]]})
        await waits.until(lambda held: held == 1)
        held = server.relay.limits.held
    assert held == 1


async def test_a_watch_over_the_credentials_wait_limit_is_refused_with_retry_after(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator, waits: WaitsHeld
) -> None:
    token = await credential(server, "ci", limits=CredentialLimits(max_waits=1))
    first, second = await create(server, http, "ci"), await create(server, http, "ci")
    await posted(emu, 2)
    async with watching(server, http, token) as socket:
        await socket.send_json({"watch": [first["id"]]})
        await waits.until(lambda held: held == 1)
        await socket.send_json({"watch": [second["id"]]})
        refused = await frame(socket)
    assert refused["id"] == second["id"]
    assert refused["error"]["code"] == "RATE_LIMITED"
    assert "holds 1 waits, its limit (max_waits)" in refused["error"]["message"]
    assert refused["retry_after"] == 1


async def test_closing_the_relay_closes_every_watch_socket_as_going_away(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator, waits: WaitsHeld
) -> None:
    ask = await create(server, http)
    await posted(emu)
    async with watching(server, http) as socket:
        await socket.send_json({"watch": [ask["id"]]})
        await waits.until(lambda held: held == 1)
        server.relay.close()
        async with asyncio.timeout(10):
            closed = await socket.receive()
    await waits.until(lambda held: held == 0)
    assert (closed.type, socket.close_code) == (aiohttp.WSMsgType.CLOSE, 1001)


async def test_a_frame_that_is_not_watch_asks_closes_the_socket_as_invalid(
    server: Server, http: aiohttp.ClientSession
) -> None:
    async with watching(server, http) as socket:
        await socket.send_json({"watch": "not a list"})
        async with asyncio.timeout(10):
            closed = await socket.receive()
    assert (closed.type, socket.close_code) == (aiohttp.WSMsgType.CLOSE, 1007)
    assert str(closed.extra).startswith("not a WatchAsks frame")


async def test_a_watch_whose_wait_fails_in_the_store_is_tried_again_and_gets_its_answer(
    server: Server,
    http: aiohttp.ClientSession,
    emu: SlackEmulator,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setattr(relay_watch, "FIRST_RETRY_S", 0.01)
    ask = await create(server, http)
    message = await posted(emu)
    waiters = server.provider.asks.waiters
    wait_on = waiters.wait
    failed = asyncio.Event()

    async def fails_once(key: str, *, held: bool = False) -> AskRecord:
        if not failed.is_set():
            failed.set()
            raise StoreError(Path("asks.db"), "disk I/O error")
        return await wait_on(key, held=held)

    monkeypatch.setattr(waiters, "wait", fails_once)
    waits = watch_waits(server, monkeypatch)  # counts the waits after the failed one
    async with watching(server, http) as socket:
        await socket.send_json({"watch": [ask["id"]]})
        await failed.wait()
        await waits.until(lambda held: held == 1)
        await emu.person(ALICE).click(message, text="SQLite")
        settled = await frame(socket)
    assert settled["ask"]["answer"] == {"answers": [{"id": "db", "selected": ["SQLite"]}]}
    assert f"watching ask {ask['id']} failed; trying again in 0.0 s" in caplog.text
