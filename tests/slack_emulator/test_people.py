"""People acting on messages: a real Bolt app (HTTP mode) receives Slack's block_actions."""

from __future__ import annotations

import re
from typing import Any
from unittest.mock import ANY

import pytest
from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from slack_emulator import SlackEmulator

from .blocks import INITIAL_STATE, QUESTION_BLOCKS, stored_option, stored_plain
from .conftest import ALICE, BOB, CAROL, LOBBY, QUESTIONS

Json = dict[str, Any]


async def post_question(client: AsyncWebClient) -> str:
    return str(
        (
            await client.chat_postMessage(
                channel=QUESTIONS, text="Which database?", blocks=QUESTION_BLOCKS
            )
        )["ts"]
    )


def listen(app: AsyncApp, action_id: str) -> list[Json]:
    """Register an acking listener for `action_id`; returns the bodies it receives."""
    bodies: list[Json] = []

    async def listener(ack: AsyncAck, body: Json) -> None:
        bodies.append(body)
        await ack()

    app.action(action_id)(listener)
    return bodies


async def test_a_click_sends_bolt_exactly_slacks_block_actions_payload(
    emu: SlackEmulator, client: AsyncWebClient, http_app: AsyncApp
) -> None:
    bodies = listen(http_app, "approve")
    ts = await post_question(client)
    delivery = await emu.person(ALICE).click(emu.message(QUESTIONS, ts), text="Approve")
    assert (delivery.kind, delivery.status, delivery.acked, delivery.ack, delivery.transport) == (
        "block_actions",
        200,
        True,
        None,
        "http",
    )
    assert bodies == [delivery.payload]
    assert delivery.payload == {
        "type": "block_actions",
        "user": {"id": ALICE, "username": "alice", "name": "alice", "team_id": emu.team_id},
        "api_app_id": emu.app_id,
        "token": emu.identity.verification_token,
        "container": {
            "type": "message",
            "message_ts": ts,
            "channel_id": QUESTIONS,
            "is_ephemeral": False,
        },
        "trigger_id": ANY,
        "team": {"id": emu.team_id, "domain": "emulator"},
        "enterprise": None,
        "is_enterprise_install": False,
        "channel": {"id": QUESTIONS, "name": "agent-questions"},
        "message": emu.message(QUESTIONS, ts).to_wire(),
        "state": {"values": INITIAL_STATE},
        "response_url": ANY,
        "actions": [
            {
                "action_id": "approve",
                "block_id": "q1",
                "text": stored_plain("Approve"),
                "value": "0",
                "style": "primary",
                "type": "button",
                "action_ts": ANY,
            }
        ],
    }
    assert re.fullmatch(r"\d+\.\d+\.[0-9a-f]{32}", delivery.payload["trigger_id"])
    assert delivery.payload["response_url"].startswith(f"{emu.url}/actions/")
    assert 0 < (delivery.ack_seconds or 0) < 3


async def test_a_static_select_reports_the_chosen_option(
    emu: SlackEmulator, client: AsyncWebClient, http_app: AsyncApp
) -> None:
    bodies = listen(http_app, "pick")
    ts = await post_question(client)
    await emu.person(ALICE).select(
        emu.message(QUESTIONS, ts), block_id="q1", action_id="pick", value="1"
    )
    (body,) = bodies
    assert body["actions"] == [
        {
            "action_id": "pick",
            "block_id": "q1",
            "type": "static_select",
            "selected_option": stored_option("SQLite", "1"),
            "placeholder": stored_plain("Choose"),
            "action_ts": ANY,
        }
    ]
    assert body["state"]["values"]["q1"]["pick"] == {
        "type": "static_select",
        "selected_option": stored_option("SQLite", "1"),
    }


async def test_a_multi_select_reports_every_chosen_option(
    emu: SlackEmulator, client: AsyncWebClient, http_app: AsyncApp
) -> None:
    bodies = listen(http_app, "many")
    ts = await post_question(client)
    await emu.person(ALICE).select(emu.message(QUESTIONS, ts), action_id="many", values=["2", "0"])
    chosen = [stored_option("DuckDB", "2"), stored_option("Postgres (Recommended)", "0")]
    assert bodies[0]["actions"][0]["selected_options"] == chosen
    assert bodies[0]["state"]["values"]["q1"]["many"] == {
        "type": "multi_static_select",
        "selected_options": chosen,
    }


async def test_checkboxes_end_up_with_exactly_the_given_options_in_their_order(
    emu: SlackEmulator, client: AsyncWebClient, http_app: AsyncApp
) -> None:
    bodies = listen(http_app, "boxes")
    ts = await post_question(client)
    alice = emu.person(ALICE)
    await alice.check(emu.message(QUESTIONS, ts), block_id="q2", values=["2", "0"])
    await alice.check(emu.message(QUESTIONS, ts), block_id="q2", values=["1"])
    assert [b["actions"][0]["selected_options"] for b in bodies] == [
        [stored_option("Postgres (Recommended)", "0"), stored_option("DuckDB", "2")],
        [stored_option("SQLite", "1")],
    ]
    assert bodies[1]["actions"][0]["type"] == "checkboxes"


async def test_a_radio_button_reports_the_chosen_option(
    emu: SlackEmulator, client: AsyncWebClient, http_app: AsyncApp
) -> None:
    bodies = listen(http_app, "radio")
    ts = await post_question(client)
    await emu.person(ALICE).choose(emu.message(QUESTIONS, ts), block_id="q2", value="2")
    assert bodies[0]["actions"][0]["selected_option"] == stored_option("DuckDB", "2")
    assert bodies[0]["state"]["values"]["q2"]["radio"] == {
        "type": "radio_buttons",
        "selected_option": stored_option("DuckDB", "2"),
    }


async def test_typing_in_an_input_block_only_drafts_until_something_dispatches(
    emu: SlackEmulator, client: AsyncWebClient, http_app: AsyncApp
) -> None:
    bodies = listen(http_app, "approve")
    ts = await post_question(client)
    alice = emu.person(ALICE)
    assert (
        await alice.type(emu.message(QUESTIONS, ts), block_id="q3", text="  MySQL\nplease ") is None
    )
    assert emu.deliveries == []
    await alice.click(emu.message(QUESTIONS, ts), action_id="approve")
    assert bodies[0]["state"]["values"]["q3"] == {
        "other": {"type": "plain_text_input", "value": "  MySQL\nplease "}
    }


async def test_each_person_has_their_own_draft(
    emu: SlackEmulator, client: AsyncWebClient, http_app: AsyncApp
) -> None:
    bodies = listen(http_app, "approve")
    ts = await post_question(client)
    await emu.person(ALICE).type(emu.message(QUESTIONS, ts), block_id="q3", text="mine")
    await emu.person(BOB).click(emu.message(QUESTIONS, ts), action_id="approve")
    assert bodies[0]["state"]["values"]["q3"]["other"]["value"] is None


async def test_an_input_block_with_dispatch_action_sends_block_actions(
    emu: SlackEmulator, client: AsyncWebClient, http_app: AsyncApp
) -> None:
    bodies = listen(http_app, "enter")
    ts = await post_question(client)
    delivery = await emu.person(ALICE).type(emu.message(QUESTIONS, ts), block_id="q4", text="Hi")
    assert delivery is not None
    assert delivery.acked
    assert bodies[0]["actions"] == [
        {
            "action_id": "enter",
            "block_id": "q4",
            "type": "plain_text_input",
            "value": "Hi",
            "action_ts": ANY,
        }
    ]


async def test_clicking_a_button_in_a_thread_reply_names_the_thread(
    emu: SlackEmulator, client: AsyncWebClient, http_app: AsyncApp
) -> None:
    bodies = listen(http_app, "approve")
    root = (await client.chat_postMessage(channel=QUESTIONS, text="root"))["ts"]
    reply = (
        await client.chat_postMessage(
            channel=QUESTIONS, text="q", blocks=QUESTION_BLOCKS, thread_ts=root
        )
    )["ts"]
    await emu.person(ALICE).click(emu.message(QUESTIONS, reply), text="Approve")
    assert bodies[0]["container"] == {
        "type": "message",
        "message_ts": reply,
        "channel_id": QUESTIONS,
        "is_ephemeral": False,
        "thread_ts": root,
    }
    assert bodies[0]["message"]["thread_ts"] == root


async def test_a_click_on_an_ephemeral_message_carries_no_message(
    emu: SlackEmulator, client: AsyncWebClient, http_app: AsyncApp
) -> None:
    bodies = listen(http_app, "approve")
    await client.chat_postEphemeral(channel=QUESTIONS, user=ALICE, text="q", blocks=QUESTION_BLOCKS)
    (ephemeral,) = emu.ephemerals(ALICE)
    await emu.person(ALICE).click(ephemeral, text="Approve")
    assert bodies[0]["container"]["is_ephemeral"] is True
    assert "message" not in bodies[0]
    with pytest.raises(LookupError, match="shown to bob"):
        await emu.person(BOB).click(ephemeral, text="Approve")


async def test_acting_on_a_missing_element_lists_what_is_there(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    ts = await post_question(client)
    with pytest.raises(LookupError) as caught:
        await emu.person(ALICE).click(emu.message(QUESTIONS, ts), action_id="nope")
    assert str(caught.value) == (
        "nothing to click with action_id='nope'; present: "
        "button \"Approve\" (block_id='q1', action_id='approve'); "
        "button \"Decline\" (block_id='q1', action_id='decline'); "
        "static_select (block_id='q1', action_id='pick'); "
        "multi_static_select (block_id='q1', action_id='many'); "
        "checkboxes (block_id='q2', action_id='boxes'); "
        "radio_buttons (block_id='q2', action_id='radio'); "
        "plain_text_input (block_id='q3', action_id='other'); "
        "plain_text_input (block_id='q4', action_id='enter')"
    )


async def test_a_button_removed_by_an_update_cannot_be_clicked(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    ts = await post_question(client)
    before = emu.message(QUESTIONS, ts)
    await client.chat_update(channel=QUESTIONS, ts=ts, text="Answered", blocks=[QUESTION_BLOCKS[0]])
    with pytest.raises(LookupError, match="nothing to click"):
        await emu.person(ALICE).click(before, text="Approve")


async def test_a_deleted_message_cannot_be_acted_on(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    ts = await post_question(client)
    message = emu.message(QUESTIONS, ts)
    await client.chat_delete(channel=QUESTIONS, ts=ts)
    with pytest.raises(LookupError, match="no message"):
        await emu.person(ALICE).click(message, text="Approve")


async def test_an_unknown_option_value_lists_the_options(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    ts = await post_question(client)
    with pytest.raises(LookupError, match="options: '0', '1', '2'"):
        await emu.person(ALICE).select(emu.message(QUESTIONS, ts), action_id="pick", value="9")


async def test_an_ambiguous_target_asks_for_more_ids(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    ts = await post_question(client)
    with pytest.raises(LookupError, match="2 elements to click match block_id='q1'"):
        await emu.person(ALICE).click(emu.message(QUESTIONS, ts), block_id="q1")


async def test_a_multi_select_needs_values_and_a_single_select_a_value(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    ts = await post_question(client)
    alice = emu.person(ALICE)
    with pytest.raises(ValueError, match="multi-select"):
        await alice.select(emu.message(QUESTIONS, ts), action_id="many", value="0")
    with pytest.raises(ValueError, match="one option"):
        await alice.select(emu.message(QUESTIONS, ts), action_id="pick", values=["0"])


async def test_a_thread_reply_reaches_bolt_as_slacks_message_event(
    emu: SlackEmulator, client: AsyncWebClient, http_app: AsyncApp
) -> None:
    bodies: list[Json] = []

    async def on_message(ack: AsyncAck, body: Json) -> None:
        bodies.append(body)
        await ack()

    http_app.event("message")(on_message)
    root = (await client.chat_postMessage(channel=QUESTIONS, text="Which database?"))["ts"]
    reply = await emu.person(ALICE).reply(QUESTIONS, root, "SQLite, please")
    (body,) = bodies
    assert body == emu.deliveries[-1].payload
    assert body["type"] == "event_callback"
    assert body["authorizations"] == [
        {
            "enterprise_id": None,
            "team_id": emu.team_id,
            "user_id": emu.bot_user_id,
            "is_bot": True,
            "is_enterprise_install": False,
        }
    ]
    assert body["event"] == {
        "type": "message",
        "text": "SQLite, please",
        "user": ALICE,
        "ts": reply.ts,
        "team": emu.team_id,
        "client_msg_id": ANY,
        "blocks": [
            {
                "type": "rich_text",
                "block_id": ANY,
                "elements": [
                    {
                        "type": "rich_text_section",
                        "elements": [{"type": "text", "text": "SQLite, please"}],
                    }
                ],
            }
        ],
        "thread_ts": root,
        "parent_user_id": emu.bot_user_id,
        "channel": QUESTIONS,
        "event_ts": reply.ts,
        "channel_type": "channel",
    }


async def test_a_message_where_the_app_is_not_a_member_is_not_delivered(
    emu: SlackEmulator, http_app: AsyncApp
) -> None:
    said = await emu.person(ALICE).say(LOBBY, "hello")
    assert emu.channel_messages(LOBBY) == [said]
    assert emu.deliveries == []


async def test_a_person_outside_a_channel_cannot_post_there(emu: SlackEmulator) -> None:
    with pytest.raises(ValueError, match="not a member"):
        await emu.person(CAROL).say(QUESTIONS, "let me in")


async def test_app_home_opened_carries_the_published_home_view(
    emu: SlackEmulator, client: AsyncWebClient, http_app: AsyncApp
) -> None:
    events: list[Json] = []

    async def on_home(ack: AsyncAck, event: Json, client: AsyncWebClient) -> None:
        events.append(event)
        await ack()
        await client.views_publish(user_id=event["user"], view={"type": "home", "blocks": []})

    http_app.event("app_home_opened")(on_home)
    alice = emu.person(ALICE)
    await alice.open_home()
    await emu.wait_for_call("views.publish")
    await alice.open_home()
    home = emu.home(ALICE)
    assert home is not None
    dm = emu.workspace.im_channel(ALICE).id
    assert events == [
        {"type": "app_home_opened", "user": ALICE, "channel": dm, "tab": "home", "event_ts": ANY},
        {
            "type": "app_home_opened",
            "user": ALICE,
            "channel": dm,
            "tab": "home",
            "event_ts": ANY,
            "view": home.to_wire(),
        },
    ]


async def test_a_slash_command_reaches_bolt_with_slacks_form_fields(
    emu: SlackEmulator, http_app: AsyncApp
) -> None:
    bodies: list[Json] = []

    async def on_command(ack: AsyncAck, body: Json) -> None:
        bodies.append(body)
        await ack("Working on it")

    http_app.command("/agent-questions")(on_command)
    delivery = await emu.person(ALICE).command("/agent-questions", "status", channel=QUESTIONS)
    assert bodies == [
        {
            "token": emu.identity.verification_token,
            "team_id": emu.team_id,
            "team_domain": "emulator",
            "channel_id": QUESTIONS,
            "channel_name": "agent-questions",
            "user_id": ALICE,
            "user_name": "alice",
            "command": "/agent-questions",
            "text": "status",
            "api_app_id": emu.app_id,
            "is_enterprise_install": "false",
            "response_url": ANY,
            "trigger_id": ANY,
        }
    ]
    assert delivery.ack == {"text": "Working on it"}
    assert [(e.channel, e.text) for e in emu.ephemerals(ALICE)] == [(QUESTIONS, "Working on it")]


async def test_an_in_channel_command_ack_is_posted_to_the_channel(
    emu: SlackEmulator, http_app: AsyncApp
) -> None:
    async def on_command(ack: AsyncAck) -> None:
        await ack(text="Everyone: a question is pending", response_type="in_channel")

    http_app.command("/agent-questions")(on_command)
    await emu.person(ALICE).command("/agent-questions", channel=QUESTIONS)
    assert [(m.text, m.user) for m in emu.channel_messages(QUESTIONS)] == [
        ("Everyone: a question is pending", emu.bot_user_id)
    ]


async def test_an_overflow_menu_reports_the_chosen_option(
    emu: SlackEmulator, client: AsyncWebClient, http_app: AsyncApp
) -> None:
    bodies = listen(http_app, "more")
    overflow = {
        "type": "overflow",
        "action_id": "more",
        "options": [{"text": {"type": "plain_text", "text": "Skip"}, "value": "skip"}] * 2,
    }
    blocks = [
        {
            "type": "section",
            "block_id": "s",
            "text": {"type": "mrkdwn", "text": "q"},
            "accessory": overflow,
        }
    ]
    ts = (await client.chat_postMessage(channel=QUESTIONS, text="q", blocks=blocks))["ts"]
    await emu.person(ALICE).select(emu.message(QUESTIONS, ts), action_id="more", value="skip")
    assert bodies[0]["actions"] == [
        {
            "action_id": "more",
            "block_id": "s",
            "type": "overflow",
            "selected_option": stored_option("Skip", "skip"),
            "action_ts": ANY,
        }
    ]
    assert bodies[0]["state"]["values"] == {}


async def test_a_button_on_the_home_tab_sends_block_actions_from_the_view(
    emu: SlackEmulator, client: AsyncWebClient, http_app: AsyncApp
) -> None:
    bodies = listen(http_app, "approve")
    await client.views_publish(user_id=ALICE, view={"type": "home", "blocks": QUESTION_BLOCKS[:2]})
    home = emu.home(ALICE)
    assert home is not None
    await emu.person(ALICE).click(home, text="Approve")
    assert bodies[0]["container"] == {"type": "view", "view_id": home.id}
    assert bodies[0]["view"]["type"] == "home"
    assert "response_url" not in bodies[0]
