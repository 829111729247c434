"""Slack's Web API through one client: every call watched, retried as Slack allows, and its
failure raised as our one error.

`SlackClient` is slack_sdk's `AsyncWebClient` with one change: `api_call`, which every named
method (`chat_postMessage`, …) goes through, is the one place where a call is
- watched: `SlackCalls` logs a failure or a retry with the method and Slack's error, counts it
  in the metrics, and keeps the last outcome for `/readyz`;
- retried: by slack_sdk's own handlers, told to say so before they wait. A 429 waits for
  `Retry-After` (except on a channel lane's turn, `RATE_LIMITS_RAISED`: the lane waits it out
  without holding the channel); a 500 or 503 is sent again with backoff;
- mapped: a call that failed for good raises `SlackCallFailed`, naming the method and Slack's
  error, so callers just `await client.chat_postMessage(...)`.

Bolt's own calls never reach `api_call`: Bolt builds a plain `AsyncWebClient` per request from
this client's settings (`AsyncApp._init_context` copies its base URL, session, headers and
retry handlers), so its authorization's auth.test still raises the `SlackApiError` its
middleware catches. Only the bot's own calls raise `SlackCallFailed`.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Mapping
from contextvars import ContextVar
from typing import Any, Final

import aiohttp
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.async_handler import AsyncRetryHandler
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncRateLimitErrorRetryHandler,
    AsyncServerErrorRetryHandler,
)
from slack_sdk.http_retry.builtin_interval_calculators import BackoffRetryIntervalCalculator
from slack_sdk.http_retry.jitter import Jitter
from slack_sdk.http_retry.request import HttpRequest
from slack_sdk.http_retry.response import HttpResponse
from slack_sdk.http_retry.state import RetryState
from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.web.async_slack_response import AsyncSlackResponse

from bot.metrics import Metrics

log = logging.getLogger("bot.slack")

SLACK_API_URL: Final = "https://slack.com/api/"
# slack_sdk's own timeout does not apply to a session we pass in.
CALL_TIMEOUT_SECONDS: Final = 30.0
# A response's headers: aiohttp's, one string per name; slack_sdk's retry responses', a list.
Headers = Mapping[str, str | list[str]]
# The wait a 429 asks for when its `Retry-After` is missing or unreadable.
DEFAULT_RETRY_AFTER: Final = 1.0

RATE_LIMITS_RAISED: ContextVar[bool] = ContextVar("rate_limits_raised", default=False)
"""True while a channel lane makes its call: a 429 then raises `SlackCallFailed` at once (with
`retry_after`) instead of slack_sdk's handler sleeping on it. That handler would hold the
lane a whole second plus jitter and reads only whole seconds; the lane releases the channel
to updates and honours `Retry-After` itself (bot/slack/pacing.py)."""


class SlackCallFailed(Exception):
    """A Web API call failed for good (after retries); `error` is Slack's error name, or
    `HTTP <status>` when Slack named none, or how the call failed in transit.

    `in_transit`: the call failed on the way (timeout, dropped connection), so Slack may
    have carried it out anyway. `status`: the HTTP status Slack answered with (None in
    transit). `retry_after`: for a 429, the seconds Slack asks to wait.
    """

    def __init__(
        self,
        method: str,
        error: str,
        *,
        in_transit: bool = False,
        status: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(f"Slack refused {method}: {error}")
        self.method = method
        self.error = error
        self.in_transit = in_transit
        self.status = status
        self.retry_after = retry_after


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

    async def check(self, client: SlackClient) -> str | None:
        """Readiness: None when the last call succeeded or `auth.test` passes now; else why."""
        if self.last_ok:
            return None
        try:
            await client.auth_test()
        except SlackCallFailed as failed:
            return why_auth_test_failed(failed)
        return None


TOKEN_REFUSALS: Final = frozenset(
    {"invalid_auth", "not_authed", "account_inactive", "token_revoked", "token_expired"}
)
"""auth.test errors that mean the token itself is refused (docs.slack.dev/reference/methods/auth.test)."""


def why_auth_test_failed(failed: SlackCallFailed) -> str:
    """In words: Slack is unreachable, or refuses the token, or is failing (5xx, 429, an
    answer naming no error), or another error."""
    if failed.in_transit:
        return f"Slack's Web API is unreachable ({failed.error})"
    if failed.error in TOKEN_REFUSALS:
        return f"Slack refuses the bot token (auth.test: {failed.error})"
    status = failed.status or 0
    if failed.error.startswith("HTTP ") or status >= 500 or status == 429:
        return f"Slack's Web API is failing (auth.test: {failed.error})"
    return f"auth.test failed: {failed.error}"


def method_of(url: str) -> str:
    """`https://slack.com/api/chat.postMessage?x` → `chat.postMessage`."""
    return url.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]


class SlackClient(AsyncWebClient):
    """The bot's Web API client: an `AsyncWebClient` whose every call is reported to `calls`
    and whose failures raise `SlackCallFailed`."""

    def __init__(self, *, calls: SlackCalls, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.calls = calls

    async def api_call(self, api_method: str, **kwargs: Any) -> AsyncSlackResponse:
        try:
            response = await super().api_call(api_method, **kwargs)
        except SlackApiError as error:
            failed = _refused(api_method, error)
            self.calls.failed(api_method, failed.error)
            raise failed from error
        except (aiohttp.ClientError, OSError) as error:  # OSError: TimeoutError too
            # The metric's label names only the kind, so it stays one series per failure.
            self.calls.failed(api_method, f"unreachable ({type(error).__name__})")
            raise SlackCallFailed(
                api_method, f"{type(error).__name__}: {error}", in_transit=True
            ) from error
        self.calls.succeeded(api_method)
        return response


def _refused(method: str, error: SlackApiError) -> SlackCallFailed:
    """The `SlackCallFailed` for an answer Slack gave: its error name, status and, for a
    429, the wait it asks for."""
    response = error.response
    name = response.get("error") if isinstance(response.data, dict) else None
    status = response.status_code
    return SlackCallFailed(
        method,
        str(name) if name else f"HTTP {status}",
        status=status,
        retry_after=_retry_after(response.headers) if status == 429 else None,
    )


def _retry_after(headers: Headers) -> float:
    """The seconds a 429's `Retry-After` asks for (Slack sends whole seconds; any number is
    read); `DEFAULT_RETRY_AFTER` when it names none."""
    value = _header(headers, "retry-after")
    try:
        return float(value) if value is not None else DEFAULT_RETRY_AFTER
    except ValueError:
        return DEFAULT_RETRY_AFTER


def _header(headers: Headers, name: str) -> str | None:
    for key, value in headers.items():
        if key.lower() == name:
            return (value[0] if value else None) if isinstance(value, list) else str(value)
    return None


def web_client(
    token: str,
    *,
    base_url: str = SLACK_API_URL,
    session: aiohttp.ClientSession | None = None,
    retries: int = 2,
    backoff: float = 0.25,
    calls: SlackCalls | None = None,
) -> SlackClient:
    """The bot's client: it honours 429 Retry-After and retries Slack's transient 5xx, and
    reports every call, failure and retry to `calls`.

    slack_sdk's own handlers: a 429 waits for Retry-After; a 500 or 503 (Slack did not carry
    the call out) is sent again with backoff. Nothing else is: a 502, 504 or dropped connection
    may come after Slack acted, so the SDK's default connection-error retry is left out.
    """
    calls = calls or SlackCalls()
    return SlackClient(
        calls=calls,
        token=token,
        base_url=base_url,
        session=session,
        retry_handlers=retry_handlers(calls, retries=retries, backoff=backoff),
    )


def client_session(timeout: float = CALL_TIMEOUT_SECONDS) -> aiohttp.ClientSession:
    """The HTTP session for Web API calls: every call ends within `timeout` seconds."""
    return aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout))


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
            after = _header(response.headers, "retry-after")
            why = "ratelimited" + (f" (Retry-After {after} s)" if after else "")
        self.calls.retrying(method_of(request.url), why, state.current_attempt + 1)
        await super().prepare_for_next_attempt_async(  # type: ignore[misc]
            state=state, request=request, response=response, error=error
        )


class ToldRateLimitRetry(_Told, AsyncRateLimitErrorRetryHandler):
    """slack_sdk's 429 handler (waits for Retry-After), reporting each retry; it leaves a
    429 to the caller while `RATE_LIMITS_RAISED` is set."""

    def __init__(self, calls: SlackCalls, *, max_retry_count: int) -> None:
        super().__init__(max_retry_count=max_retry_count)
        self.calls = calls

    async def can_retry_async(
        self,
        *,
        state: RetryState,
        request: HttpRequest,
        response: HttpResponse | None = None,
        error: Exception | None = None,
    ) -> bool:
        if RATE_LIMITS_RAISED.get():
            return False
        return await super().can_retry_async(
            state=state, request=request, response=response, error=error
        )


class ToldServerErrorRetry(_Told, AsyncServerErrorRetryHandler):
    """slack_sdk's 500/503 handler (backoff), reporting each retry."""

    def __init__(self, calls: SlackCalls, *, max_retry_count: int, **kwargs: Any) -> None:
        super().__init__(max_retry_count=max_retry_count, **kwargs)
        self.calls = calls


class ScaledJitter(Jitter):
    """A backoff of d waits between d and 2d. slack_sdk's default jitter adds up to a whole
    second to every wait, whatever the backoff: a 0.25 s backoff waited 0.25-1.25 s, and a
    backoff of 0 still up to a second."""

    def recalculate(self, duration: float) -> float:
        """`duration` stretched by a random share of itself."""
        return duration * (1 + random.random())


def retry_handlers(calls: SlackCalls, *, retries: int, backoff: float) -> list[AsyncRetryHandler]:
    """slack_sdk's 429 handler (Retry-After) and 500/503 handler (backoff), each reporting
    its retries to `calls`. Nothing else is retried: a 502, 504 or dropped connection may
    come after Slack acted."""
    return [
        ToldRateLimitRetry(calls, max_retry_count=retries),
        ToldServerErrorRetry(
            calls,
            max_retry_count=retries,
            interval_calculator=BackoffRetryIntervalCalculator(
                backoff_factor=backoff, jitter=ScaledJitter()
            ),
        ),
    ]
