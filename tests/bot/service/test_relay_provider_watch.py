"""RelayProvider waits on one watch socket per provider (`GET /v1/asks/watch`), not one held
GET per ask; it reconnects and watches again after a restart, and falls back to the GET
long-poll where there is no socket (an older relay, a custom transport)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path

import pytest
from aiohttp import web

from bot.service.server import Server
from bot.store import CredentialLimits
from provider import AskUserQuestionRequest, ErrorCode, RelayProvider, UserQuestionError
from provider.relay_client import Reply
from slack_emulator import SlackEmulator

from ..harness import ALICE
from .credentials import credential
from .harness import RELAY_TOKEN, free_port, in_process
from .test_relay import DB, ask_posts, posted
from .waits import WaitsHeld, watch_waits

ASKS = 50
ANSWERED = {"answers": [{"id": "db", "selected": ["SQLite"]}]}


def request() -> AskUserQuestionRequest:
    return AskUserQuestionRequest.model_validate({"questions": [DB]})


def numbered(n: int) -> AskUserQuestionRequest:
    question = {"id": f"q{n}", "question": f"Ship build {n}?", "options": [{"label": "Ship"}]}
    return AskUserQuestionRequest.model_validate({"questions": [question]})


@pytest.fixture
def waits(server: Server, monkeypatch: pytest.MonkeyPatch) -> WaitsHeld:
    return watch_waits(server, monkeypatch)


async def test_many_asks_through_one_provider_wait_on_one_socket_and_each_gets_its_answer(
    server: Server, emu: SlackEmulator, waits: WaitsHeld
) -> None:
    async with RelayProvider(server.url, RELAY_TOKEN) as provider:
        asking = [asyncio.create_task(provider.ask(numbered(n))) for n in range(ASKS)]
        await emu.wait_for(lambda: len(ask_posts(emu)) == ASKS, within=30, what="every ask")
        await waits.until(lambda held: held == ASKS)
        sockets, held = server.relay.watches.sockets, server.relay.limits.held
        alice = emu.person(ALICE)
        clicked = await asyncio.gather(*(alice.click(m, text="Ship") for m in ask_posts(emu)))
        assert [d.error for d in clicked if not d.acked] == []  # else its ask waits for ever
        answers = await asyncio.gather(*asking)
    assert (sockets, held) == (1, ASKS)
    assert sorted(a.answers[0].id for a in answers) == sorted(f"q{n}" for n in range(ASKS))
    assert [a.to_wire() for a in answers] == [
        {"answers": [{"id": f"q{n}", "selected": ["Ship"]}]} for n in range(ASKS)
    ]


async def test_a_cancelled_ask_is_still_withdrawn_with_delete_and_leaves_the_socket_open(
    server: Server, emu: SlackEmulator, waits: WaitsHeld
) -> None:
    async with RelayProvider(server.url, RELAY_TOKEN) as provider:
        asking = asyncio.create_task(provider.ask(request()))
        await posted(emu)
        await waits.until(lambda held: held == 1)
        asking.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asking
        await waits.until(lambda held: held == 0)
        sockets = server.relay.watches.sockets
    [record] = await server.store.recent()
    assert record.error is not None
    assert record.error.code is ErrorCode.ASK_ABORTED
    assert sockets == 1


async def test_a_relay_restart_mid_wait_loses_no_answer(
    emu: SlackEmulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    port = str(free_port())
    async with RelayProvider(f"http://127.0.0.1:{port}", RELAY_TOKEN) as provider:
        async with in_process(emu, tmp_path / "asks.db", PORT=port) as first:
            waits = watch_waits(first, monkeypatch)
            asking = asyncio.create_task(provider.ask(request()))
            message = await posted(emu)
            await waits.until(lambda held: held == 1)
        # The first relay closed the socket going away; the next one is watched again.
        async with in_process(emu, tmp_path / "asks.db", PORT=port) as second:
            waits = watch_waits(second, monkeypatch)
            await waits.until(lambda held: held == 1)
            await emu.person(ALICE).click(message, text="SQLite")
            answer = await asyncio.wait_for(asking, 10)
            sockets = second.relay.watches.sockets
    assert answer.to_wire() == ANSWERED
    assert sockets == 1


async def test_closing_the_provider_closes_its_socket_and_fails_the_waits_it_held(
    server: Server, emu: SlackEmulator, waits: WaitsHeld
) -> None:
    provider = RelayProvider(server.url, RELAY_TOKEN)
    asking = asyncio.create_task(provider.ask(request()))
    await posted(emu)
    await waits.until(lambda held: held == 1)
    await provider.close()
    with pytest.raises(UserQuestionError) as caught:
        await asking
    await waits.until(lambda held: held == 0)
    assert (caught.value.code, caught.value.message) == (
        ErrorCode.ASK_FAILED,
        "the RelayProvider is closed",
    )
    assert server.relay.watches.sockets == 0


class OlderRelay:
    """A relay without the watch route: `/v1/asks/watch` is just an unknown ask id (404)."""

    def __init__(self) -> None:
        self.upgrades = 0
        self.waits: list[str] = []
        self._made = 0

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_post("/v1/asks", self._create)
        app.router.add_get("/v1/asks/{id}", self._get)
        return app

    async def _create(self, request: web.Request) -> web.Response:
        self._made += 1
        return web.json_response({"id": f"a{self._made}", "state": "pending"}, status=201)

    async def _get(self, request: web.Request) -> web.Response:
        ask_id = request.match_info["id"]
        if ask_id == "watch":
            self.upgrades += request.headers.get("Upgrade") == "websocket"
            error = {"name": "RelayError", "code": "NOT_FOUND", "message": "no ask watch"}
            return web.json_response({"error": error}, status=404)
        self.waits.append(f"{ask_id} wait={request.query['wait']}")
        return web.json_response({"id": ask_id, "state": "answered", "answer": ANSWERED})


async def test_a_relay_without_the_watch_route_is_waited_on_with_get_and_asked_once() -> None:
    older = OlderRelay()
    runner = web.AppRunner(older.app())
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    try:
        async with RelayProvider(f"http://{host}:{port}", RELAY_TOKEN) as provider:
            answers = [await provider.ask(request()), await provider.ask(request())]
    finally:
        await runner.cleanup()
    assert [a.to_wire() for a in answers] == [ANSWERED, ANSWERED]
    assert older.upgrades == 1  # its 404 is remembered
    assert older.waits == ["a1 wait=30.0", "a2 wait=30.0"]


class RecordingTransport:
    """A custom `Transport` (as the Claude Code hook brings): HTTP requests only."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    async def request(
        self,
        method: str,
        url: str,
        *,
        body: bytes | None,
        headers: Mapping[str, str],
        total: float,
        connect: float,
    ) -> Reply:
        self.sent.append(f"{method} {url}")
        if method == "POST":
            return Reply(201, '{"id": "a1", "state": "pending"}')
        return Reply(200, '{"id": "a1", "state": "answered", "answer": {"answers": []}}')

    async def close(self) -> None:
        pass


async def test_a_custom_transport_waits_with_the_get_long_poll() -> None:
    transport = RecordingTransport()
    async with RelayProvider("http://relay.invalid", RELAY_TOKEN, transport=transport) as p:
        await p.ask(request())
    assert transport.sent == [
        "POST http://relay.invalid/v1/asks",
        "GET http://relay.invalid/v1/asks/a1?wait=30.0",
    ]


async def test_a_watch_over_the_wait_limit_is_watched_again_when_the_relay_says(
    server: Server, emu: SlackEmulator, waits: WaitsHeld
) -> None:
    token = await credential(server, "ci", limits=CredentialLimits(max_waits=1))
    async with RelayProvider(server.url, token) as provider:
        asking = [asyncio.create_task(provider.ask(numbered(n))) for n in range(2)]
        await emu.wait_for(lambda: len(ask_posts(emu)) == 2, what="both asks")
        await waits.until(lambda held: held == 1)  # the other one was refused, for now
        alice = emu.person(ALICE)
        first, second = ask_posts(emu)
        await alice.click(first, text="Ship")
        await waits.until(lambda held: held == 1, within=10)  # the refused one, watched again
        await alice.click(second, text="Ship")
        answers = await asyncio.gather(*asking)
    assert [a.to_wire() for a in answers] == [
        {"answers": [{"id": f"q{n}", "selected": ["Ship"]}]} for n in range(2)
    ]
