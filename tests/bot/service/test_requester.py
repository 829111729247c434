"""The requester over the relay: named by the agent (`agent.requester`) or pinned by its
credential, stored on the ask, and kept from approving their own agent's tool."""

from __future__ import annotations

from typing import Any

import aiohttp

from bot.service.server import Server
from slack_emulator import SlackEmulator

from ..harness import ALICE, BOB
from .credentials import credential
from .harness import relay
from .test_relay import posted

PUSH = {
    "id": "tool",
    "question": "May I run this command?",
    "options": [{"label": "Allow"}, {"label": "Deny"}],
    "intent": {
        "kind": "tool-approval",
        "allow": "Allow",
        "tool": "Bash",
        "input": {"command": "git push"},
    },
}


async def create(
    server: Server, http: aiohttp.ClientSession, token: str, agent: dict[str, Any]
) -> tuple[int, Any]:
    return await relay(
        http,
        "POST",
        f"{server.url}/v1/asks",
        token=token,
        json={"questions": [PUSH], "agent": agent},
    )


async def test_the_relay_stores_the_requester_the_agent_names(
    server: Server, http: aiohttp.ClientSession
) -> None:
    token = await credential(server, "dev")
    status, body = await create(server, http, token, {"id": "dev/s1", "requester": ALICE})
    assert status == 201
    record = await server.store.get(body["id"])
    assert record is not None
    assert record.requester == ALICE


async def test_a_requester_that_is_not_a_slack_user_id_is_refused(
    server: Server, http: aiohttp.ClientSession
) -> None:
    token = await credential(server, "dev")
    status, body = await create(server, http, token, {"id": "dev", "requester": "alice"})
    message = "agent.requester 'alice' is not a Slack user id (U… or W…)"
    assert (status, body["error"]["code"], body["error"]["message"]) == (
        400,
        "INVALID_BODY",
        message,
    )
    assert body["fields"] == [{"field": "agent.requester", "message": message}]


async def test_a_credential_pinned_to_a_requester_gives_asks_naming_none_its_requester(
    server: Server, http: aiohttp.ClientSession
) -> None:
    token = await credential(server, "dev", requester=ALICE)
    status, body = await create(server, http, token, {"id": "dev"})
    assert status == 201
    record = await server.store.get(body["id"])
    assert record is not None
    assert record.requester == ALICE


async def test_a_credential_pinned_to_a_requester_refuses_an_ask_naming_another(
    server: Server, http: aiohttp.ClientSession
) -> None:
    token = await credential(server, "dev", requester=ALICE)
    credential_id = token.split("_")[1]
    status, body = await create(server, http, token, {"id": "dev", "requester": BOB})
    message = (
        f"credential {credential_id} asks on behalf of {ALICE} only, not {BOB}: leave "
        "agent.requester out or name that user"
    )
    assert (status, body["error"]["code"], body["error"]["message"]) == (
        403,
        "AGENT_NOT_ALLOWED",
        message,
    )
    assert await server.store.recent() == []
    status, _ = await create(server, http, token, {"id": "dev", "requester": ALICE})
    assert status == 201


async def test_a_retry_naming_another_requester_is_an_idempotency_conflict(
    server: Server, http: aiohttp.ClientSession
) -> None:
    token = await credential(server, "dev")
    first = {
        "questions": [PUSH],
        "agent": {"id": "dev", "requester": ALICE},
        "idempotency_key": "k",
    }
    second = {**first, "agent": {"id": "dev", "requester": BOB}}
    url = f"{server.url}/v1/asks"
    assert (await relay(http, "POST", url, token=token, json=first))[0] == 201
    status, body = await relay(http, "POST", url, token=token, json=second)
    assert (status, body["error"]["code"]) == (409, "IDEMPOTENCY_CONFLICT")


async def test_the_requesters_allow_of_a_relay_ask_leaves_it_pending_for_the_agent(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    token = await credential(server, "dev", requester=ALICE)
    _, created = await create(server, http, token, {"id": "dev"})
    message = await posted(emu)
    await server.provider.idle()
    await emu.person(ALICE).click(message, text="Allow")
    await server.provider.idle()
    assert [e.text for e in emu.ephemerals(ALICE)] == [
        "You may not allow a tool your own agent asked to run; ask someone else in this "
        "channel. Nothing changed; you may still deny it."
    ]
    url = f"{server.url}/v1/asks/{created['id']}"
    assert await relay(http, "GET", url, token=token) == (
        200,
        {"id": created["id"], "state": "pending", "policy": "default"},
    )
    await emu.person(BOB).click(message, text="Allow")
    status, body = await relay(http, "GET", url, token=token, params={"wait": "5"})
    assert (status, body["state"], body["decided_by"]) == (200, "answered", BOB)
    assert body["answer"] == {"answers": [{"id": "tool", "selected": ["Allow"]}]}
