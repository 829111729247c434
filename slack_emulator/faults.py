"""Faults a test can inject into Web API methods: rate limits, server errors, delays, errors."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TypeAlias


@dataclass(frozen=True)
class RateLimited:
    """HTTP 429 with `Retry-After` and `{"ok": false, "error": "ratelimited"}`.
    https://docs.slack.dev/apis/web-api/rate-limits
    """

    retry_after: int = 1


@dataclass(frozen=True)
class ServerError:
    """A 5xx with an HTML body, as Slack's edge answers when a backend is down."""

    status: int = 503

    def __post_init__(self) -> None:
        if not 500 <= self.status <= 599:
            raise ValueError(f"a server error has a 5xx status, not {self.status}")


@dataclass(frozen=True)
class Slow:
    """Answer normally, but only after `seconds` (real time), or as soon as `released` is
    set: a test holding a call while it kills the app ends the hold once it has."""

    seconds: float
    released: asyncio.Event | None = None


@dataclass(frozen=True)
class SlowReply:
    """Do the call at once (a message is stored), but send the reply only after `seconds`
    (real time): the app can be killed while the reply is in flight."""

    seconds: float


@dataclass(frozen=True)
class ApiError:
    """HTTP 200 with `{"ok": false, "error": <error>}`, as if Slack refused the call."""

    error: str


Fault: TypeAlias = RateLimited | ServerError | Slow | SlowReply | ApiError

ANY_METHOD = "*"


@dataclass
class _Armed:
    fault: Fault
    remaining: int | None


class Faults:
    """Per-method queues of armed faults; the first armed fault of a method fires on each call."""

    def __init__(self) -> None:
        self._armed: dict[str, list[_Armed]] = {}

    def inject(self, method: str, fault: Fault, *, times: int | None = 1) -> None:
        """Arm `fault` for the next `times` calls of `method` ("*" = every method);
        `times=None` keeps it armed until `clear()`."""
        if times is not None and times < 1:
            raise ValueError("times must be at least 1, or None for until cleared")
        self._armed.setdefault(method, []).append(_Armed(fault, times))

    def clear(self) -> None:
        self._armed.clear()

    def take(self, method: str) -> Fault | None:
        """The fault this call of `method` suffers, if any; counts it down."""
        for key in (method, ANY_METHOD):
            queue = self._armed.get(key)
            if not queue:
                continue
            armed = queue[0]
            if armed.remaining is not None:
                armed.remaining -= 1
                if armed.remaining == 0:
                    queue.pop(0)
            return armed.fault
        return None
