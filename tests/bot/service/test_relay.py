"""The relay API over HTTP: create, wait, withdraw, list; and every refusal it answers."""

from __future__ import annotations

import asyncio
from pathlib import Path

import aiohttp

from bot.service.server import Server
from slack_emulator import Message, SlackEmulator

from ..harness import ALICE, CHANNEL
from .harness import in_process, relay

DB = {
    "id": "db",
    "question": "Which database?",
    "options": [{"label": "Postgres"}, {"label": "SQLite"}],
}


def ask_posts(emu: SlackEmulator) -> list[Message]:
    return [
        emu.message(CHANNEL, str(c.response["ts"]))
        for c in emu.calls_to("chat.postMessage")
        if c.ok and (c.params.get("metadata") or {}).get("event_type") == "slack_questions_ask"
    ]


async def posted(emu: SlackEmulator, n: int = 1) -> Message:
    await emu.wait_for(lambda: len(ask_posts(emu)) >= n, what=f"ask message #{n}")
    return ask_posts(emu)[n - 1]


async def test_post_stores_the_ask_and_answers_201_pending_queued_to_be_posted(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    status, body = await relay(http, "POST", f"{server.url}/v1/asks", json={"questions": [DB]})
    assert status == 201
    assert body == {"id": body["id"], "state": "pending", "detail": "queued", "policy": "default"}
    await posted(emu)
    await server.provider.idle()  # the post recorded too
    _, now = await relay(http, "GET", f"{server.url}/v1/asks/{body['id']}")
    assert now == {"id": body["id"], "state": "pending", "policy": "default"}


async def test_get_with_wait_returns_the_answer_once_a_person_clicks(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    _, created = await relay(http, "POST", f"{server.url}/v1/asks", json={"questions": [DB]})
    waiting = asyncio.create_task(
        relay(http, "GET", f"{server.url}/v1/asks/{created['id']}", params={"wait": "10"})
    )
    await emu.person(ALICE).click(await posted(emu), text="SQLite")
    assert await waiting == (
        200,
        {
            "id": created["id"],
            "state": "answered",
            "answer": {"answers": [{"id": "db", "selected": ["SQLite"]}]},
            "decided_by": ALICE,
            "policy": "default",
        },
    )


async def test_get_without_wait_answers_at_once_while_pending(
    server: Server, http: aiohttp.ClientSession
) -> None:
    _, created = await relay(http, "POST", f"{server.url}/v1/asks", json={"questions": [DB]})
    await server.provider.idle()  # posted: no longer queued
    assert await relay(http, "GET", f"{server.url}/v1/asks/{created['id']}") == (
        200,
        {"id": created["id"], "state": "pending", "policy": "default"},
    )


async def test_the_same_idempotency_key_returns_the_same_ask_and_posts_once(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    body = {"questions": [DB], "idempotency_key": "run-42/step-3"}
    first = await relay(http, "POST", f"{server.url}/v1/asks", json=body)
    await posted(emu)
    await server.provider.idle()
    second = await relay(http, "POST", f"{server.url}/v1/asks", json=body)
    await server.provider.idle()
    assert first[0] == 201
    # The same ask, now posted (no longer "queued").
    assert second == (200, {"id": first[1]["id"], "state": "pending", "policy": "default"})
    assert len(ask_posts(emu)) == 1


async def test_the_same_idempotency_key_with_different_questions_is_409_naming_the_key(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    first = await relay(
        http, "POST", f"{server.url}/v1/asks", json={"questions": [DB], "idempotency_key": "k-1"}
    )
    other = {**DB, "question": "Which cache?"}
    status, body = await relay(
        http, "POST", f"{server.url}/v1/asks", json={"questions": [other], "idempotency_key": "k-1"}
    )
    await server.provider.idle()
    assert status == 409
    assert body["error"]["code"] == "IDEMPOTENCY_CONFLICT"
    assert body["error"]["message"] == (
        f"idempotency_key 'k-1' already made ask {first[1]['id']} with a different body; "
        "use a new key for a new ask"
    )
    assert len(ask_posts(emu)) == 1


async def test_the_same_idempotency_key_and_route_returns_the_same_ask(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    body = {"questions": [DB], "idempotency_key": "k-3", "thread": {"channel": CHANNEL}}
    first = await relay(http, "POST", f"{server.url}/v1/asks", json=body)
    await posted(emu)
    second = await relay(http, "POST", f"{server.url}/v1/asks", json=body)
    await server.provider.idle()
    # The 201 may say "queued" (not yet in Slack); the retry comes once it is posted.
    assert (first[0], second) == (
        201,
        (200, {"id": first[1]["id"], "state": "pending", "policy": "default"}),
    )


async def test_the_same_idempotency_key_from_another_agent_makes_its_own_ask(
    server: Server, http: aiohttp.ClientSession
) -> None:
    # Keys are scoped per agent: one agent's key never finds (nor confirms) another's ask.
    body = {"questions": [DB], "idempotency_key": "k-2", "agent": {"id": "a1"}}
    _, first = await relay(http, "POST", f"{server.url}/v1/asks", json=body)
    status, answer = await relay(
        http, "POST", f"{server.url}/v1/asks", json={**body, "agent": {"id": "a2"}}
    )
    await server.provider.idle()
    assert (status, answer["state"]) == (201, "pending")
    assert answer["id"] != first["id"]


async def test_delete_withdraws_the_ask_as_ask_aborted(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    _, created = await relay(http, "POST", f"{server.url}/v1/asks", json={"questions": [DB]})
    message = await posted(emu)
    status, body = await relay(http, "DELETE", f"{server.url}/v1/asks/{created['id']}")
    assert status == 200
    assert body["state"] == "failed"
    assert body["error"]["code"] == "ASK_ABORTED"
    assert body["error"]["message"] == (
        "ask_user_question was aborted before the user answered: "
        "the agent withdrew it through the relay"
    )
    assert "Withdrawn" in str(emu.message(CHANNEL, message.ts).blocks[-1])


async def test_list_shows_pending_asks_newest_first(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    ids = []
    for n in range(3):
        _, created = await relay(http, "POST", f"{server.url}/v1/asks", json={"questions": [DB]})
        ids.append(created["id"])
        await posted(emu, n + 1)
    await relay(http, "DELETE", f"{server.url}/v1/asks/{ids[1]}")
    status, body = await relay(http, "GET", f"{server.url}/v1/asks", params={"state": "pending"})
    assert status == 200
    assert [a["id"] for a in body["asks"]] == [ids[2], ids[0]]


async def test_a_thread_route_posts_where_the_caller_says(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    started = await emu.person(ALICE).say(CHANNEL, "deploy please")
    body = {"questions": [DB], "thread": {"channel": CHANNEL, "thread_ts": started.ts}}
    await relay(http, "POST", f"{server.url}/v1/asks", json=body)
    assert (await posted(emu)).thread_ts == started.ts


async def test_an_agent_gets_its_own_thread(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    body = {"questions": [DB], "agent": {"id": "ci-bot", "name": "CI bot"}}
    await relay(http, "POST", f"{server.url}/v1/asks", json=body)
    message = await posted(emu)
    root = emu.message(CHANNEL, str(message.thread_ts))
    assert root.text == "CI bot needs answers from people"


# --- refusals ---------------------------------------------------------------------------


async def test_a_missing_token_is_401(server: Server, http: aiohttp.ClientSession) -> None:
    status, body = await relay(http, "GET", f"{server.url}/v1/asks", token=None)
    assert status == 401
    assert body["error"] == {
        "name": "RelayError",
        "code": "UNAUTHORIZED",
        "message": "missing or wrong bearer token",
    }


async def test_a_wrong_token_is_401_and_creates_nothing(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    status, _ = await relay(
        http, "POST", f"{server.url}/v1/asks", token="not-the-token-0000", json={"questions": [DB]}
    )
    assert status == 401
    assert await server.store.recent() == []


async def test_an_invalid_body_is_400_naming_the_fields(
    server: Server, http: aiohttp.ClientSession
) -> None:
    body = {"questions": [{"id": "db", "options": [{"label": 3}]}], "agent": {"name": "x"}}
    status, problem = await relay(http, "POST", f"{server.url}/v1/asks", json=body)
    assert status == 400
    assert problem["error"]["code"] == "INVALID_BODY"
    assert sorted(f["field"] for f in problem["fields"]) == [
        "agent.id",
        "questions.0.options.0.label",
        "questions.0.question",
    ]


async def test_a_body_that_is_not_json_is_400(server: Server, http: aiohttp.ClientSession) -> None:
    status, problem = await relay(http, "POST", f"{server.url}/v1/asks", data=b"{not json")
    assert status == 400
    assert problem["error"]["code"] == "INVALID_BODY"


async def test_no_questions_is_400_empty_questions(
    server: Server, http: aiohttp.ClientSession
) -> None:
    status, problem = await relay(http, "POST", f"{server.url}/v1/asks", json={"questions": []})
    assert (status, problem["error"]["code"]) == (400, "EMPTY_QUESTIONS")
    assert problem["error"]["message"] == "ask_user_question requires at least one question"


async def test_a_bad_intent_is_422_bad_intent(server: Server, http: aiohttp.ClientSession) -> None:
    plan = {**DB, "intent": {"kind": "plan-review", "approve": "Ship"}, "detail": "plan"}
    status, problem = await relay(http, "POST", f"{server.url}/v1/asks", json={"questions": [plan]})
    assert (status, problem["error"]["code"]) == (422, "BAD_INTENT")


async def test_a_request_slack_cannot_show_is_422_ask_failed(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    many = {"id": "q", "question": "Pick", "options": [{"label": str(i)} for i in range(101)]}
    status, problem = await relay(http, "POST", f"{server.url}/v1/asks", json={"questions": [many]})
    assert (status, problem["error"]["code"]) == (422, "ASK_FAILED")
    assert emu.calls_to("chat.postMessage") == []


async def test_an_unknown_id_is_404(server: Server, http: aiohttp.ClientSession) -> None:
    assert (await relay(http, "GET", f"{server.url}/v1/asks/nope"))[0] == 404
    assert (await relay(http, "DELETE", f"{server.url}/v1/asks/nope"))[0] == 404


async def test_a_wait_over_60_seconds_is_400(server: Server, http: aiohttp.ClientSession) -> None:
    _, created = await relay(http, "POST", f"{server.url}/v1/asks", json={"questions": [DB]})
    status, problem = await relay(
        http, "GET", f"{server.url}/v1/asks/{created['id']}", params={"wait": "61"}
    )
    assert (status, [f["field"] for f in problem["fields"]]) == (400, ["wait"])


async def test_a_limit_that_is_not_an_ascii_number_is_400(
    server: Server, http: aiohttp.ClientSession
) -> None:
    for limit in ("²", "0", "501", "ten"):
        status, problem = await relay(http, "GET", f"{server.url}/v1/asks", params={"limit": limit})
        assert (status, [f["field"] for f in problem["fields"]]) == (400, ["limit"])


async def test_a_body_over_the_size_limit_is_413(
    server: Server, http: aiohttp.ClientSession
) -> None:
    huge = {"questions": [{"id": "q", "question": "x" * (300 * 1024)}]}
    status, problem = await relay(http, "POST", f"{server.url}/v1/asks", json=huge)
    assert (status, problem["error"]["code"]) == (413, "BODY_TOO_LARGE")


async def test_without_a_relay_token_the_relay_is_disabled(
    emu: SlackEmulator, tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    async with in_process(emu, tmp_path / "a.db", SLACK_QUESTIONS_RELAY_TOKEN="") as server:
        status, problem = await relay(http, "GET", f"{server.url}/v1/asks")
    assert (status, problem["error"]["code"]) == (503, "RELAY_DISABLED")


async def test_the_openapi_document_describes_every_route(
    server: Server, http: aiohttp.ClientSession
) -> None:
    status, document = await relay(http, "GET", f"{server.url}/v1/openapi.json", token=None)
    assert status == 200
    assert document["openapi"] == "3.1.0"
    assert sorted(document["paths"]) == [
        "/healthz",
        "/v1/asks",
        "/v1/asks/watch",
        "/v1/asks/{id}",
        "/v1/audit/export",
    ]
    assert "CreateAsk" in document["components"]["schemas"]


async def test_healthz_needs_no_token(server: Server, http: aiohttp.ClientSession) -> None:
    assert await relay(http, "GET", f"{server.url}/healthz", token=None) == (200, {"ok": True})


async def test_a_lone_surrogate_is_400_and_stores_nothing(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    raw = b'{"questions":[{"id":"6","question":"a","options":[{"label":"a","description":"\\udfff"}]}]}'
    status, problem = await relay(http, "POST", f"{server.url}/v1/asks", data=raw)
    assert (status, problem["error"]["code"]) == (400, "INVALID_BODY")
    # Refused while parsing the JSON, before any field is read: the position is named.
    assert problem["fields"] == [
        {
            "field": "body",
            "message": "Invalid JSON: lone leading surrogate in hex escape at line 1 column 84",
        }
    ]
    assert await server.store.recent() == []
    assert emu.calls_to("chat.postMessage") == []


async def test_a_duplicate_question_id_is_422_not_unique_named_at_its_own_field_path(
    server: Server, http: aiohttp.ClientSession
) -> None:
    # Valid by the OpenAPI document (no JSON schema can require unique ids), so not a 400.
    again = {**DB, "question": "Which database, again?"}
    status, problem = await relay(
        http, "POST", f"{server.url}/v1/asks", json={"questions": [DB, again]}
    )
    assert (status, problem["error"]["code"]) == (422, "NOT_UNIQUE")
    assert problem["fields"] == [
        {"field": "questions.1.id", "message": "duplicate question id 'db'"}
    ]


async def test_a_duplicate_option_label_is_422_not_unique(
    server: Server, http: aiohttp.ClientSession
) -> None:
    twice = {**DB, "options": [{"label": "Postgres"}, {"label": "Postgres"}]}
    status, problem = await relay(
        http, "POST", f"{server.url}/v1/asks", json={"questions": [twice]}
    )
    assert (status, problem["error"]["code"]) == (422, "NOT_UNIQUE")
    assert problem["fields"] == [
        {"field": "questions.0.options", "message": "duplicate option label 'Postgres'"}
    ]


async def test_a_duplicate_beside_a_malformed_field_is_400_invalid_body(
    server: Server, http: aiohttp.ClientSession
) -> None:
    again = {**DB, "question": 7}
    status, problem = await relay(
        http, "POST", f"{server.url}/v1/asks", json={"questions": [DB, again]}
    )
    assert (status, problem["error"]["code"]) == (400, "INVALID_BODY")


async def test_empty_questions_names_the_questions_field(
    server: Server, http: aiohttp.ClientSession
) -> None:
    _, problem = await relay(http, "POST", f"{server.url}/v1/asks", json={"questions": []})
    assert problem["fields"] == [
        {"field": "questions", "message": "at least one question is required"}
    ]


async def test_a_bad_intent_names_the_approve_label_of_that_question(
    server: Server, http: aiohttp.ClientSession
) -> None:
    plan = {**DB, "id": "plan", "intent": {"kind": "plan-review", "approve": "Ship"}, "detail": "p"}
    _, problem = await relay(http, "POST", f"{server.url}/v1/asks", json={"questions": [DB, plan]})
    assert problem["fields"] == [
        {
            "field": "questions.1.intent.approve",
            "message": "names none of the options: 'Postgres', 'SQLite'",
        }
    ]


async def test_a_plan_review_without_its_plan_names_the_detail_field(
    server: Server, http: aiohttp.ClientSession
) -> None:
    plan = {**DB, "intent": {"kind": "plan-review", "approve": "Postgres"}}
    _, problem = await relay(http, "POST", f"{server.url}/v1/asks", json={"questions": [plan]})
    assert (problem["error"]["code"], problem["fields"]) == (
        "BAD_INTENT",
        [{"field": "questions.0.detail", "message": "the plan to review is missing"}],
    )


async def test_the_list_and_agent_questions_share_one_team_view_and_its_permalinks(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    await relay(http, "POST", f"{server.url}/v1/asks", json={"questions": [DB]})
    await posted(emu)
    status, listed = await relay(http, "GET", f"{server.url}/v1/asks")
    assert status == 200
    [ask] = listed["asks"]
    await emu.person(ALICE).command("/agent-questions")
    await emu.wait_for(lambda: len(emu.ephemerals(ALICE)) == 1, what="the team list")
    # The link the relay looked up is the one the command shows: looked up once.
    [lookup] = emu.calls_to("chat.getPermalink")
    assert ask["permalink"] == lookup.response["permalink"]


async def test_the_pending_list_gives_agent_questions_permalink_and_age(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    body = {"questions": [DB], "agent": {"id": "deployer-7", "name": "Deploy agent"}}
    _, created = await relay(http, "POST", f"{server.url}/v1/asks", json=body)
    message = await posted(emu)
    status, listed = await relay(http, "GET", f"{server.url}/v1/asks", params={"state": "pending"})
    assert status == 200
    (ask,) = listed["asks"]
    permalink = (await emu.wait_for_call("chat.getPermalink")).response["permalink"]
    assert permalink.endswith(
        f"p{message.ts.replace('.', '')}?thread_ts={message.thread_ts}&cid={CHANNEL}"
    )
    assert ask == {
        "id": created["id"],
        "state": "pending",
        "policy": "default",
        "agent": {"id": "deployer-7", "name": "Deploy agent"},
        "questions": ["Which database?"],
        "permalink": permalink,
        "age_seconds": ask["age_seconds"],
    }
    assert 0 <= ask["age_seconds"] < 30
