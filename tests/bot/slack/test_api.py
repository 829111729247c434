"""Which failed Web API calls are sent again: only those Slack did not carry out."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from bot.slack.api import SlackCallFailed, client_session, slack_call, web_client
from slack_emulator import RateLimited, ServerError, SlackEmulator
from slack_emulator.faults import Fault

from ..harness import CHANNEL, TOKEN


async def post(api_url: str) -> None:
    """One chat.postMessage through the provider's client, failures as `SlackCallFailed`."""
    async with client_session() as session:
        client = web_client(TOKEN, base_url=api_url, session=session, backoff=0)
        async with slack_call("chat.postMessage"):
            await client.chat_postMessage(channel=CHANNEL, text="hi")


@pytest.mark.parametrize(
    ("fault", "statuses"),
    [
        pytest.param(RateLimited(retry_after=0), [429, 200], id="429 after Retry-After"),
        pytest.param(ServerError(status=500), [500, 200], id="500"),
        pytest.param(ServerError(status=503), [503, 200], id="503"),
    ],
)
async def test_a_call_slack_did_not_carry_out_is_sent_again(
    emu: SlackEmulator, fault: Fault, statuses: list[int]
) -> None:
    emu.inject("chat.postMessage", fault, times=1)
    await post(emu.api_url)
    assert [call.status for call in emu.calls_to("chat.postMessage")] == statuses


@pytest.mark.parametrize("status", [502, 504])
async def test_a_gateway_error_is_not_sent_again_as_slack_may_have_acted(
    emu: SlackEmulator, status: int
) -> None:
    emu.inject("chat.postMessage", ServerError(status=status), times=1)
    with pytest.raises(SlackCallFailed) as failed:
        await post(emu.api_url)
    assert failed.value.error == f"HTTP {status}"
    assert [call.status for call in emu.calls_to("chat.postMessage")] == [status]


@pytest.fixture
async def hang_up() -> AsyncIterator[tuple[str, list[None]]]:
    """A server that reads each request and closes the connection without answering."""
    connections: list[None] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append(None)
        await reader.readuntil(b"\r\n\r\n")
        writer.close()
        await writer.wait_closed()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        yield f"http://127.0.0.1:{port}/api/", connections


async def test_a_dropped_connection_is_not_sent_again_as_slack_may_have_acted(
    hang_up: tuple[str, list[None]],
) -> None:
    api_url, connections = hang_up
    with pytest.raises(SlackCallFailed) as failed:
        await post(api_url)
    assert failed.value.in_transit
    assert len(connections) == 1
