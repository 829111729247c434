"""The playground's HTTP edge: clear errors for bad acts and addresses, live-update events,
and a page that shows what a person sees (threads, ephemerals, edits)."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator

import aiohttp
import pytest
import pytest_asyncio
from slack_sdk.web.async_client import AsyncWebClient

from slack_emulator import SlackEmulator
from slack_emulator.playground import Playground
from tests.bot.harness import ALICE, BOB, CHANNEL, OTHER_CHANNEL, TOKEN

from .html_tree import find, text

pytestmark = pytest.mark.asyncio(loop_scope="session")


@pytest_asyncio.fixture(loop_scope="session")
async def served(emu: SlackEmulator) -> AsyncIterator[Playground]:
    playground = Playground(emu, person=ALICE)
    await playground.start()
    try:
        yield playground
    finally:
        await playground.close()


@pytest_asyncio.fixture(loop_scope="session")
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


@pytest.fixture
def slack(emu: SlackEmulator) -> AsyncWebClient:
    return AsyncWebClient(token=TOKEN, base_url=emu.api_url)


async def test_an_act_that_is_not_json_is_refused_with_415(
    served: Playground, http: aiohttp.ClientSession
) -> None:
    response = await http.post(f"{served.url}act", data="do=click")
    assert (response.status, await response.json()) == (
        415,
        {"error": "acts are JSON: send Content-Type: application/json"},
    )


async def test_a_malformed_act_names_what_is_wrong(
    served: Playground, http: aiohttp.ClientSession
) -> None:
    response = await http.post(f"{served.url}act", json={"user": ALICE, "do": "dance"})
    body = await response.json()
    assert response.status == 400
    assert body["error"].startswith("not an act the page can do: body: Input tag 'dance'")


async def test_an_act_on_a_message_that_is_gone_is_404_saying_so(
    served: Playground, http: aiohttp.ClientSession
) -> None:
    response = await http.post(
        f"{served.url}act",
        json={
            "user": ALICE,
            "do": "click",
            "surface": {"kind": "message", "channel": CHANNEL, "id": "1.000001"},
            "block_id": "q",
            "action_id": "go",
        },
    )
    assert (response.status, await response.json()) == (
        404,
        {"error": f"no message 1.000001 in {CHANNEL}; top-level messages: none"},
    )


async def test_an_act_as_someone_not_in_the_workspace_is_404(
    served: Playground, http: aiohttp.ClientSession
) -> None:
    response = await http.post(f"{served.url}act", json={"user": "U0NOBODY00", "do": "open_home"})
    assert (response.status, await response.json()) == (
        404,
        {"error": "no person 'U0NOBODY00' in the workspace"},
    )


async def test_the_page_for_an_unknown_person_lists_the_people(
    served: Playground, http: aiohttp.ClientSession
) -> None:
    response = await http.get(f"{served.url}?as=U0NOBODY00")
    assert response.status == 404
    assert await response.text() == (
        "no person 'U0NOBODY00' in the workspace; people: U0ALICE001, U0BOB00002, U0CAROL003\n"
    )


async def test_the_page_for_a_channel_the_person_is_not_in_lists_theirs(
    served: Playground, http: aiohttp.ClientSession
) -> None:
    response = await http.get(f"{served.url}?as={BOB}&c={OTHER_CHANNEL}")
    assert response.status == 404
    assert await response.text() == (
        f"{BOB} is not in a channel {OTHER_CHANNEL!r}; their channels: {CHANNEL}\n"
    )


async def test_the_event_stream_announces_each_change(
    served: Playground, http: aiohttp.ClientSession, slack: AsyncWebClient, emu: SlackEmulator
) -> None:
    async with http.get(f"{served.url}events") as events:
        assert events.headers["Content-Type"] == "text/event-stream"
        assert await events.content.readline() == b"retry: 1000\n"
        first = await events.content.readline()
        assert first == f"data: {emu.version}\n".encode()
        await events.content.readline()
        await slack.chat_postMessage(channel=CHANNEL, text="hello")
        changed = await asyncio.wait_for(events.content.readline(), 5)
        assert int(changed.removeprefix(b"data: ")) > int(first.removeprefix(b"data: "))


async def test_closing_the_playground_ends_open_event_streams(
    emu: SlackEmulator, http: aiohttp.ClientSession
) -> None:
    playground = Playground(emu, person=ALICE)
    await playground.start()
    events = await http.get(f"{playground.url}events")
    await events.content.readline()
    await asyncio.wait_for(playground.close(), 5)
    events.release()


async def test_a_thread_shows_its_root_replies_and_the_persons_ephemeral_message(
    served: Playground, http: aiohttp.ClientSession, slack: AsyncWebClient
) -> None:
    root = await slack.chat_postMessage(channel=CHANNEL, text="*Deploy* now?")
    await slack.chat_postMessage(
        channel=CHANNEL, thread_ts=root["ts"], text="It is <@U0BOB00002>'s call"
    )
    await slack.chat_postEphemeral(
        channel=CHANNEL, user=ALICE, thread_ts=root["ts"], text="Only you can answer this"
    )
    await slack.chat_update(channel=CHANNEL, ts=root["ts"], text="*Deploy* today?")
    channel_page = await (await http.get(f"{served.url}?c={CHANNEL}")).text()
    assert [e.text for e in find(channel_page, "a", class_="sk-replies")] == ["1 reply"]
    assert [e.text for e in find(channel_page, "span", class_="sk-edited")] == ["(edited)"]
    thread_page = await (await http.get(f"{served.url}?c={CHANNEL}&t={root['ts']}")).text()
    (pane,) = find(thread_page, "aside", class_="sk-thread")
    bodies = [e.text for e in pane.descendants() if e.attrs.get("class") == "sk-msg-blocks"]
    assert bodies == ["Deploy today?", "It is @bob's call", "Only you can answer this"]
    assert [e.text for e in find(thread_page, "div", class_="sk-only-you")] == [
        "👁 Only visible to you"
    ]
    bob_page = await (await http.get(f"{served.url}?as={BOB}&c={CHANNEL}&t={root['ts']}")).text()
    assert "Only you can answer this" not in text(bob_page)


async def test_started_on_every_interface_at_a_fixed_port_it_is_opened_on_loopback_there(
    emu: SlackEmulator, http: aiohttp.ClientSession
) -> None:
    # What `SLACK_QUESTIONS_PLAYGROUND=0.0.0.0:8080` asks (bot/offline/listen.py parses it),
    # so `docker run -p 127.0.0.1:8080:8080` reaches it; a free port stands in for 8080.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    playground = Playground(emu, person=ALICE)
    await playground.start(host="0.0.0.0", port=port)
    try:
        assert playground.url.startswith(f"http://127.0.0.1:{port}/")
        response = await http.get(playground.url)
        assert response.status == 200
    finally:
        await playground.close()
