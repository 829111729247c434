"""The review policy through the relay: chosen by kind and agent before channel, default
otherwise, never by the asker's routing, and named in the relay's answer."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from bot.service.server import PRODUCT_TIMINGS, Server
from slack_emulator import Message, SlackEmulator

from ..harness import ALICE, BOB, CAROL, CHANNEL
from .harness import in_process, relay

OTHER = "C0ELSEWHER"  # a channel an asker routes to with `thread.channel`
POLICY = f"""
[kinds.plan-review]
reviewers = ["{ALICE}", "{BOB}"]
approvals = 2

[agents."deploy-bot"]
reviewers = ["{BOB}"]

[agents."deploy-bot".kinds.tool-approval]
reviewers = ["{ALICE}"]

[channels.{OTHER}]
reviewers = ["{BOB}"]
"""
PLAN = {
    "id": "plan",
    "question": "May I carry out this plan?",
    "detail": "# Plan\n\nDrop the old table.",
    "options": [{"label": "Approve"}, {"label": "Revise it"}],
    "intent": {"kind": "plan-review", "approve": "Approve"},
}
DB = {"id": "db", "question": "Which database?", "options": [{"label": "Postgres"}]}
TOOL = {
    "id": "approve",
    "question": "Allow Bash: `rm -rf build`?",
    "options": [{"label": "Allow"}, {"label": "Deny"}],
    "intent": {"kind": "tool-approval", "allow": "Allow", "tool": "Bash"},
}


@pytest.fixture
async def server(emu: SlackEmulator, tmp_path: Path) -> AsyncIterator[Server]:
    """The service with POLICY; Carol is the one ordinary responder."""
    emu.workspace.add_channel(OTHER, name="elsewhere", members=[ALICE, BOB, CAROL, emu.bot_user_id])
    policy = tmp_path / "review.toml"
    policy.write_text(POLICY)
    async with in_process(
        emu,
        tmp_path / "asks.db",
        SLACK_QUESTIONS_REVIEW_POLICY=str(policy),
        SLACK_QUESTIONS_RESPONDERS=CAROL,
        SLACK_QUESTIONS_CHANNELS=OTHER,  # the team lets asks go there too
    ) as running:
        yield running


async def create(http: aiohttp.ClientSession, server: Server, **body: object) -> str:
    status, view = await relay(http, "POST", f"{server.url}/v1/asks", json=body)
    assert status == 201, view
    return str(view["id"])


async def view_of(http: aiohttp.ClientSession, server: Server, ask_id: str) -> object:
    await server.provider.idle()
    _, view = await relay(http, "GET", f"{server.url}/v1/asks/{ask_id}")
    return view


async def ask_message(emu: SlackEmulator, channel: str) -> Message:
    """The first ask posted in `channel`."""

    def posts() -> list[Message]:
        return [
            emu.message(channel, str(call.response["ts"]))
            for call in emu.calls_to("chat.postMessage")
            if call.ok
            and call.response["channel"] == channel
            and (call.params.get("metadata") or {}).get("event_type") == "slack_questions_ask"
        ]

    await emu.wait_for(lambda: bool(posts()), what=f"an ask in {channel}")
    return posts()[0]


def shown(emu: SlackEmulator, message: Message) -> str:
    return json.dumps(emu.message(message.channel, message.ts).blocks, ensure_ascii=False)


async def test_a_plan_routed_to_another_channel_still_needs_both_reviewers(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    ask_id = await create(http, server, questions=[PLAN], thread={"channel": OTHER})
    message = await ask_message(emu, OTHER)
    await emu.person(CAROL).click(message, text="Approve")
    await server.provider.idle()
    assert [e.text for e in emu.ephemerals(CAROL)] == [
        f"Only <@{ALICE}>, <@{BOB}> may answer this question, so nothing changed."
    ]
    await emu.person(ALICE).click(message, text="Approve")
    assert await view_of(http, server, ask_id) == {
        "id": ask_id,
        "state": "pending",
        "policy": "kinds.plan-review",
    }
    assert f"approved 1/2: <@{ALICE}>" in shown(emu, message)
    await emu.person(BOB).click(emu.message(OTHER, message.ts), text="Approve")
    assert await view_of(http, server, ask_id) == {
        "id": ask_id,
        "state": "answered",
        "answer": {"answers": [{"id": "plan", "selected": ["Approve"]}]},
        "decided_by": BOB,
        "policy": "kinds.plan-review",
    }
    assert f"*Approved* by <@{ALICE}>, <@{BOB}>" in shown(emu, message)


async def test_an_agents_own_policy_wins_over_the_kinds(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    agent = {"id": "deploy-bot", "name": "Deploy bot"}
    ask_id = await create(http, server, questions=[PLAN], agent=agent)
    message = await ask_message(emu, CHANNEL)
    await emu.person(BOB).click(message, text="Approve")
    assert await view_of(http, server, ask_id) == {
        "id": ask_id,
        "state": "answered",
        "answer": {"answers": [{"id": "plan", "selected": ["Approve"]}]},
        "decided_by": BOB,
        "policy": "agents.deploy-bot",
    }


async def test_an_agents_policy_for_a_kind_wins_over_its_own(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    agent = {"id": "deploy-bot", "name": "Deploy bot"}
    ask_id = await create(http, server, questions=[TOOL], agent=agent)
    message = await ask_message(emu, CHANNEL)
    await emu.person(BOB).click(message, text="Allow")
    await server.provider.idle()
    assert [e.text for e in emu.ephemerals(BOB)] == [
        f"Only <@{ALICE}> may answer this question, so nothing changed."
    ]
    await emu.person(ALICE).click(message, text="Allow")
    view = await view_of(http, server, ask_id)
    assert view == {
        "id": ask_id,
        "state": "answered",
        "answer": {"answers": [{"id": "approve", "selected": ["Allow"]}]},
        "decided_by": ALICE,
        "policy": "agents.deploy-bot.kinds.tool-approval",
    }


async def test_a_channels_policy_applies_to_questions_there(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    ask_id = await create(http, server, questions=[DB], thread={"channel": OTHER})
    message = await ask_message(emu, OTHER)
    await emu.person(CAROL).click(message, text="Postgres")
    await server.provider.idle()
    assert [e.text for e in emu.ephemerals(CAROL)] == [
        f"Only <@{BOB}> may answer this question, so nothing changed."
    ]
    await emu.person(BOB).click(message, text="Postgres")
    assert await view_of(http, server, ask_id) == {
        "id": ask_id,
        "state": "answered",
        "answer": {"answers": [{"id": "db", "selected": ["Postgres"]}]},
        "decided_by": BOB,
        "policy": f"channels.{OTHER}",
    }


async def test_an_ask_no_policy_names_gets_the_default(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    ask_id = await create(http, server, questions=[DB], agent={"id": "other-bot"})
    message = await ask_message(emu, CHANNEL)
    await emu.person(CAROL).click(message, text="Postgres")
    assert await view_of(http, server, ask_id) == {
        "id": ask_id,
        "state": "answered",
        "answer": {"answers": [{"id": "db", "selected": ["Postgres"]}]},
        "decided_by": CAROL,
        "policy": "default",
    }


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"questions": [PLAN], "kind": "question"}, "kind"),
        ({"questions": [PLAN], "policy": "default"}, "policy"),
        ({"questions": [{**DB, "intent": {"kind": "question"}}]}, "questions.0.intent"),
    ],
    ids=["a kind beside the questions", "a policy by name", "a question intent"],
)
async def test_the_asker_cannot_name_the_kind_or_the_policy(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator, body: object, field: str
) -> None:
    status, problem = await relay(http, "POST", f"{server.url}/v1/asks", json=body)
    assert (status, problem["error"]["code"]) == (400, "INVALID_BODY")
    assert [f["field"] for f in problem["fields"]] == [field]
    await server.provider.idle()
    assert emu.calls_to("chat.postMessage") == []


async def test_a_tool_approval_whose_allow_names_no_option_is_bad_intent(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    tool = {**TOOL, "intent": {"kind": "tool-approval", "allow": "Yes"}}
    status, problem = await relay(http, "POST", f"{server.url}/v1/asks", json={"questions": [tool]})
    assert (status, problem["error"]["code"], problem["error"]["message"]) == (
        422,
        "BAD_INTENT",
        'question approve declares intent tool-approval whose allow label "Yes" names none '
        "of its options",
    )
    assert problem["fields"] == [
        {
            "field": "questions.0.intent.allow",
            "message": "names none of the options: 'Allow', 'Deny'",
        }
    ]
    assert emu.calls_to("chat.postMessage") == []


async def test_a_plan_in_a_batch_its_policys_approvals_cannot_be_counted_in_is_refused(
    server: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    status, problem = await relay(
        http, "POST", f"{server.url}/v1/asks", json={"questions": [PLAN, DB]}
    )
    assert (status, problem["error"]["code"], problem["error"]["message"]) == (
        422,
        "BAD_INTENT",
        "policy kinds.plan-review needs 2 approvals of a plan review, which only a lone "
        "single-select plan-review question can collect",
    )
    assert emu.calls_to("chat.postMessage") == []


async def test_an_ask_whose_policy_left_the_file_gets_the_default_after_a_restart(
    emu: SlackEmulator, http: aiohttp.ClientSession, tmp_path: Path
) -> None:
    policy, db = tmp_path / "review.toml", tmp_path / "asks.db"
    policy.write_text(POLICY)
    env = {"SLACK_QUESTIONS_REVIEW_POLICY": str(policy), "SLACK_QUESTIONS_RESPONDERS": CAROL}
    async with in_process(emu, db, timings=PRODUCT_TIMINGS, **env) as first:
        ask_id = await create(http, first, questions=[PLAN])
        message = await ask_message(emu, CHANNEL)
        await first.provider.idle()
    policy.write_text(f'[default]\nreviewers = ["{BOB}"]\n')
    async with in_process(emu, db, timings=PRODUCT_TIMINGS, **env) as second:
        await emu.person(ALICE).click(emu.message(CHANNEL, message.ts), text="Approve")
        await second.provider.idle()
        assert [e.text for e in emu.ephemerals(ALICE)] == [
            f"Only <@{BOB}> may answer this question, so nothing changed."
        ]
        await emu.person(BOB).click(emu.message(CHANNEL, message.ts), text="Approve")
        # Bob alone approves (the default needs one); the relay names what the ask chose.
        assert await view_of(http, second, ask_id) == {
            "id": ask_id,
            "state": "answered",
            "answer": {"answers": [{"id": "plan", "selected": ["Approve"]}]},
            "decided_by": BOB,
            "policy": "kinds.plan-review",
        }
