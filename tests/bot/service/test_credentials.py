"""The relay authenticates principals: agent credentials from the store, and the admin token."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import aiohttp
import pytest
from pydantic import SecretStr

from bot.service.principals import ADMIN, Principal, Principals, Refusal, mint
from bot.service.server import Server
from bot.store import CredentialLimits, MemoryStore
from slack_emulator import SlackEmulator

from .credentials import credential
from .harness import in_process, relay
from .test_relay import DB

WARNING = (
    "SLACK_QUESTIONS_RELAY_TOKEN is set: every agent holding it can see, read and withdraw "
    "every ask and ask as any agent; give each agent its own credential "
    "(python -m bot credentials create --agent ID) and unset it"
)


async def test_a_credential_created_after_start_works_at_once(
    server: Server, http: aiohttp.ClientSession
) -> None:
    token = await credential(server, "ci")
    assert await relay(http, "GET", f"{server.url}/v1/asks", token=token) == (200, {"asks": []})


async def test_a_revoked_credential_is_refused_401(
    server: Server, http: aiohttp.ClientSession
) -> None:
    token = await credential(server, "ci")
    await server.store.revoke_credential(token.split("_")[1], time.time())
    status, body = await relay(http, "GET", f"{server.url}/v1/asks", token=token)
    assert (status, body["error"]["code"]) == (401, "UNAUTHORIZED")


async def test_a_credential_with_a_wrong_secret_is_refused_401(
    server: Server, http: aiohttp.ClientSession
) -> None:
    token = await credential(server, "ci")
    status, body = await relay(http, "GET", f"{server.url}/v1/asks", token=token + "x")
    assert (status, body["error"]["code"]) == (401, "UNAUTHORIZED")


async def test_the_admin_token_logs_one_warning_at_start(
    emu: SlackEmulator, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="bot.service.server"):
        async with in_process(emu, tmp_path / "a.db"):
            pass
    lines = [r.getMessage() for r in caplog.records if r.name == "bot.service.server"]
    assert lines == [WARNING]


async def test_connected_without_an_audit_key_it_warns_that_the_log_is_chained_with_a_public_key(
    emu: SlackEmulator, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="bot.service.server"):
        async with in_process(
            emu, tmp_path / "a.db", SLACK_QUESTIONS_AUDIT_KEY="", SLACK_QUESTIONS_RELAY_TOKEN=""
        ):
            pass
    lines = [r.getMessage() for r in caplog.records if r.name == "bot.service.server"]
    assert lines == [
        "SLACK_QUESTIONS_AUDIT_KEY is unset: the decision log is chained with the offline key,"
        " which is public; set it (e.g. openssl rand -hex 32) to make it tamper-evident"
    ]


async def test_without_the_admin_token_no_warning_and_a_stored_credential_serves(
    emu: SlackEmulator,
    tmp_path: Path,
    http: aiohttp.ClientSession,
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="bot.service.server"):
        async with in_process(emu, tmp_path / "a.db", SLACK_QUESTIONS_RELAY_TOKEN="") as server:
            token = await credential(server, "ci")
            status, _ = await relay(
                http, "POST", f"{server.url}/v1/asks", token=token, json={"questions": [DB]}
            )
            await server.provider.idle()
    assert status == 201
    assert [r for r in caplog.records if r.name == "bot.service.server"] == []


async def test_with_no_token_and_no_credential_the_refusal_says_how_to_create_one(
    emu: SlackEmulator, tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    async with in_process(emu, tmp_path / "a.db", SLACK_QUESTIONS_RELAY_TOKEN="") as server:
        status, problem = await relay(http, "GET", f"{server.url}/v1/asks")
    assert (status, problem["error"]["code"]) == (503, "RELAY_DISABLED")
    assert "python -m bot credentials create --agent ID" in problem["error"]["message"]


# --- the cache: a revocation takes effect within CACHE_SECONDS --------------------------


class Ticks:
    """A monotonic clock the test moves."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


async def test_a_revocation_is_honoured_within_the_cache_bound() -> None:
    store, ticks = MemoryStore(), Ticks()
    token, made = mint(agents=("ci",), now=1000.0)
    await store.add_credential(made)
    await store.add_credential(mint(agents=("other",), now=1000.0)[1])  # the relay stays on
    principals = Principals(store, None, cache_seconds=2.0, monotonic=ticks)
    expected = Principal(
        admin=False,
        agents=frozenset({"ci"}),
        limits=CredentialLimits(),
        credential_id=made.id,
    )
    assert await principals.of(f"Bearer {token}") == expected
    await store.revoke_credential(made.id, 1001.0)
    ticks.now += 1.9
    assert await principals.of(f"Bearer {token}") == expected  # cached, at most 2 s
    ticks.now += 0.2
    assert await principals.of(f"Bearer {token}") == Refusal(
        "UNAUTHORIZED", "missing or wrong bearer token"
    )


async def test_the_admin_token_is_the_admin_principal() -> None:
    principals = Principals(MemoryStore(), SecretStr("admin-token-0123456789"))
    assert await principals.of("Bearer admin-token-0123456789") is ADMIN


async def test_an_admin_credential_sees_every_ask() -> None:
    store = MemoryStore()
    token, made = mint(agents=(), admin=True, now=1000.0)
    await store.add_credential(made)
    found = await Principals(store, None).of(f"Bearer {token}")
    assert found == Principal(admin=True, credential_id=made.id)


async def test_when_the_store_cannot_read_a_credential_the_caller_is_not_served(
    server: Server, http: aiohttp.ClientSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = await credential(server, "ci")

    async def unreadable(credential_id: str) -> None:
        raise OSError("disk I/O error")

    monkeypatch.setattr(server.store, "credential", unreadable)
    status, body = await relay(
        http, "POST", f"{server.url}/v1/asks", token=token, json={"questions": [DB]}
    )
    # Closed: no principal, no ask; a 503 the clients retry, not a traceback.
    assert (status, body["error"]["code"]) == (503, "STORE_UNAVAILABLE")
    assert await server.store.recent(limit=5) == []
