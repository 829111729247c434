"""Talking to Slack's Web API: one client setup, one place that turns failures into errors."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Final

import aiohttp
from slack_sdk.errors import SlackApiError

from bot.slack.watch import SlackCalls, WatchedWebClient, retry_handlers

SLACK_API_URL: Final = "https://slack.com/api/"
# slack_sdk's own timeout does not apply to a session we pass in.
CALL_TIMEOUT_SECONDS: Final = 30.0


class SlackCallFailed(Exception):
    """A Web API call failed for good (after retries); `error` is Slack's error name.

    `in_transit`: the call failed on the way (timeout, dropped connection), so Slack may
    have carried it out anyway.
    """

    def __init__(self, method: str, error: str, *, in_transit: bool = False) -> None:
        super().__init__(f"Slack refused {method}: {error}")
        self.method = method
        self.error = error
        self.in_transit = in_transit


def web_client(
    token: str,
    *,
    base_url: str = SLACK_API_URL,
    session: aiohttp.ClientSession | None = None,
    retries: int = 2,
    backoff: float = 0.25,
    calls: SlackCalls | None = None,
) -> WatchedWebClient:
    """An AsyncWebClient that honours 429 Retry-After and retries Slack's transient 5xx, and
    reports every call, failure and retry to `calls` (bot/slack/watch.py).

    slack_sdk's own handlers: a 429 waits for Retry-After; a 500 or 503 (Slack did not carry
    the call out) is sent again with backoff. Nothing else is: a 502, 504 or dropped connection
    may come after Slack acted, so the SDK's default connection-error retry is left out.
    """
    calls = calls or SlackCalls()
    return WatchedWebClient(
        calls=calls,
        token=token,
        base_url=base_url,
        session=session,
        retry_handlers=retry_handlers(calls, retries=retries, backoff=backoff),
    )


def client_session(timeout: float = CALL_TIMEOUT_SECONDS) -> aiohttp.ClientSession:
    """The HTTP session for Web API calls: every call ends within `timeout` seconds."""
    return aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout))


@asynccontextmanager
async def slack_call(method: str) -> AsyncIterator[None]:
    """Turn whatever a Web API call raises into `SlackCallFailed` naming Slack's error."""
    try:
        yield
    except SlackApiError as error:
        name = error.response.get("error") if isinstance(error.response.data, dict) else None
        raise SlackCallFailed(method, name or f"HTTP {error.response.status_code}") from error
    except (aiohttp.ClientError, TimeoutError) as error:
        raise SlackCallFailed(
            method, f"{type(error).__name__}: {error}", in_transit=True
        ) from error
