"""The Web API: Slack's request and response shapes, errors, state, and the call record."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import aiohttp
import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from slack_emulator import ApiCall, BlockKitViolation, Edited, SlackEmulator

from .conftest import ALICE, APP_TOKEN, BOB, BOT_TOKEN, CAROL, LOBBY, QUESTIONS, REVIEWERS, SECRETS

TS = re.compile(r"^\d{10}\.\d{6}$")
SECTION = {"type": "section", "block_id": "intro", "text": {"type": "mrkdwn", "text": "Hello"}}


async def raw_post(
    emu: SlackEmulator,
    method: str,
    *,
    data: Any = None,
    json_body: Any = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, dict[str, Any]]:
    async with (
        aiohttp.ClientSession() as session,
        session.post(emu.api_url + method, data=data, json=json_body, headers=headers) as response,
    ):
        return response.status, await response.json()


async def api_error(call: Any) -> SlackApiError:
    with pytest.raises(SlackApiError) as caught:
        await call
    return caught.value


async def test_auth_test_names_the_bot_and_the_workspace(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    response = await client.auth_test()
    assert response.status_code == 200
    assert response.data == {
        "ok": True,
        "url": "https://emulator.slack.com/",
        "team": "Emulated Workspace",
        "user": "slack-questions",
        "team_id": emu.team_id,
        "user_id": emu.bot_user_id,
        "bot_id": emu.bot_id,
        "app_id": emu.app_id,
        "app_name": "slack-questions",
        "is_enterprise_install": False,
    }


async def test_a_wrong_token_is_invalid_auth_with_http_200(emu: SlackEmulator) -> None:
    wrong = AsyncWebClient(token="xoxb-wrong", base_url=emu.api_url)
    error = await api_error(wrong.auth_test())
    assert error.response.status_code == 200
    assert error.response.data == {"ok": False, "error": "invalid_auth"}


async def test_a_call_without_a_token_is_not_authed(emu: SlackEmulator) -> None:
    assert await raw_post(emu, "auth.test") == (200, {"ok": False, "error": "not_authed"})


async def test_an_app_level_token_cannot_post_messages(emu: SlackEmulator) -> None:
    app_client = AsyncWebClient(token=APP_TOKEN, base_url=emu.api_url)
    error = await api_error(app_client.chat_postMessage(channel=QUESTIONS, text="hi"))
    assert error.response["error"] == "not_allowed_token_type"


async def test_an_unknown_method_is_unknown_method(client: AsyncWebClient) -> None:
    error = await api_error(client.api_call("chat.teleport"))
    assert error.response.data == {
        "ok": False,
        "error": "unknown_method",
        "req_method": "chat.teleport",
    }


async def test_form_and_json_bodies_and_both_token_styles_post_the_same_message(
    emu: SlackEmulator,
) -> None:
    form = {
        "token": BOT_TOKEN,
        "channel": QUESTIONS,
        "text": "form",
        "blocks": json.dumps([SECTION]),
    }
    status, by_form = await raw_post(emu, "chat.postMessage", data=form)
    assert (status, by_form["ok"]) == (200, True)
    status, by_json = await raw_post(
        emu,
        "chat.postMessage",
        json_body={"channel": QUESTIONS, "text": "json", "blocks": [SECTION]},
        headers={"Authorization": f"Bearer {BOT_TOKEN}"},
    )
    assert (status, by_json["ok"]) == (200, True)
    stored = [
        emu.message(QUESTIONS, by_form["ts"]).blocks,
        emu.message(QUESTIONS, by_json["ts"]).blocks,
    ]
    assert stored[0] == stored[1]
    assert [call.params for call in emu.calls_to("chat.postMessage")] == [
        {"channel": QUESTIONS, "text": "form", "blocks": [SECTION]},
        {"channel": QUESTIONS, "text": "json", "blocks": [SECTION]},
    ]


async def test_a_token_inside_a_json_body_does_not_authenticate(emu: SlackEmulator) -> None:
    body = {"token": BOT_TOKEN, "channel": QUESTIONS, "text": "hi"}
    assert await raw_post(emu, "chat.postMessage", json_body=body) == (
        200,
        {"ok": False, "error": "not_authed"},
    )


async def test_post_message_answers_with_the_stored_message(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    response = await client.chat_postMessage(
        channel=QUESTIONS, text="Which database?", blocks=[SECTION]
    )
    ts = response["ts"]
    assert TS.match(ts)
    assert response.data == {
        "ok": True,
        "channel": QUESTIONS,
        "ts": ts,
        "message": {
            "type": "message",
            "bot_id": emu.bot_id,
            "app_id": emu.app_id,
            "text": "Which database?",
            "user": emu.bot_user_id,
            "ts": ts,
            "team": emu.team_id,
            "blocks": [
                {
                    "type": "section",
                    "block_id": "intro",
                    "text": {"type": "mrkdwn", "text": "Hello", "verbatim": False},
                }
            ],
        },
    }


async def test_message_timestamps_are_unique_and_increasing_while_the_clock_stands_still(
    client: AsyncWebClient,
) -> None:
    stamps = [
        (await client.chat_postMessage(channel=QUESTIONS, text=str(i)))["ts"] for i in range(3)
    ]
    assert stamps == ["1700000000.000000", "1700000000.000001", "1700000000.000002"]


async def test_slack_fills_in_missing_block_ids_and_action_ids(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    button = {"type": "button", "text": {"type": "plain_text", "text": "Go"}}
    response = await client.chat_postMessage(
        channel=QUESTIONS, text="t", blocks=[{"type": "actions", "elements": [button]}]
    )
    (block,) = emu.message(QUESTIONS, response["ts"]).blocks
    assert re.fullmatch(r"[A-Za-z0-9]{5}", block["block_id"])
    assert re.fullmatch(r"[A-Za-z0-9]{5}", block["elements"][0]["action_id"])


async def test_posting_where_the_bot_is_not_a_member_is_not_in_channel(
    client: AsyncWebClient,
) -> None:
    error = await api_error(client.chat_postMessage(channel=LOBBY, text="hi"))
    assert error.response.data == {"ok": False, "error": "not_in_channel"}


async def test_a_private_channel_without_the_bot_does_not_exist_for_it(
    client: AsyncWebClient,
) -> None:
    error = await api_error(client.chat_postMessage(channel=SECRETS, text="hi"))
    assert error.response["error"] == "channel_not_found"


async def test_posting_to_an_unknown_channel_is_channel_not_found(client: AsyncWebClient) -> None:
    error = await api_error(client.chat_postMessage(channel="C0NOWHERE", text="hi"))
    assert error.response["error"] == "channel_not_found"


async def test_a_channel_can_be_named_and_a_user_id_posts_to_the_bots_dm(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    by_name = await client.chat_postMessage(channel="#agent-questions", text="hi")
    assert by_name["channel"] == QUESTIONS
    dm = await client.chat_postMessage(channel=ALICE, text="psst")
    assert dm["channel"].startswith("D")
    assert [m.text for m in emu.channel_messages(dm["channel"])] == ["psst"]


async def test_a_message_without_text_or_blocks_is_no_text(emu: SlackEmulator) -> None:
    form = {"token": BOT_TOKEN, "channel": QUESTIONS}
    assert await raw_post(emu, "chat.postMessage", data=form) == (
        200,
        {"ok": False, "error": "no_text"},
    )


async def test_text_over_40000_characters_is_msg_too_long(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    error = await api_error(client.chat_postMessage(channel=QUESTIONS, text="x" * 40_001))
    assert error.response["error"] == "msg_too_long"
    assert emu.violations == [
        BlockKitViolation(
            "chat.postMessage", "message.text", "/text", "must be less than 40001 characters"
        )
    ]


async def test_invalid_blocks_are_refused_as_slack_does_and_recorded(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    blocks = [{"type": "section", "text": {"type": "mrkdwn", "text": "x"}}] * 51
    error = await api_error(
        client.chat_postMessage(channel=QUESTIONS, text="too many", blocks=blocks)
    )
    assert error.response.data == {
        "ok": False,
        "error": "invalid_blocks",
        "response_metadata": {
            "messages": ["[ERROR] no more than 50 items allowed [json-pointer:/blocks]"]
        },
    }
    assert emu.violations == [
        BlockKitViolation(
            "chat.postMessage", "message.blocks", "/blocks", "no more than 50 items allowed"
        )
    ]
    assert emu.channel_messages(QUESTIONS) == []


async def test_blocks_that_are_not_json_are_invalid_blocks_format(emu: SlackEmulator) -> None:
    form = {"token": BOT_TOKEN, "channel": QUESTIONS, "text": "t", "blocks": "[{not json"}
    assert await raw_post(emu, "chat.postMessage", data=form) == (
        200,
        {"ok": False, "error": "invalid_blocks_format"},
    )


async def test_metadata_posted_with_a_message_is_kept(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    metadata = {"event_type": "question_asked", "event_payload": {"ask_id": "a1"}}
    response = await client.chat_postMessage(channel=QUESTIONS, text="q", metadata=metadata)
    assert emu.message(QUESTIONS, response["ts"]).metadata == metadata
    history = await client.conversations_history(channel=QUESTIONS)
    assert history["messages"][0]["metadata"] == metadata


async def test_replies_thread_under_the_root_and_update_its_counts(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    root = (await client.chat_postMessage(channel=QUESTIONS, text="root"))["ts"]
    first = (await client.chat_postMessage(channel=QUESTIONS, text="one", thread_ts=root))["ts"]
    second = (await emu.person(ALICE).reply(QUESTIONS, root, "two")).ts
    thread = emu.thread(QUESTIONS, root)
    assert [(m.text, m.thread_ts, m.parent_user_id) for m in thread] == [
        ("root", root, None),
        ("one", root, emu.bot_user_id),
        ("two", root, emu.bot_user_id),
    ]
    assert (thread[0].reply_count, thread[0].reply_users, thread[0].latest_reply) == (
        2,
        (emu.bot_user_id, ALICE),
        second,
    )
    replies = await client.conversations_replies(channel=QUESTIONS, ts=first)
    assert [m["ts"] for m in replies["messages"]] == [root, first, second]
    assert replies["messages"][0]["reply_count"] == 2
    assert replies["messages"][0]["reply_users"] == [emu.bot_user_id, ALICE]
    assert [m.ts for m in emu.channel_messages(QUESTIONS)] == [root]


async def test_replying_to_an_unknown_thread_is_thread_not_found(client: AsyncWebClient) -> None:
    error = await api_error(
        client.chat_postMessage(channel=QUESTIONS, text="x", thread_ts="1600000000.000001")
    )
    assert error.response["error"] == "thread_not_found"


async def test_an_update_marks_the_message_edited_and_keeps_its_thread(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    root = (await client.chat_postMessage(channel=QUESTIONS, text="before"))["ts"]
    await client.chat_postMessage(channel=QUESTIONS, text="reply", thread_ts=root)
    response = await client.chat_update(channel=QUESTIONS, ts=root, text="after", blocks=[SECTION])
    message = emu.message(QUESTIONS, root)
    assert (message.text, message.reply_count, message.edited) == (
        "after",
        1,
        Edited(emu.bot_user_id, "1700000000.000002"),
    )
    assert response["message"]["edited"] == {
        "user": emu.bot_user_id,
        "ts": "1700000000.000002",
    }
    assert (response["channel"], response["ts"], response["text"]) == (QUESTIONS, root, "after")


async def test_the_bot_cannot_update_or_delete_a_persons_message(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    said = await emu.person(ALICE).say(QUESTIONS, "mine")
    update = await api_error(client.chat_update(channel=QUESTIONS, ts=said.ts, text="yours"))
    delete = await api_error(client.chat_delete(channel=QUESTIONS, ts=said.ts))
    assert (update.response["error"], delete.response["error"]) == (
        "cant_update_message",
        "cant_delete_message",
    )


async def test_updating_an_unknown_message_is_message_not_found(client: AsyncWebClient) -> None:
    error = await api_error(client.chat_update(channel=QUESTIONS, ts="1600000000.000001", text="x"))
    assert error.response["error"] == "message_not_found"


async def test_deleting_a_root_with_replies_leaves_a_tombstone(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    root = (await client.chat_postMessage(channel=QUESTIONS, text="root"))["ts"]
    reply = (await client.chat_postMessage(channel=QUESTIONS, text="reply", thread_ts=root))["ts"]
    lonely = (await client.chat_postMessage(channel=QUESTIONS, text="lonely"))["ts"]
    assert (await client.chat_delete(channel=QUESTIONS, ts=lonely)).data == {
        "ok": True,
        "channel": QUESTIONS,
        "ts": lonely,
    }
    await client.chat_delete(channel=QUESTIONS, ts=root)
    assert [(m.ts, m.subtype, m.text) for m in emu.channel_messages(QUESTIONS)] == [
        (root, "tombstone", "This message was deleted.")
    ]
    await client.chat_delete(channel=QUESTIONS, ts=reply)
    assert emu.message(QUESTIONS, root).reply_count == 0


async def test_an_ephemeral_message_reaches_only_its_person(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    response = await client.chat_postEphemeral(
        channel=QUESTIONS, user=ALICE, text="only you", thread_ts="1"
    )
    assert set(response.data) == {"ok", "message_ts"}
    (ephemeral,) = emu.ephemerals(ALICE)
    assert (ephemeral.channel, ephemeral.text, ephemeral.thread_ts, ephemeral.ts) == (
        QUESTIONS,
        "only you",
        "1",
        response["message_ts"],
    )
    assert emu.ephemerals(BOB) == []


async def test_an_ephemeral_message_to_someone_outside_the_channel_is_user_not_in_channel(
    client: AsyncWebClient,
) -> None:
    error = await api_error(client.chat_postEphemeral(channel=QUESTIONS, user=CAROL, text="hi"))
    assert error.response["error"] == "user_not_in_channel"


async def test_a_permalink_points_into_the_workspace(client: AsyncWebClient) -> None:
    ts = (await client.chat_postMessage(channel=QUESTIONS, text="hi"))["ts"]
    response = await client.chat_getPermalink(channel=QUESTIONS, message_ts=ts)
    assert response.data == {
        "ok": True,
        "channel": QUESTIONS,
        "permalink": f"https://emulator.slack.com/archives/{QUESTIONS}/p{ts.replace('.', '')}",
    }


async def test_history_lists_top_level_messages_newest_first(client: AsyncWebClient) -> None:
    first = (await client.chat_postMessage(channel=QUESTIONS, text="first"))["ts"]
    await client.chat_postMessage(channel=QUESTIONS, text="reply", thread_ts=first)
    second = (await client.chat_postMessage(channel=QUESTIONS, text="second"))["ts"]
    response = await client.conversations_history(channel=QUESTIONS)
    assert [m["ts"] for m in response["messages"]] == [second, first]
    assert response["has_more"] is False


async def test_members_are_paged_with_cursors(emu: SlackEmulator, client: AsyncWebClient) -> None:
    first = await client.conversations_members(channel=QUESTIONS, limit=2)
    assert first["members"] == [ALICE, BOB]
    cursor = first["response_metadata"]["next_cursor"]
    assert cursor
    second = await client.conversations_members(channel=QUESTIONS, limit=2, cursor=cursor)
    assert second.data == {
        "ok": True,
        "members": [emu.bot_user_id],
        "response_metadata": {"next_cursor": ""},
    }


async def test_the_members_of_a_private_channel_the_bot_is_not_in_are_channel_not_found(
    client: AsyncWebClient,
) -> None:
    error = await api_error(client.conversations_members(channel=SECRETS))
    assert error.response["error"] == "channel_not_found"


async def test_the_members_of_a_private_channel_the_bot_is_in_are_listed(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    emu.workspace.add_member(SECRETS, emu.bot_user_id)
    response = await client.conversations_members(channel=SECRETS)
    assert response.data == {
        "ok": True,
        "members": [ALICE, emu.bot_user_id],
        "response_metadata": {"next_cursor": ""},
    }


async def test_a_bad_cursor_is_invalid_cursor(client: AsyncWebClient) -> None:
    error = await api_error(client.conversations_members(channel=QUESTIONS, cursor="bm9wZQ=="))
    assert error.response["error"] == "invalid_cursor"


async def test_users_info_describes_a_person(emu: SlackEmulator, client: AsyncWebClient) -> None:
    user = (await client.users_info(user=ALICE))["user"]
    assert (user["id"], user["name"], user["real_name"], user["is_bot"], user["team_id"]) == (
        ALICE,
        "alice",
        "Alice Archer",
        False,
        emu.team_id,
    )
    error = await api_error(client.users_info(user="U0NOBODY"))
    assert error.response["error"] == "user_not_found"


async def test_a_user_group_lists_its_members(client: AsyncWebClient) -> None:
    assert (await client.usergroups_users_list(usergroup=REVIEWERS)).data == {
        "ok": True,
        "users": [ALICE, BOB],
    }
    error = await api_error(client.usergroups_users_list(usergroup="S0NOPE"))
    assert error.response["error"] == "no_such_subteam"


async def test_apps_connections_open_takes_only_an_app_token_in_the_header(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    opened = await client.apps_connections_open(app_token=APP_TOKEN)
    assert re.fullmatch(
        rf"ws://127\.0\.0\.1:\d+/link/\?ticket=[0-9a-f-]+&app_id={emu.app_id}", opened["url"]
    )
    error = await api_error(client.apps_connections_open(app_token=BOT_TOKEN))
    assert error.response["error"] == "not_allowed_token_type"
    assert await raw_post(emu, "apps.connections.open", data={"token": APP_TOKEN}) == (
        200,
        {"ok": False, "error": "not_authed"},
    )


async def test_every_call_is_recorded_with_its_arguments_and_answer(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    answer = (await client.auth_test()).data
    await api_error(client.chat_postMessage(channel=LOBBY, text="hi"))
    assert emu.calls == [
        ApiCall("auth.test", {}, dict(answer) if isinstance(answer, dict) else {}),
        ApiCall(
            "chat.postMessage",
            {"channel": LOBBY, "text": "hi"},
            {"ok": False, "error": "not_in_channel"},
        ),
    ]
    assert [(c.ok, c.error, c.status) for c in emu.calls] == [
        (True, None, 200),
        (False, "not_in_channel", 200),
    ]


async def test_a_test_can_await_the_next_call_instead_of_sleeping(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    waiting = asyncio.create_task(emu.wait_for_call("chat.postMessage"))
    await client.chat_postMessage(channel=QUESTIONS, text="hi")
    call = await waiting
    assert call.params == {"channel": QUESTIONS, "text": "hi"}


async def test_updates_and_ephemeral_messages_are_checked_too(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    ts = (await client.chat_postMessage(channel=QUESTIONS, text="q"))["ts"]
    header = [{"type": "header", "text": {"type": "plain_text", "text": "x" * 151}}]
    await api_error(client.chat_update(channel=QUESTIONS, ts=ts, text="q", blocks=header))
    await api_error(
        client.chat_postEphemeral(channel=QUESTIONS, user=ALICE, text="q", blocks=header)
    )
    assert [(v.method, v.rule, v.path) for v in emu.violations] == [
        ("chat.update", "header.text", "/blocks/0/text/text"),
        ("chat.postEphemeral", "header.text", "/blocks/0/text/text"),
    ]
