"""The one Web API client: which failed calls are sent again (only those Slack did not carry
out), each failure raised as `SlackCallFailed`, logged once with the method and Slack's error
and counted; each retry logged; the last outcome (or auth.test) answers readiness; an
unreachable API is called unreachable, never a rejected token."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
from collections.abc import AsyncIterator, Sequence

import pytest
from slack_bolt.async_app import AsyncApp
from slack_bolt.request.async_request import AsyncBoltRequest

from bot.metrics import Metrics
from bot.slack.api import (
    RATE_LIMITS_RAISED,
    SlackCallFailed,
    SlackCalls,
    SlackClient,
    client_session,
    method_of,
    retry_handlers,
    web_client,
)
from slack_emulator import ApiError, RateLimited, ServerError, SlackEmulator
from slack_emulator.faults import Fault

from ..harness import CHANNEL, TOKEN


async def post(api_url: str) -> None:
    """One chat.postMessage through the provider's client, failures as `SlackCallFailed`."""
    async with client_session() as session:
        client = web_client(TOKEN, base_url=api_url, session=session, backoff=0)
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


@pytest.fixture
def metrics() -> Metrics:
    return Metrics()


@pytest.fixture
def calls(metrics: Metrics) -> SlackCalls:
    return SlackCalls(metrics)


def watched(calls: SlackCalls, base_url: str, token: str = TOKEN) -> SlackClient:
    return web_client(token, base_url=base_url, calls=calls, retries=2, backoff=0.01)


@pytest.fixture
async def client(emu: SlackEmulator, calls: SlackCalls) -> AsyncIterator[SlackClient]:
    web = watched(calls, emu.api_url)
    yield web
    if web.session is not None:
        await web.session.close()


def slack_lines(caplog: pytest.LogCaptureFixture) -> list[tuple[str, str]]:
    return [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "bot.slack"]


def error_count(metrics: Metrics, method: str, error: str) -> float | None:
    return metrics.registry.get_sample_value(
        "slack_questions_slack_api_errors_total", {"method": method, "error": error}
    )


def closed_port_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/api/"


def test_the_method_is_read_from_the_calls_url() -> None:
    assert method_of("https://slack.com/api/chat.postMessage?x=1") == "chat.postMessage"


async def test_a_call_slack_answers_ok_is_remembered_and_not_logged(
    client: SlackClient, calls: SlackCalls, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="bot.slack")
    await client.chat_postMessage(channel=CHANNEL, text="hello")
    assert calls.last_ok is True
    assert slack_lines(caplog) == []


async def test_a_refused_call_is_logged_with_method_and_slacks_error_and_counted(
    emu: SlackEmulator,
    client: SlackClient,
    calls: SlackCalls,
    metrics: Metrics,
    caplog: pytest.LogCaptureFixture,
) -> None:
    emu.inject("chat.postMessage", ApiError("channel_not_found"))
    with pytest.raises(SlackCallFailed) as failed:
        await client.chat_postMessage(channel=CHANNEL, text="hello")
    assert (failed.value.method, failed.value.error) == ("chat.postMessage", "channel_not_found")
    assert not failed.value.in_transit
    assert slack_lines(caplog) == [
        ("WARNING", "Slack API chat.postMessage failed: channel_not_found")
    ]
    assert error_count(metrics, "chat.postMessage", "channel_not_found") == 1.0
    assert (calls.last_ok, calls.last_failure) == (False, "chat.postMessage: channel_not_found")


async def test_a_rate_limited_call_logs_its_retry_and_then_succeeds(
    emu: SlackEmulator,
    client: SlackClient,
    calls: SlackCalls,
    metrics: Metrics,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="bot.slack")
    emu.inject("chat.postMessage", RateLimited(retry_after=0))
    await client.chat_postMessage(channel=CHANNEL, text="hello")
    assert slack_lines(caplog) == [
        ("INFO", "Slack API chat.postMessage: ratelimited (Retry-After 0 s); retry 1")
    ]
    assert calls.last_ok is True
    assert error_count(metrics, "chat.postMessage", "ratelimited") is None


async def test_on_a_lanes_turn_a_429_is_raised_at_once_with_its_retry_after(
    emu: SlackEmulator, client: SlackClient
) -> None:
    emu.inject("chat.postMessage", RateLimited(retry_after=7))
    raising = RATE_LIMITS_RAISED.set(True)
    try:
        with pytest.raises(SlackCallFailed) as failed:
            await client.chat_postMessage(channel=CHANNEL, text="hello")
    finally:
        RATE_LIMITS_RAISED.reset(raising)
    assert (failed.value.error, failed.value.status) == ("ratelimited", 429)
    assert failed.value.retry_after == 7.0
    assert [call.status for call in emu.calls_to("chat.postMessage")] == [429]


async def test_a_503_is_retried_with_a_log_line_per_retry_then_fails_with_its_status(
    emu: SlackEmulator,
    client: SlackClient,
    metrics: Metrics,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="bot.slack")
    emu.inject("chat.update", ServerError(503), times=None)
    with pytest.raises(SlackCallFailed) as failed:
        await client.chat_update(channel=CHANNEL, ts="1700000000.000100", text="x")
    assert (failed.value.error, failed.value.status) == ("HTTP 503", 503)
    assert slack_lines(caplog) == [
        ("INFO", "Slack API chat.update: HTTP 503; retry 1"),
        ("INFO", "Slack API chat.update: HTTP 503; retry 2"),
        ("WARNING", "Slack API chat.update failed: HTTP 503"),
    ]
    assert error_count(metrics, "chat.update", "HTTP 503") == 1.0


@pytest.mark.parametrize("backoff", [0.0, 0.25])
def test_a_5xx_retry_waits_its_backoff_to_twice_it_with_no_fixed_jitter_on_top(
    backoff: float,
) -> None:
    server_errors = retry_handlers(SlackCalls(), retries=2, backoff=backoff)[1]
    for attempt in (0, 1):
        backed_off = backoff * 2**attempt
        waits = [
            server_errors.interval_calculator.calculate_sleep_duration(attempt) for _ in range(200)
        ]
        assert all(backed_off <= wait <= 2 * backed_off for wait in waits), (attempt, max(waits))


async def test_an_unreachable_api_is_reported_unreachable_not_as_a_rejected_token(
    calls: SlackCalls, caplog: pytest.LogCaptureFixture
) -> None:
    web = watched(calls, closed_port_url())
    try:
        with pytest.raises(SlackCallFailed) as failed:
            await web.auth_test()
        why = await calls.check(web)
    finally:
        if web.session is not None:
            await web.session.close()
    assert failed.value.in_transit
    assert failed.value.error.startswith("ClientConnectorError: ")
    assert slack_lines(caplog)[0] == (
        "WARNING",
        "Slack API auth.test failed: unreachable (ClientConnectorError)",
    )
    assert why is not None
    assert why.startswith("Slack's Web API is unreachable (ClientConnectorError")


async def test_readiness_passes_on_the_last_call_without_calling_slack(
    emu: SlackEmulator, client: SlackClient, calls: SlackCalls
) -> None:
    await client.auth_test()
    before = len(emu.calls)
    assert await calls.check(client) is None
    assert len(emu.calls) == before


async def test_after_a_failure_readiness_asks_auth_test_and_passes_when_it_does(
    emu: SlackEmulator, client: SlackClient, calls: SlackCalls
) -> None:
    emu.inject("chat.postMessage", ApiError("channel_not_found"))
    with pytest.raises(SlackCallFailed):
        await client.chat_postMessage(channel=CHANNEL, text="hello")
    assert await calls.check(client) is None
    assert emu.calls[-1].method == "auth.test"
    assert calls.last_ok is True


async def test_a_token_slack_rejects_fails_readiness_naming_slacks_error(
    emu: SlackEmulator, calls: SlackCalls
) -> None:
    web = watched(calls, emu.api_url, token="xoxb-revoked")
    try:
        assert await calls.check(web) == "Slack refuses the bot token (auth.test: invalid_auth)"
    finally:
        if web.session is not None:
            await web.session.close()


async def test_slack_failing_fails_readiness_as_failing_not_as_a_refused_token(
    emu: SlackEmulator, client: SlackClient, calls: SlackCalls
) -> None:
    emu.inject("*", ServerError(503), times=None)
    assert await calls.check(client) == "Slack's Web API is failing (auth.test: HTTP 503)"


async def test_bolts_own_calls_keep_slack_sdks_errors_so_its_authorization_still_answers(
    emu: SlackEmulator, client: SlackClient
) -> None:
    # Bolt calls through a plain AsyncWebClient it builds per request from ours, so its
    # middleware's `except SlackApiError` still sees what it expects; our calls alone raise
    # SlackCallFailed.
    app = AsyncApp(client=client, request_verification_enabled=False, process_before_response=True)
    clients: list[type] = []

    @app.event("app_home_opened")
    async def opened(client: object) -> None:
        clients.append(type(client))

    body = json.dumps(
        {
            "type": "event_callback",
            "team_id": "T0TEAM0001",
            "api_app_id": "A0APP00001",
            "event": {"type": "app_home_opened", "user": "U0ALICE001"},
        }
    )
    headers: dict[str, str | Sequence[str]] = {"content-type": "application/json"}
    emu.inject("auth.test", ApiError("invalid_auth"))
    refused = await app.async_dispatch(AsyncBoltRequest(body=body, headers=headers))
    assert (refused.status, clients) == (200, [])
    assert "reinstall this app" in refused.body
    served = await app.async_dispatch(AsyncBoltRequest(body=body, headers=headers))
    assert served.status == 200
    assert [issubclass(kind, SlackClient) for kind in clients] == [False]
