"""Watched Web API calls: each failure logged once with the method and Slack's error and
counted; each retry logged; the last outcome (or auth.test) answers readiness; an unreachable
API is called unreachable, never a rejected token."""

from __future__ import annotations

import logging
import socket
from collections.abc import AsyncIterator

import aiohttp
import pytest
from slack_sdk.errors import SlackApiError

from bot.metrics import Metrics
from bot.slack.watch import SlackCalls, WatchedWebClient, method_of, retry_handlers
from slack_emulator import ApiError, RateLimited, ServerError, SlackEmulator

CHANNEL = "C0QUESTION"


@pytest.fixture
async def emu() -> AsyncIterator[SlackEmulator]:
    async with SlackEmulator() as emulator:
        emulator.workspace.add_channel(
            CHANNEL, name="agent-questions", members=[emulator.bot_user_id]
        )
        yield emulator


@pytest.fixture
def metrics() -> Metrics:
    return Metrics()


@pytest.fixture
def calls(metrics: Metrics) -> SlackCalls:
    return SlackCalls(metrics)


def watched(calls: SlackCalls, base_url: str, token: str = "xoxb-emulator") -> WatchedWebClient:
    return WatchedWebClient(
        calls=calls,
        token=token,
        base_url=base_url,
        retry_handlers=retry_handlers(calls, retries=2, backoff=0.01),
    )


@pytest.fixture
async def client(emu: SlackEmulator, calls: SlackCalls) -> AsyncIterator[WatchedWebClient]:
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
    client: WatchedWebClient, calls: SlackCalls, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="bot.slack")
    await client.chat_postMessage(channel=CHANNEL, text="hello")
    assert calls.last_ok is True
    assert slack_lines(caplog) == []


async def test_a_refused_call_is_logged_with_method_and_slacks_error_and_counted(
    emu: SlackEmulator,
    client: WatchedWebClient,
    calls: SlackCalls,
    metrics: Metrics,
    caplog: pytest.LogCaptureFixture,
) -> None:
    emu.inject("chat.postMessage", ApiError("channel_not_found"))
    with pytest.raises(SlackApiError):
        await client.chat_postMessage(channel=CHANNEL, text="hello")
    assert slack_lines(caplog) == [
        ("WARNING", "Slack API chat.postMessage failed: channel_not_found")
    ]
    assert error_count(metrics, "chat.postMessage", "channel_not_found") == 1.0
    assert (calls.last_ok, calls.last_failure) == (False, "chat.postMessage: channel_not_found")


async def test_a_rate_limited_call_logs_its_retry_and_then_succeeds(
    emu: SlackEmulator,
    client: WatchedWebClient,
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


async def test_a_503_is_retried_with_a_log_line_per_retry_then_fails_with_its_status(
    emu: SlackEmulator,
    client: WatchedWebClient,
    metrics: Metrics,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="bot.slack")
    emu.inject("chat.update", ServerError(503), times=None)
    with pytest.raises(SlackApiError):
        await client.chat_update(channel=CHANNEL, ts="1700000000.000100", text="x")
    assert slack_lines(caplog) == [
        ("INFO", "Slack API chat.update: HTTP 503; retry 1"),
        ("INFO", "Slack API chat.update: HTTP 503; retry 2"),
        ("WARNING", "Slack API chat.update failed: HTTP 503"),
    ]
    assert error_count(metrics, "chat.update", "HTTP 503") == 1.0


async def test_an_unreachable_api_is_reported_unreachable_not_as_a_rejected_token(
    calls: SlackCalls, caplog: pytest.LogCaptureFixture
) -> None:
    web = watched(calls, closed_port_url())
    try:
        with pytest.raises(aiohttp.ClientConnectorError):
            await web.auth_test()
        why = await calls.check(web)
    finally:
        if web.session is not None:
            await web.session.close()
    assert slack_lines(caplog)[0] == (
        "WARNING",
        "Slack API auth.test failed: unreachable (ClientConnectorError)",
    )
    assert why is not None
    assert why.startswith("Slack's Web API is unreachable (ClientConnectorError")


async def test_readiness_passes_on_the_last_call_without_calling_slack(
    emu: SlackEmulator, client: WatchedWebClient, calls: SlackCalls
) -> None:
    await client.auth_test()
    before = len(emu.calls)
    assert await calls.check(client) is None
    assert len(emu.calls) == before


async def test_after_a_failure_readiness_asks_auth_test_and_passes_when_it_does(
    emu: SlackEmulator, client: WatchedWebClient, calls: SlackCalls
) -> None:
    emu.inject("chat.postMessage", ApiError("channel_not_found"))
    with pytest.raises(SlackApiError):
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
    emu: SlackEmulator, client: WatchedWebClient, calls: SlackCalls
) -> None:
    emu.inject("*", ServerError(503), times=None)
    assert await calls.check(client) == "Slack's Web API is failing (auth.test: HTTP 503)"
