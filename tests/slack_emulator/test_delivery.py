"""Deliveries: what is recorded when the app is late, absent, or answers with text."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.async_app import AsyncAck
from slack_sdk.web.async_client import AsyncWebClient

from slack_emulator import SlackEmulator
from slack_emulator.delivery import KEEP_ALIVE_S, parse_ack
from slack_emulator.records import ACK_DEADLINE_SECONDS

from .blocks import answer_modal
from .conftest import ALICE, QUESTIONS, new_app, served

Json = dict[str, Any]


async def test_an_ack_after_the_deadline_is_a_late_ack_and_is_not_applied(
    emu: SlackEmulator,
) -> None:
    # process_before_response: Bolt answers only when the listener returns, so it can be late.
    app = new_app(emu, process_before_response=True)

    async def on_command(ack: AsyncAck, body: Json, client: AsyncWebClient) -> None:
        await ack()
        await client.views_open(trigger_id=body["trigger_id"], view=answer_modal())

    async def slow_submit(ack: AsyncAck) -> None:
        await asyncio.sleep(0.6)  # the app under test being slow, not the test waiting
        await ack()

    app.command("/answer")(on_command)
    app.view("answer")(slow_submit)
    alice = emu.person(ALICE)
    async with served(emu, app):
        await alice.command("/answer", channel=QUESTIONS)
        await emu.wait_for(lambda: len(emu.views(ALICE)) == 1)
        await alice.choose(emu.views(ALICE)[0], block_id="q1", value="0")
        # Slack's 3 s, shortened for the submission: a 0.6 s ack is as late as a 3.1 s one.
        assert emu.ack_deadline == ACK_DEADLINE_SECONDS
        emu.ack_deadline = 0.5
        delivery = await alice.submit(emu.views(ALICE)[0])
    assert (delivery.acked, delivery.late, delivery.in_time) == (True, True, False)
    (violation,) = emu.violations
    assert (violation.method, violation.rule, violation.path) == ("view_submission", "late_ack", "")
    assert violation.message.startswith("acknowledged after 0.")
    assert violation.message.endswith("Slack gives up after 0.5 s")
    assert len(emu.views(ALICE)) == 1


async def test_without_a_request_url_a_delivery_records_why_it_failed(emu: SlackEmulator) -> None:
    delivery = await emu.person(ALICE).open_home()
    assert (delivery.acked, delivery.status, delivery.error) == (
        False,
        None,
        "no request_url is set",
    )
    assert emu.deliveries == [delivery]


async def test_an_unreachable_app_is_recorded_as_a_connection_error(emu: SlackEmulator) -> None:
    emu.request_url = "http://127.0.0.1:9/slack/events"
    delivery = await emu.person(ALICE).open_home()
    assert (delivery.acked, delivery.status) == (False, None)
    assert str(delivery.error).startswith("ClientConnectorError")


async def test_deliveries_in_a_delivering_to_block_go_to_its_url_and_others_to_request_url(
    emu: SlackEmulator,
) -> None:
    emu.request_url = "http://127.0.0.1:9/slack/events"
    apps = [new_app(emu), new_app(emu)]
    heard: list[int] = []

    def hears_as(number: int) -> Callable[[AsyncAck], Awaitable[None]]:
        async def on_home(ack: AsyncAck) -> None:
            heard.append(number)

        return on_home

    for number, app in enumerate(apps):
        app.event("app_home_opened")(hears_as(number))
    async with served(emu, apps[0]):
        first = emu.request_url
        async with served(emu, apps[1]):
            second = emu.request_url
            assert first is not None
            assert second is not None
            with emu.delivering_to(first):
                to_first = asyncio.create_task(emu.person(ALICE).open_home())
            to_second = await emu.person(ALICE).open_home()
            assert (await to_first).acked
            assert to_second.acked
    assert sorted(heard) == [0, 1]


async def test_socket_delivery_without_a_connection_fails_after_the_ack_timeout() -> None:
    async with SlackEmulator(ack_timeout=0.1) as emu:
        emu.workspace.add_user(ALICE, name="alice")
        emu.delivery = "socket"
        delivery = await emu.person(ALICE).open_home()
    assert (delivery.acked, delivery.transport, delivery.error) == (
        False,
        "socket",
        "no Socket Mode connection within 0.1 s",
    )


def test_an_ack_body_is_read_as_json_or_as_a_message_text() -> None:
    assert parse_ack("", "text/plain") is None
    assert parse_ack('{"response_action": "clear"}', "application/json") == {
        "response_action": "clear"
    }
    assert parse_ack("Working on it", "text/plain") == {"text": "Working on it"}


class KeepsAlive:
    """An app's HTTP server that keeps each connection open for the next request until the
    client closes it (as an app does whose keep-alive outlasts Slack's): it answers every
    request 200 and counts the connections, and when the client closed them."""

    def __init__(self) -> None:
        self.connections = 0
        self.closed_by_client = asyncio.Event()
        self._server: asyncio.Server | None = None

    async def __aenter__(self) -> str:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        host, port = self._server.sockets[0].getsockname()[:2]
        return f"http://{host}:{port}/slack/events"

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(
                    int(line.split(b":", 1)[1])
                    for line in head.lower().split(b"\r\n")
                    if line.startswith(b"content-length:")
                )
                await reader.readexactly(length)
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
                await writer.drain()
        except asyncio.IncompleteReadError:
            self.closed_by_client.set()  # end of stream between requests: the client let go
        finally:
            writer.close()


async def test_an_idle_connection_is_let_go_before_an_apps_keep_alive_runs_out(
    emu: SlackEmulator,
) -> None:
    # An app closes a connection idle for its keep-alive (ours: 10 s). A delivery sent on it
    # as it does so is reset in transit, never seen: a test waiting on that click's answer
    # waited for ever. The emulator lets an idle connection go itself, after KEEP_ALIVE_S.
    app = KeepsAlive()
    async with app as url:
        emu.request_url = url
        alice = emu.person(ALICE)
        first = await alice.open_home()
        async with asyncio.timeout(KEEP_ALIVE_S + 5):
            await app.closed_by_client.wait()
        second = await alice.open_home()
    assert [(d.acked, d.error) for d in (first, second)] == [(True, None), (True, None)]
    assert app.connections == 2


async def test_deliveries_in_quick_succession_share_one_connection(emu: SlackEmulator) -> None:
    # A connection of its own for each would cost every click a connect (0.4 ms of 1.3).
    app = KeepsAlive()
    async with app as url:
        emu.request_url = url
        alice = emu.person(ALICE)
        deliveries = [await alice.open_home() for _ in range(3)]
    assert [d.acked for d in deliveries] == [True, True, True]
    assert app.connections == 1
