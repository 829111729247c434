"""RelayProvider: an agent in another process asks through the relay."""

from __future__ import annotations

import asyncio

import pytest
from aiohttp import web

from bot.service.server import Server
from provider import (
    AbortController,
    Agent,
    AgentRegistry,
    AskUserQuestionRequest,
    ErrorCode,
    RelayProvider,
    UserQuestionError,
    UserQuestionService,
)
from provider.relay_wire import AskState
from slack_emulator import SlackEmulator

from ..harness import ALICE, CHANNEL
from .harness import RELAY_TOKEN
from .proxy import CuttableProxy
from .test_relay import DB, posted


def request(**runtime: object) -> AskUserQuestionRequest:
    return AskUserQuestionRequest.model_validate({"questions": [DB], **runtime})


async def test_an_agent_asks_through_the_relay_and_gets_the_answer(
    server: Server, emu: SlackEmulator
) -> None:
    registry = AgentRegistry()
    agent = Agent("remote-1", name="Remote agent")
    registry.enter(agent)
    service = UserQuestionService(registry)
    async with RelayProvider(server.url, RELAY_TOKEN) as relay_provider:
        service.register_provider(relay_provider)
        asking = asyncio.create_task(service.ask(request(agent=agent)))
        message = await posted(emu)
        await emu.person(ALICE).click(message, text="Postgres")
        answer = await asking
    assert answer.to_wire() == {"answers": [{"id": "db", "selected": ["Postgres"]}]}
    root = emu.message(CHANNEL, str(message.thread_ts))
    assert root.text == "Remote agent needs answers from people"


async def test_an_abort_signal_withdraws_the_ask_on_the_relay(
    server: Server, emu: SlackEmulator
) -> None:
    controller = AbortController()
    async with RelayProvider(server.url, RELAY_TOKEN) as relay_provider:
        asking = asyncio.create_task(relay_provider.ask(request(signal=controller.signal)))
        message = await posted(emu)
        controller.abort()
        with pytest.raises(UserQuestionError) as caught:
            await asking
    assert caught.value.code is ErrorCode.ASK_ABORTED
    await server.provider.idle()
    assert "Withdrawn" in str(emu.message(CHANNEL, message.ts).blocks[-1])


async def test_cancelling_the_ask_deletes_it_on_the_relay(
    server: Server, emu: SlackEmulator
) -> None:
    async with RelayProvider(server.url, RELAY_TOKEN) as relay_provider:
        asking = asyncio.create_task(relay_provider.ask(request()))
        message = await posted(emu)
        asking.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asking
    [record] = await server.store.recent()
    assert record.error is not None
    assert record.error.code is ErrorCode.ASK_ABORTED
    await server.provider.idle()
    assert "Withdrawn" in str(emu.message(CHANNEL, message.ts).blocks[-1])


async def test_a_connection_dropped_mid_wait_still_gets_the_answer(
    server: Server, emu: SlackEmulator
) -> None:
    port = int(server.url.rsplit(":", 1)[1])
    async with (
        CuttableProxy(port) as proxy,
        RelayProvider(proxy.url, RELAY_TOKEN) as relay_provider,
    ):
        asking = asyncio.create_task(relay_provider.ask(request()))
        message = await posted(emu)
        await emu.wait_for(lambda: proxy.connections >= 1, what="the long poll")
        proxy.cut()  # the held-open GET dies mid-wait
        await emu.person(ALICE).click(message, text="SQLite")
        answer = await asyncio.wait_for(asking, 10)
    assert answer.answers[0].selected == ["SQLite"]
    assert proxy.connections >= 2  # it came back on a new connection


async def test_a_wrong_token_is_ask_failed_naming_the_refusal(server: Server) -> None:
    async with RelayProvider(server.url, "wrong-token-000000") as relay_provider:
        with pytest.raises(UserQuestionError) as caught:
            await relay_provider.ask(request())
    assert caught.value.code is ErrorCode.ASK_FAILED
    assert caught.value.message == (
        "relay POST /v1/asks: HTTP 401 UNAUTHORIZED: missing or wrong bearer token"
    )


async def test_start_poll_and_withdraw_work_one_step_at_a_time(
    server: Server, emu: SlackEmulator
) -> None:
    async with RelayProvider(server.url, RELAY_TOKEN) as relay_provider:
        started = await relay_provider.start(request(), idempotency_key="step-1")
        again = await relay_provider.start(request(), idempotency_key="step-1")
        message = await posted(emu)
        pending = await relay_provider.poll(started.id, wait_seconds=0)
        waiting = asyncio.create_task(relay_provider.poll(started.id, wait_seconds=10))
        await emu.person(ALICE).click(message, text="SQLite")
        answered = await waiting
        late = await relay_provider.withdraw(started.id)
    assert (started.state, again.id) == (AskState.PENDING, started.id)
    assert pending.state is AskState.PENDING
    assert answered.answer is not None
    assert answered.answer.to_wire() == {"answers": [{"id": "db", "selected": ["SQLite"]}]}
    assert late == answered  # the answer came first and stands


async def test_withdraw_aborts_a_pending_ask(server: Server, emu: SlackEmulator) -> None:
    async with RelayProvider(server.url, RELAY_TOKEN) as relay_provider:
        started = await relay_provider.start(request(), idempotency_key="step-2")
        message = await posted(emu)
        withdrawn = await relay_provider.withdraw(started.id)
    assert withdrawn.state is AskState.FAILED
    assert withdrawn.error is not None
    assert withdrawn.error.code == "ASK_ABORTED"
    await server.provider.idle()
    assert "Withdrawn" in str(emu.message(CHANNEL, message.ts).blocks[-1])


async def test_polling_an_unknown_ask_is_ask_failed_naming_the_404(server: Server) -> None:
    async with RelayProvider(server.url, RELAY_TOKEN) as relay_provider:
        with pytest.raises(UserQuestionError) as caught:
            await relay_provider.poll("nope", wait_seconds=0)
    assert caught.value.code is ErrorCode.ASK_FAILED
    assert caught.value.message == "relay GET /v1/asks/nope: HTTP 404 NOT_FOUND: no ask nope"


async def test_a_poll_carries_only_the_headers_the_relay_reads() -> None:
    # The relay holds a poll open with its headers parsed: none it ignores is sent.
    seen: list[set[str]] = []

    async def get(request: web.Request) -> web.Response:
        seen.append(set(request.headers))
        return web.json_response({"id": request.match_info["id"], "state": "pending"})

    app = web.Application()
    app.router.add_get("/v1/asks/{id}", get)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    try:
        async with RelayProvider(f"http://{host}:{port}", RELAY_TOKEN) as relay_provider:
            await relay_provider.poll("a1", wait_seconds=0)
    finally:
        await runner.cleanup()
    assert seen == [{"Host", "Authorization", "User-Agent"}]
