"""Every Web API call the service makes, watched: failures and retries logged with the method
and Slack's error, counted in the metrics, and the last outcome kept for `/readyz`.

`WatchedWebClient` is slack_sdk's `AsyncWebClient` with one change: `api_call` — which every
named method (`chat_postMessage`, …) goes through — tells a `SlackCalls` how it ended. The
retry handlers are slack_sdk's own, told to say so before they wait and try again.
"""

from __future__ import annotations

import logging
from typing import Any, Final

import aiohttp
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.async_handler import AsyncRetryHandler
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncRateLimitErrorRetryHandler,
    AsyncServerErrorRetryHandler,
)
from slack_sdk.http_retry.builtin_interval_calculators import BackoffRetryIntervalCalculator
from slack_sdk.http_retry.request import HttpRequest
from slack_sdk.http_retry.response import HttpResponse
from slack_sdk.http_retry.state import RetryState
from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.web.async_slack_response import AsyncSlackResponse

from bot.metrics import Metrics

log = logging.getLogger("bot.slack")


class SlackCalls:
    """What the service knows of its Web API calls: the last outcome (for readiness), each
    failure and retry logged and counted."""

    def __init__(self, metrics: Metrics | None = None) -> None:
        self._metrics = metrics
        self.last_ok: bool | None = None
        """None before the first call; then whether the latest call Slack answered ok."""
        self.last_failure: str | None = None
        """`method: error` of the latest failed call, while no call has succeeded since."""

    def succeeded(self, method: str) -> None:
        """A call Slack answered with ok."""
        self.last_ok, self.last_failure = True, None

    def failed(self, method: str, error: str) -> None:
        """A call that failed for good (after any retries), with Slack's error or how it
        failed in transit."""
        self.last_ok, self.last_failure = False, f"{method}: {error}"
        log.warning(
            "Slack API %s failed: %s", method, error, extra={"method": method, "error": error}
        )
        if self._metrics is not None:
            self._metrics.slack_api_error(method, error)

    def retrying(self, method: str, why: str, attempt: int) -> None:
        """slack_sdk is about to send the call again."""
        log.info(
            "Slack API %s: %s; retry %d",
            method,
            why,
            attempt,
            extra={"method": method, "error": why, "attempt": attempt},
        )

    async def check(self, client: AsyncWebClient) -> str | None:
        """Readiness: None when the last call succeeded or `auth.test` passes now; else why."""
        if self.last_ok:
            return None
        try:
            await client.auth_test()
        except SlackApiError as error:
            return why_auth_test_failed(error)
        except (aiohttp.ClientError, TimeoutError, OSError) as error:
            return f"Slack's Web API is unreachable ({type(error).__name__}: {error})"
        return None


TOKEN_REFUSALS: Final = frozenset(
    {"invalid_auth", "not_authed", "account_inactive", "token_revoked", "token_expired"}
)
"""auth.test errors that mean the token itself is refused (docs.slack.dev/reference/methods/auth.test)."""


def why_auth_test_failed(error: SlackApiError) -> str:
    """In words: the token is refused, or Slack is failing (5xx, 429), or another error."""
    data = error.response.data
    name = data.get("error") if isinstance(data, dict) else None
    if name in TOKEN_REFUSALS:
        return f"Slack refuses the bot token (auth.test: {name})"
    status = error.response.status_code
    if name is None or status >= 500 or status == 429:
        return f"Slack's Web API is failing (auth.test: {name or f'HTTP {status}'})"
    return f"auth.test failed: {name}"


def method_of(url: str) -> str:
    """`https://slack.com/api/chat.postMessage?x` → `chat.postMessage`."""
    return url.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]


class WatchedWebClient(AsyncWebClient):
    """An `AsyncWebClient` whose every call is reported to `calls`."""

    def __init__(self, *, calls: SlackCalls, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.calls = calls

    async def api_call(self, api_method: str, **kwargs: Any) -> AsyncSlackResponse:
        try:
            response = await super().api_call(api_method, **kwargs)
        except SlackApiError as error:
            data = error.response.data
            name = data.get("error") if isinstance(data, dict) else None
            self.calls.failed(api_method, name or f"HTTP {error.response.status_code}")
            raise
        except (aiohttp.ClientError, TimeoutError) as error:
            self.calls.failed(api_method, f"unreachable ({type(error).__name__})")
            raise
        self.calls.succeeded(api_method)
        return response


class _Told:
    """Mixed into slack_sdk's retry handlers: report the retry, then wait as they do."""

    calls: SlackCalls

    async def prepare_for_next_attempt_async(
        self,
        *,
        state: RetryState,
        request: HttpRequest,
        response: HttpResponse | None = None,
        error: Exception | None = None,
    ) -> None:
        why = f"HTTP {response.status_code}" if response is not None else type(error).__name__
        if response is not None and response.status_code == 429:
            after = next(
                (v[0] for k, v in response.headers.items() if k.lower() == "retry-after"), None
            )
            why = "ratelimited" + (f" (Retry-After {after} s)" if after else "")
        self.calls.retrying(method_of(request.url), why, state.current_attempt + 1)
        await super().prepare_for_next_attempt_async(  # type: ignore[misc]
            state=state, request=request, response=response, error=error
        )


class ToldRateLimitRetry(_Told, AsyncRateLimitErrorRetryHandler):
    """slack_sdk's 429 handler (waits for Retry-After), reporting each retry."""

    def __init__(self, calls: SlackCalls, *, max_retry_count: int) -> None:
        super().__init__(max_retry_count=max_retry_count)
        self.calls = calls


class ToldServerErrorRetry(_Told, AsyncServerErrorRetryHandler):
    """slack_sdk's 500/503 handler (backoff), reporting each retry."""

    def __init__(self, calls: SlackCalls, *, max_retry_count: int, **kwargs: Any) -> None:
        super().__init__(max_retry_count=max_retry_count, **kwargs)
        self.calls = calls


def retry_handlers(calls: SlackCalls, *, retries: int, backoff: float) -> list[AsyncRetryHandler]:
    """slack_sdk's 429 handler (Retry-After) and 500/503 handler (backoff), each reporting
    its retries to `calls`. Nothing else is retried: a 502, 504 or dropped connection may
    come after Slack acted."""
    return [
        ToldRateLimitRetry(calls, max_retry_count=retries),
        ToldServerErrorRetry(
            calls,
            max_retry_count=retries,
            interval_calculator=BackoffRetryIntervalCalculator(backoff_factor=backoff),
        ),
    ]
