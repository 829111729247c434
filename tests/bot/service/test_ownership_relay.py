"""Only its own agent sees an ask: an agent credential reaches its agents' asks, no others."""

from __future__ import annotations

import aiohttp

from bot.service.server import Server
from slack_emulator import SlackEmulator

from ..harness import CHANNEL
from .credentials import credential
from .harness import relay
from .test_relay import DB, posted

UNKNOWN = {"name": "RelayError", "code": "NOT_FOUND"}


def slack_writes(emu: SlackEmulator) -> int:
    return len(emu.calls_to("chat.postMessage")) + len(emu.calls_to("chat.update"))


async def a_posted_ask(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator, token: str
) -> str:
    """Agent A's ask, posted in Slack and recorded as posted."""
    _, created = await relay(
        http,
        "POST",
        f"{server.url}/v1/asks",
        token=token,
        json={"questions": [DB], "agent": {"id": "agent-a"}},
    )
    await posted(emu)
    await server.provider.idle()
    return str(created["id"])


async def test_agent_b_cannot_read_agent_as_ask_and_is_told_it_does_not_exist(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    ask_id = await a_posted_ask(server, http, emu, await credential(server, "agent-a"))
    b = await credential(server, "agent-b")
    status, body = await relay(http, "GET", f"{server.url}/v1/asks/{ask_id}", token=b)
    assert (status, {k: body["error"][k] for k in ("name", "code")}) == (404, UNKNOWN)
    assert body["error"]["message"] == f"no ask {ask_id}"


async def test_agent_b_cannot_wait_on_agent_as_ask(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    ask_id = await a_posted_ask(server, http, emu, await credential(server, "agent-a"))
    b = await credential(server, "agent-b")
    status, body = await relay(
        http, "GET", f"{server.url}/v1/asks/{ask_id}", token=b, params={"wait": "30"}
    )
    assert (status, body["error"]["code"]) == (404, "NOT_FOUND")


async def test_agent_b_cannot_withdraw_agent_as_ask_and_nothing_changes_in_slack(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    a = await credential(server, "agent-a")
    ask_id = await a_posted_ask(server, http, emu, a)
    b = await credential(server, "agent-b")
    writes = slack_writes(emu)
    status, body = await relay(http, "DELETE", f"{server.url}/v1/asks/{ask_id}", token=b)
    await server.provider.idle()
    assert (status, body["error"]["code"]) == (404, "NOT_FOUND")
    assert slack_writes(emu) == writes
    assert await relay(http, "GET", f"{server.url}/v1/asks/{ask_id}", token=a) == (
        200,
        {"id": ask_id, "state": "pending", "policy": "default"},
    )


async def test_agent_b_lists_only_its_own_asks(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    await a_posted_ask(server, http, emu, await credential(server, "agent-a"))
    b = await credential(server, "agent-b")
    _, mine = await relay(http, "POST", f"{server.url}/v1/asks", token=b, json={"questions": [DB]})
    status, listed = await relay(http, "GET", f"{server.url}/v1/asks", token=b)
    assert status == 200
    assert [(a["id"], a["agent"]["id"]) for a in listed["asks"]] == [(mine["id"], "agent-b")]


async def test_agent_b_cannot_ask_as_agent_a_and_slack_gets_nothing(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    b = await credential(server, "agent-b")
    body = {"questions": [DB], "agent": {"id": "agent-a"}}
    status, refused = await relay(http, "POST", f"{server.url}/v1/asks", token=b, json=body)
    await server.provider.idle()
    assert (status, refused["error"]["code"]) == (403, "AGENT_NOT_ALLOWED")
    assert refused["error"]["message"] == (
        f"credential {b.split('_')[1]} may not ask as agent 'agent-a'; it may ask as: agent-b"
    )
    assert await server.store.recent() == []
    assert emu.calls_to("chat.postMessage") == []


async def test_agent_b_cannot_post_into_agent_as_thread(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    await a_posted_ask(server, http, emu, await credential(server, "agent-a"))
    thread = await server.store.thread("agent-a")
    assert thread is not None
    b = await credential(server, "agent-b")
    writes = slack_writes(emu)
    body = {"questions": [DB], "thread": {"channel": CHANNEL, "thread_ts": thread.thread_ts}}
    status, refused = await relay(http, "POST", f"{server.url}/v1/asks", token=b, json=body)
    await server.provider.idle()
    assert (status, refused["error"]["code"]) == (403, "ROUTE_NOT_ALLOWED")
    assert slack_writes(emu) == writes


async def test_a_credential_with_one_agent_asks_as_it_when_none_is_named(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    token = await credential(server, "ci")
    status, _ = await relay(
        http, "POST", f"{server.url}/v1/asks", token=token, json={"questions": [DB]}
    )
    [record] = await server.store.recent()
    assert (status, record.agent_id) == (201, "ci")


async def test_a_credential_with_several_agents_must_name_one(
    server: Server, http: aiohttp.ClientSession
) -> None:
    token = await credential(server, "ci", "cd")
    status, refused = await relay(
        http, "POST", f"{server.url}/v1/asks", token=token, json={"questions": [DB]}
    )
    assert (status, refused["error"]["code"]) == (403, "AGENT_NOT_ALLOWED")
    assert refused["error"]["message"].endswith(
        "acts for several agents: name one in agent.id (cd, ci)"
    )


async def test_agent_bs_reuse_of_agent_as_idempotency_key_neither_gets_nor_reveals_its_ask(
    server: Server, http: aiohttp.ClientSession
) -> None:
    a, b = await credential(server, "agent-a"), await credential(server, "agent-b")
    body = {"questions": [DB], "idempotency_key": "same-key"}
    _, first = await relay(http, "POST", f"{server.url}/v1/asks", token=a, json=body)
    changed = {**body, "questions": [{**DB, "question": "Another?"}]}
    status, second = await relay(http, "POST", f"{server.url}/v1/asks", token=b, json=changed)
    assert (status, second["state"]) == (201, "pending")  # not 200 with A's ask, not 409
    assert second["id"] != first["id"]


async def test_the_admin_token_still_reads_and_lists_every_agents_asks(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    ask_id = await a_posted_ask(server, http, emu, await credential(server, "agent-a"))
    status, listed = await relay(http, "GET", f"{server.url}/v1/asks")
    assert (status, [a["id"] for a in listed["asks"]]) == (200, [ask_id])
    assert (await relay(http, "GET", f"{server.url}/v1/asks/{ask_id}"))[0] == 200
