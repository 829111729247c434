"""Socket Mode: Bolt's AsyncSocketModeHandler, hello, envelopes, acks, and reconnects."""

from __future__ import annotations

import asyncio
import json
from typing import Any
from unittest.mock import ANY

import aiohttp
import pytest
from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from slack_emulator import SlackEmulator

from .blocks import QUESTION_BLOCKS, answer_modal
from .conftest import ALICE, APP_TOKEN, QUESTIONS

Json = dict[str, Any]


async def test_bolt_over_socket_mode_gets_the_same_block_actions_payload(
    emu: SlackEmulator, client: AsyncWebClient, socket_app: AsyncApp
) -> None:
    bodies: list[Json] = []

    async def on_click(ack: AsyncAck, body: Json) -> None:
        bodies.append(body)
        await ack()

    socket_app.action("approve")(on_click)
    ts = (await client.chat_postMessage(channel=QUESTIONS, text="q", blocks=QUESTION_BLOCKS))["ts"]
    delivery = await emu.person(ALICE).click(emu.message(QUESTIONS, ts), text="Approve")
    assert (delivery.transport, delivery.acked, delivery.status, delivery.ack) == (
        "socket",
        True,
        None,
        None,
    )
    assert bodies == [delivery.payload]
    assert delivery.payload["type"] == "block_actions"
    assert delivery.payload["container"] == {
        "type": "message",
        "message_ts": ts,
        "channel_id": QUESTIONS,
        "is_ephemeral": False,
    }


async def test_a_socket_ack_with_a_response_action_is_applied(
    emu: SlackEmulator, socket_app: AsyncApp
) -> None:
    async def on_command(ack: AsyncAck, body: Json, client: AsyncWebClient) -> None:
        await ack()
        await client.views_open(trigger_id=body["trigger_id"], view=answer_modal())

    async def on_submit(ack: AsyncAck) -> None:
        await ack(response_action="errors", errors={"q1": "Pick one"})

    socket_app.command("/answer")(on_command)
    socket_app.view("answer")(on_submit)
    alice = emu.person(ALICE)
    await alice.command("/answer", channel=QUESTIONS)
    await emu.wait_for(lambda: len(emu.views(ALICE)) == 1)
    await alice.choose(emu.views(ALICE)[0], block_id="q1", value="0")
    delivery = await alice.submit(emu.views(ALICE)[0])
    assert delivery.ack == {"response_action": "errors", "errors": {"q1": "Pick one"}}
    assert emu.views(ALICE)[0].errors == {"q1": "Pick one"}


async def test_events_and_commands_travel_in_their_own_envelope_types(
    emu: SlackEmulator, socket_app: AsyncApp
) -> None:
    seen: list[str] = []

    async def on_home(ack: AsyncAck) -> None:
        seen.append("event")
        await ack()

    async def on_command(ack: AsyncAck) -> None:
        seen.append("command")
        await ack("ok")

    socket_app.event("app_home_opened")(on_home)
    socket_app.command("/agent-questions")(on_command)
    home = await emu.person(ALICE).open_home()
    command = await emu.person(ALICE).command("/agent-questions", channel=QUESTIONS)
    assert seen == ["event", "command"]
    assert (home.kind, home.acked, command.kind, command.ack) == (
        "event_callback",
        True,
        "slash_command",
        {"text": "ok"},
    )


async def test_the_server_says_hello_sends_envelopes_and_reads_acks(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    url = (await client.apps_connections_open(app_token=APP_TOKEN))["url"]
    emu.delivery = "socket"
    async with aiohttp.ClientSession() as session, session.ws_connect(url) as ws:
        assert json.loads((await ws.receive()).data) == {
            "type": "hello",
            "num_connections": 1,
            "debug_info": {
                "host": "applink-emulator",
                "build_number": 1,
                "approximate_connection_time": 18060,
            },
            "connection_info": {"app_id": emu.app_id},
        }
        opening = asyncio.create_task(emu.person(ALICE).open_home())
        envelope = json.loads((await ws.receive()).data)
        assert envelope == {
            "envelope_id": ANY,
            "payload": ANY,
            "type": "events_api",
            "accepts_response_payload": False,
            "retry_attempt": 0,
            "retry_reason": "",
        }
        assert envelope["payload"]["event"]["type"] == "app_home_opened"
        await ws.send_str(json.dumps({"envelope_id": envelope["envelope_id"]}))
        delivery = await opening
    assert (delivery.acked, delivery.ack, delivery.payload) == (True, None, envelope["payload"])


async def test_a_socket_url_is_good_for_one_connection(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    url = (await client.apps_connections_open(app_token=APP_TOKEN))["url"]
    async with aiohttp.ClientSession() as session:
        async with session.ws_connect(url) as ws:
            await ws.receive()
        async with session.get(url.replace("ws://", "http://")) as again:
            assert again.status == 401


async def test_bolt_reconnects_after_a_refresh_requested_disconnect(
    emu: SlackEmulator, client: AsyncWebClient, socket_app: AsyncApp
) -> None:
    clicks: list[Json] = []

    async def on_click(ack: AsyncAck, body: Json) -> None:
        clicks.append(body)
        await ack()

    socket_app.action("approve")(on_click)
    await emu.socket_mode.disconnect(reason="refresh_requested")
    await emu.socket_mode.wait_for_connection(2)
    ts = (await client.chat_postMessage(channel=QUESTIONS, text="q", blocks=QUESTION_BLOCKS))["ts"]
    delivery = await emu.person(ALICE).click(emu.message(QUESTIONS, ts), text="Approve")
    assert (delivery.acked, len(clicks), emu.socket_mode.connections_opened) == (True, 1, 2)
    assert len(emu.calls_to("apps.connections.open")) == 2


async def test_bolt_reconnects_after_the_connection_drops(
    emu: SlackEmulator, client: AsyncWebClient, socket_app: AsyncApp
) -> None:
    clicks: list[Json] = []

    async def on_click(ack: AsyncAck, body: Json) -> None:
        clicks.append(body)
        await ack()

    socket_app.action("approve")(on_click)
    await emu.socket_mode.drop()
    await emu.socket_mode.wait_for_connection(2)
    ts = (await client.chat_postMessage(channel=QUESTIONS, text="q", blocks=QUESTION_BLOCKS))["ts"]
    delivery = await emu.person(ALICE).click(emu.message(QUESTIONS, ts), text="Approve")
    assert (delivery.acked, len(clicks)) == (True, 1)


async def test_disconnecting_without_a_connection_is_a_connection_error(emu: SlackEmulator) -> None:
    with pytest.raises(ConnectionError, match="no Socket Mode connection"):
        await emu.socket_mode.drop()
