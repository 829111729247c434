"""Limits per credential and for the service: 429 with Retry-After and a message naming the
limit; RelayProvider waits as told and retries with the same idempotency key."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from bot.service.server import Server
from bot.store import AskRecord, CredentialLimits
from provider import AskUserQuestionRequest, RelayProvider
from slack_emulator import SlackEmulator

from .credentials import credential
from .harness import RELAY_TOKEN, in_process
from .test_relay import DB


async def call(
    http: aiohttp.ClientSession, method: str, url: str, token: str, **kwargs: Any
) -> tuple[int, Any, str | None]:
    """(status, JSON body, Retry-After)."""
    headers = {"Authorization": f"Bearer {token}"}
    async with http.request(method, url, headers=headers, **kwargs) as response:
        body = await response.json(content_type=None)
        return response.status, body, response.headers.get("Retry-After")


async def test_over_its_pending_asks_a_credential_gets_429_with_retry_after(
    server: Server, http: aiohttp.ClientSession
) -> None:
    token = await credential(server, "ci", limits=CredentialLimits(max_pending=2))
    url = f"{server.url}/v1/asks"
    for _ in range(2):
        assert (await call(http, "POST", url, token, json={"questions": [DB]}))[0] == 201
    status, body, retry_after = await call(http, "POST", url, token, json={"questions": [DB]})
    await server.provider.idle()
    assert (status, body["error"]["code"], retry_after) == (429, "RATE_LIMITED", "5")
    assert body["error"]["message"] == (
        f"credential {token.split('_')[1]} has 2 pending asks, its limit (max_pending): "
        "retry in 5 s, or withdraw one"
    )
    assert len(await server.store.recent()) == 2


async def test_a_withdrawn_ask_frees_its_place_under_the_pending_cap(
    server: Server, http: aiohttp.ClientSession
) -> None:
    token = await credential(server, "ci", limits=CredentialLimits(max_pending=1))
    url = f"{server.url}/v1/asks"
    status, body, _ = await call(http, "POST", url, token, json={"questions": [DB]})
    assert status == 201
    assert (await call(http, "POST", url, token, json={"questions": [DB]}))[0] == 429
    await call(http, "DELETE", f"{url}/{body['id']}", token)
    assert (await call(http, "POST", url, token, json={"questions": [DB]}))[0] == 201
    await server.provider.idle()


async def test_alone_on_its_store_the_pending_cap_is_counted_without_a_read(
    server: Server, http: aiohttp.ClientSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = await credential(server, "ci", limits=CredentialLimits(max_pending=2))

    async def no_read(**_: object) -> list[AskRecord]:
        raise AssertionError("the pending asks were read from the store")

    monkeypatch.setattr(server.store, "recent", no_read)
    url = f"{server.url}/v1/asks"
    for _ in range(2):
        assert (await call(http, "POST", url, token, json={"questions": [DB]}))[0] == 201
    assert (await call(http, "POST", url, token, json={"questions": [DB]}))[0] == 429
    await server.provider.idle()


async def test_over_its_creates_a_minute_a_credential_gets_429_with_retry_after(
    server: Server, http: aiohttp.ClientSession
) -> None:
    limits = CredentialLimits(creates_per_minute=1)
    token = await credential(server, "ci", limits=limits)
    url = f"{server.url}/v1/asks"
    assert (await call(http, "POST", url, token, json={"questions": [DB]}))[0] == 201
    status, body, retry_after = await call(http, "POST", url, token, json={"questions": [DB]})
    await server.provider.idle()
    assert (status, body["error"]["code"], retry_after) == (429, "RATE_LIMITED", "60")
    assert (
        "may create 1 asks a minute (creates_per_minute): retry in 60 s"
        in (body["error"]["message"])
    )


async def test_an_idempotent_retry_is_not_counted_as_a_create(
    server: Server, http: aiohttp.ClientSession
) -> None:
    token = await credential(server, "ci", limits=CredentialLimits(creates_per_minute=1))
    body = {"questions": [DB], "idempotency_key": "k1"}
    url = f"{server.url}/v1/asks"
    assert (await call(http, "POST", url, token, json=body))[0] == 201
    assert (await call(http, "POST", url, token, json=body))[0] == 429  # the minute's one is spent
    await server.provider.idle()


async def an_ask(server: Server, http: aiohttp.ClientSession, token: str) -> str:
    """A new ask of `token`'s; its id."""
    _, created, _ = await call(
        http, "POST", f"{server.url}/v1/asks", token, json={"questions": [DB]}
    )
    return str(created["id"])


async def test_over_its_held_waits_a_credential_gets_429(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    token = await credential(server, "ci", limits=CredentialLimits(max_waits=1))
    ask_id = await an_ask(server, http, token)
    url = f"{server.url}/v1/asks/{ask_id}"
    waiting = asyncio.create_task(call(http, "GET", url, token, params={"wait": "30"}))
    await emu.wait_for(lambda: server.relay.limits.held == 1, what="one held wait")
    status, body, retry_after = await call(http, "GET", url, token, params={"wait": "30"})
    assert (status, body["error"]["code"], retry_after) == (429, "RATE_LIMITED", "1")
    assert "holds 1 waits, its limit (max_waits)" in body["error"]["message"]
    assert (await call(http, "GET", url, token))[0] == 200  # a poll without wait still answers
    await call(http, "DELETE", url, token)
    assert (await waiting)[0] == 200
    await server.provider.idle()


async def test_over_the_services_held_waits_even_the_admin_token_gets_429(
    emu: SlackEmulator, tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    async with in_process(emu, tmp_path / "a.db", SLACK_QUESTIONS_MAX_WAITS="1") as server:
        ask_id = await an_ask(server, http, RELAY_TOKEN)
        url = f"{server.url}/v1/asks/{ask_id}"
        waiting = asyncio.create_task(call(http, "GET", url, RELAY_TOKEN, params={"wait": "30"}))
        await emu.wait_for(lambda: server.relay.limits.held == 1, what="one held wait")
        status, body, retry_after = await call(http, "GET", url, RELAY_TOKEN, params={"wait": "5"})
        await call(http, "DELETE", url, RELAY_TOKEN)
        assert (await waiting)[0] == 200
        await server.provider.idle()
    assert (status, body["error"]["code"], retry_after) == (429, "RATE_LIMITED", "1")
    assert "SLACK_QUESTIONS_MAX_WAITS" in body["error"]["message"]


async def test_relay_provider_retries_a_429_create_with_its_idempotency_key() -> None:
    keys: list[str] = []

    async def create(request: web.Request) -> web.Response:
        keys.append((await request.json())["idempotency_key"])
        if len(keys) == 1:
            problem = {"error": {"name": "RelayError", "code": "RATE_LIMITED", "message": "x"}}
            return web.json_response(problem, status=429, headers={"Retry-After": "0"})
        return web.json_response({"id": "a1", "state": "pending"}, status=201)

    app = web.Application()
    app.router.add_post("/v1/asks", create)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    host, port = runner.addresses[0][:2]
    request = AskUserQuestionRequest.model_validate({"questions": [DB]})
    try:
        async with RelayProvider(f"http://{host}:{port}", RELAY_TOKEN) as relay_provider:
            view = await relay_provider.start(request, idempotency_key="k-429")
    finally:
        await runner.cleanup()
    assert (view.id, keys) == ("a1", ["k-429", "k-429"])


async def test_relay_provider_re_polls_a_429_wait() -> None:
    polls = 0

    async def get(request: web.Request) -> web.Response:
        nonlocal polls
        polls += 1
        if polls == 1:
            problem = {"error": {"name": "RelayError", "code": "RATE_LIMITED", "message": "x"}}
            return web.json_response(problem, status=429, headers={"Retry-After": "0"})
        return web.json_response(
            {
                "id": "a1",
                "state": "failed",
                "error": {
                    "name": "UserQuestionError",
                    "code": "ASK_ABORTED",
                    "message": "withdrawn",
                },
            }
        )

    app = web.Application()
    app.router.add_get("/v1/asks/{id}", get)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    host, port = runner.addresses[0][:2]
    try:
        async with RelayProvider(f"http://{host}:{port}", RELAY_TOKEN) as relay_provider:
            view = await relay_provider.poll("a1", wait_seconds=5)
    finally:
        await runner.cleanup()
    assert (view.state.value, polls) == ("failed", 2)
