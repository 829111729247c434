"""response_urls as Bolt's respond() uses them: replace, delete, ephemeral, in channel."""

from __future__ import annotations

from typing import Any

import aiohttp
from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncRespond
from slack_sdk.web.async_client import AsyncWebClient

from slack_emulator import BlockKitViolation, SlackEmulator

from .blocks import QUESTION_BLOCKS
from .conftest import ALICE, QUESTIONS

Json = dict[str, Any]


async def click_with(
    emu: SlackEmulator, client: AsyncWebClient, app: AsyncApp, **respond_with: Any
) -> str:
    """Alice clicks Approve; the listener acks, then calls respond(**respond_with)."""

    async def listener(ack: AsyncAck, respond: AsyncRespond) -> None:
        await ack()
        await respond(**respond_with)

    app.action("approve")(listener)
    ts = str(
        (await client.chat_postMessage(channel=QUESTIONS, text="q", blocks=QUESTION_BLOCKS))["ts"]
    )
    await emu.person(ALICE).click(emu.message(QUESTIONS, ts), text="Approve")
    await emu.wait_for_call("response_url")
    return ts


async def test_replace_original_rewrites_the_clicked_message(
    emu: SlackEmulator, client: AsyncWebClient, http_app: AsyncApp
) -> None:
    ts = await click_with(emu, client, http_app, text="Approved by alice", replace_original=True)
    message = emu.message(QUESTIONS, ts)
    assert (message.text, message.blocks, message.edited is not None) == (
        "Approved by alice",
        [],
        True,
    )
    (call,) = emu.calls_to("response_url")
    assert (call.status, call.response, call.params) == (
        200,
        {"ok": True},
        {"text": "Approved by alice", "replace_original": True},
    )


async def test_delete_original_removes_the_clicked_message(
    emu: SlackEmulator, client: AsyncWebClient, http_app: AsyncApp
) -> None:
    await click_with(emu, client, http_app, delete_original=True)
    assert emu.channel_messages(QUESTIONS) == []


async def test_a_response_is_ephemeral_by_default(
    emu: SlackEmulator, client: AsyncWebClient, http_app: AsyncApp
) -> None:
    await click_with(emu, client, http_app, text="Already answered by bob")
    assert [(e.channel, e.text) for e in emu.ephemerals(ALICE)] == [
        (QUESTIONS, "Already answered by bob")
    ]
    assert len(emu.channel_messages(QUESTIONS)) == 1


async def test_an_in_channel_response_can_go_to_a_thread(
    emu: SlackEmulator, client: AsyncWebClient, http_app: AsyncApp
) -> None:
    root = (await client.chat_postMessage(channel=QUESTIONS, text="root"))["ts"]
    await click_with(
        emu, client, http_app, text="Decided", response_type="in_channel", thread_ts=root
    )
    assert [m.text for m in emu.thread(QUESTIONS, root)] == ["root", "Decided"]


async def test_a_response_with_invalid_blocks_is_refused_and_recorded(
    emu: SlackEmulator, client: AsyncWebClient, http_app: AsyncApp
) -> None:
    await click_with(
        emu,
        client,
        http_app,
        text="x",
        blocks=[{"type": "header", "text": {"type": "mrkdwn", "text": "*x*"}}],
    )
    (call,) = emu.calls_to("response_url")
    assert (call.status, call.error) == (400, "invalid_blocks")
    assert emu.violations == [
        BlockKitViolation(
            "response_url", "text.type", "/blocks/0/text", "failed to match all allowed schemas"
        )
    ]


async def test_a_response_url_works_five_times(
    emu: SlackEmulator, client: AsyncWebClient, http_app: AsyncApp
) -> None:
    await click_with(emu, client, http_app, text="1")
    url = emu.deliveries[-1].payload["response_url"]
    statuses = []
    async with aiohttp.ClientSession() as session:
        for n in range(2, 7):
            async with session.post(url, json={"text": str(n)}) as response:
                statuses.append((response.status, await response.json()))
    assert statuses[:4] == [(200, {"ok": True})] * 4
    assert statuses[4] == (404, {"ok": False, "error": "used_url"})
