"""Talking to Slack's Web API: one client setup, one place that turns failures into errors."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Final

import aiohttp
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.async_handler import AsyncRetryHandler
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
)
from slack_sdk.http_retry.builtin_interval_calculators import (
    BackoffRetryIntervalCalculator,
)
from slack_sdk.http_retry.request import HttpRequest
from slack_sdk.http_retry.response import HttpResponse
from slack_sdk.http_retry.state import RetryState
from slack_sdk.web.async_client import AsyncWebClient

SLACK_API_URL: Final = "https://slack.com/api/"
TRANSIENT_STATUSES: Final = frozenset({500, 502, 503, 504})


class SlackCallFailed(Exception):
    """A Web API call failed for good (after retries); `error` is Slack's error name."""

    def __init__(self, method: str, error: str) -> None:
        super().__init__(f"Slack refused {method}: {error}")
        self.method = method
        self.error = error


class TransientServerErrorRetryHandler(AsyncRetryHandler):
    """Retry 500/502/503/504 with backoff (slack_sdk's own handler skips 502 and 504)."""

    async def _can_retry_async(
        self,
        *,
        state: RetryState,
        request: HttpRequest,
        response: HttpResponse | None = None,
        error: Exception | None = None,
    ) -> bool:
        return response is not None and response.status_code in TRANSIENT_STATUSES


def web_client(
    token: str,
    *,
    base_url: str = SLACK_API_URL,
    session: aiohttp.ClientSession | None = None,
    retries: int = 2,
    backoff: float = 0.25,
) -> AsyncWebClient:
    """An AsyncWebClient that honours 429 Retry-After and retries transient 5xx and drops."""
    interval = BackoffRetryIntervalCalculator(backoff_factor=backoff)
    return AsyncWebClient(
        token=token,
        base_url=base_url,
        session=session,
        retry_handlers=[
            AsyncRateLimitErrorRetryHandler(max_retry_count=retries),
            TransientServerErrorRetryHandler(max_retry_count=retries, interval_calculator=interval),
            AsyncConnectionErrorRetryHandler(max_retry_count=retries, interval_calculator=interval),
        ],
    )


@asynccontextmanager
async def slack_call(method: str) -> AsyncIterator[None]:
    """Turn whatever a Web API call raises into `SlackCallFailed` naming Slack's error."""
    try:
        yield
    except SlackApiError as error:
        name = error.response.get("error") if isinstance(error.response.data, dict) else None
        raise SlackCallFailed(method, name or f"HTTP {error.response.status_code}") from error
    except (aiohttp.ClientError, TimeoutError) as error:
        raise SlackCallFailed(method, f"{type(error).__name__}: {error}") from error
