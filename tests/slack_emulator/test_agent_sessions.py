"""agents.sessions.setStatus and the Stop button, as Slack's docs describe them: only an app
declared as an agent has sessions; the first call creates the thread's session with its title,
later ones only move its status; Stop is offered only while the session is processing and the
app subscribes to `agent_session_stopped`, and pressing it sends that event."""

from __future__ import annotations

from typing import Any
from unittest.mock import ANY

import pytest
from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from slack_emulator import AgentSession, ManualClock, SlackEmulator
from slack_emulator.slack_error import SlackError

from .conftest import ALICE, CAROL, LOBBY, QUESTIONS

Json = dict[str, Any]


async def thread(client: AsyncWebClient) -> str:
    root = await client.chat_postMessage(channel=QUESTIONS, text="Deploy agent needs answers")
    return str(root["ts"])


async def error_of(client: AsyncWebClient, **arguments: Any) -> tuple[str, list[str]]:
    with pytest.raises(SlackApiError) as raised:
        await client.agents_sessions_setStatus(**arguments)
    response = raised.value.response
    return str(response["error"]), list(
        (response.get("response_metadata") or {}).get("messages", [])
    )


async def test_the_first_status_creates_the_session_with_its_title_and_initiator(
    emu: SlackEmulator, client: AsyncWebClient, clock: ManualClock
) -> None:
    emu.declare_agent()
    ts = await thread(client)
    answer = await client.agents_sessions_setStatus(
        channel_id=QUESTIONS,
        thread_ts=ts,
        status="suspended",
        title="Deploy agent · waiting for a plan review",
        initiator_user_id=ALICE,
    )
    assert answer.data == {
        "ok": True,
        "status": "suspended",
        "agent_status": "suspended",
        "title": "Deploy agent · waiting for a plan review",
    }
    assert emu.agent_session(QUESTIONS, ts) == AgentSession(
        channel=QUESTIONS,
        thread_ts=ts,
        status="suspended",
        title="Deploy agent · waiting for a plan review",
        initiator_user_id=ALICE,
        updated_at=clock.now(),
    )


async def test_a_later_status_moves_the_session_and_ignores_a_new_title(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    emu.declare_agent()
    ts = await thread(client)
    await client.agents_sessions_setStatus(
        channel_id=QUESTIONS, thread_ts=ts, status="suspended", title="first"
    )
    await client.agents_sessions_setStatus(
        channel_id=QUESTIONS, thread_ts=ts, status="processing", title="second"
    )
    session = emu.agent_session(QUESTIONS, ts)
    assert session is not None
    assert (session.status, session.title) == ("processing", "first")


async def test_an_app_not_declared_as_an_agent_is_refused_and_has_no_session(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    ts = await thread(client)
    error, _ = await error_of(client, channel_id=QUESTIONS, thread_ts=ts, status="processing")
    assert error == "missing_scope"
    assert emu.agent_session(QUESTIONS, ts) is None


async def test_a_status_outside_the_four_is_invalid_arguments(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    emu.declare_agent()
    ts = await thread(client)
    assert await error_of(client, channel_id=QUESTIONS, thread_ts=ts, status="is thinking…") == (
        "invalid_arguments",
        ["[ERROR] status must be one of active, processing, suspended, closed"],
    )


async def test_a_missing_thread_is_invalid_arguments_and_an_unknown_one_invalid_thread_ts(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    emu.declare_agent()
    missing, _ = await error_of(client, channel_id=QUESTIONS, status="active")
    unknown, _ = await error_of(client, channel_id=QUESTIONS, thread_ts="1.000001", status="active")
    assert (missing, unknown) == ("invalid_arguments", "invalid_thread_ts")


async def test_a_title_over_200_characters_is_invalid_arguments(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    emu.declare_agent()
    ts = await thread(client)
    assert await error_of(
        client, channel_id=QUESTIONS, thread_ts=ts, status="active", title="x" * 201
    ) == ("invalid_arguments", ["[ERROR] title: no more than 200 characters"])


async def test_a_channel_the_bot_is_not_in_is_not_in_channel(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    emu.declare_agent()
    error, _ = await error_of(client, channel_id=LOBBY, thread_ts="1.000001", status="active")
    assert error == "not_in_channel"


async def test_an_initiator_outside_the_channel_is_user_not_in_channel(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    emu.declare_agent()
    ts = await thread(client)
    error, _ = await error_of(
        client, channel_id=QUESTIONS, thread_ts=ts, status="active", initiator_user_id=CAROL
    )
    assert error == "user_not_in_channel"


async def test_without_the_stop_subscription_each_status_carries_slacks_warning(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    emu.declare_agent(subscribed=False)
    ts = await thread(client)
    answer = await client.agents_sessions_setStatus(
        channel_id=QUESTIONS, thread_ts=ts, status="processing"
    )
    assert answer["response_metadata"] == {
        "warnings": ["missing_agent_session_stopped_event_subscription"]
    }


async def test_pressing_stop_on_a_processing_session_sends_agent_session_stopped(
    emu: SlackEmulator, client: AsyncWebClient, http_app: AsyncApp
) -> None:
    events: list[Json] = []

    async def on_stop(ack: AsyncAck, event: Json) -> None:
        events.append(event)
        await ack()

    http_app.event("agent_session_stopped")(on_stop)
    emu.declare_agent()
    ts = await thread(client)
    await client.agents_sessions_setStatus(channel_id=QUESTIONS, thread_ts=ts, status="processing")
    await emu.person(ALICE).stop_agent_session(QUESTIONS, ts)
    assert events == [
        {
            "type": "agent_session_stopped",
            "channel": QUESTIONS,
            "user": ALICE,
            "thread_ts": ts,
            "streaming_message_ts": [],
            "event_ts": ANY,
        }
    ]
    session = emu.agent_session(QUESTIONS, ts)
    assert session is not None
    assert session.status == "processing"  # moving it on is the app's job


async def test_stop_is_not_offered_while_the_session_is_suspended(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    emu.declare_agent()
    ts = await thread(client)
    await client.agents_sessions_setStatus(channel_id=QUESTIONS, thread_ts=ts, status="suspended")
    with pytest.raises(SlackError, match="only while processing; the session is suspended"):
        await emu.person(ALICE).stop_agent_session(QUESTIONS, ts)
    assert emu.deliveries == []


async def test_stop_is_not_offered_without_the_subscription(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    emu.declare_agent(subscribed=False)
    ts = await thread(client)
    await client.agents_sessions_setStatus(channel_id=QUESTIONS, thread_ts=ts, status="processing")
    with pytest.raises(SlackError, match="does not subscribe to agent_session_stopped"):
        await emu.person(ALICE).stop_agent_session(QUESTIONS, ts)
    assert emu.deliveries == []


async def test_rename_retitles_an_existing_session(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    emu.declare_agent()
    ts = await thread(client)
    await client.agents_sessions_setStatus(
        channel_id=QUESTIONS, thread_ts=ts, status="suspended", title="first"
    )
    await client.agents_sessions_rename(channel_id=QUESTIONS, thread_ts=ts, title="second")
    session = emu.agent_session(QUESTIONS, ts)
    assert session is not None
    assert session.title == "second"


async def test_rename_before_any_status_is_not_authorized(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    emu.declare_agent()
    ts = await thread(client)
    with pytest.raises(SlackApiError) as raised:
        await client.agents_sessions_rename(channel_id=QUESTIONS, thread_ts=ts, title="early")
    assert raised.value.response["error"] == "not_authorized"
