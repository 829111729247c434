"""Slack's posting rate per channel, as an opt-in fault: a token bucket per channel.

Slack allows `chat.postMessage` about once per second per channel (thread replies count
against their channel), with short bursts allowed, and answers 429 with `Retry-After`
beyond it. https://docs.slack.dev/apis/web-api/rate-limits (Posting messages)

Slack's `Retry-After` is whole seconds. To let a test run Slack's shape at a fast rate (say
20 per second), the emulator announces the exact wait in fractional seconds ("0.037"); a
client that honours the header honours either.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

# The Web API methods that post into a channel and count against its rate.
POSTING_METHODS = frozenset({"chat.postMessage"})


@dataclass(frozen=True)
class PostingRate:
    """`per_second` posts per channel on average, up to `burst` at once after a quiet spell."""

    per_second: float = 1.0
    burst: int = 3

    def __post_init__(self) -> None:
        if self.per_second <= 0:
            raise ValueError(f"a posting rate is positive, not {self.per_second}")
        if self.burst < 1:
            raise ValueError(f"a burst allows at least one post, not {self.burst}")


@dataclass
class _Bucket:
    tokens: float
    at: float


class PostingLimits:
    """Which posts a channel's bucket lets through now; the others wait `retry_after()`."""

    def __init__(self, rate: PostingRate, now: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self._now = now
        self._buckets: dict[str, _Bucket] = {}

    def take(self, channel: str) -> float | None:
        """Spend a post of `channel`: None if allowed, else the seconds until one is."""
        now = self._now()
        bucket = self._buckets.setdefault(channel, _Bucket(float(self.rate.burst), now))
        bucket.tokens = min(
            float(self.rate.burst), bucket.tokens + (now - bucket.at) * self.rate.per_second
        )
        bucket.at = now
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
            return None
        return (1.0 - bucket.tokens) / self.rate.per_second


def retry_after_header(seconds: float) -> str:
    """The `Retry-After` value for a wait: milliseconds, rounded up (never "0")."""
    return f"{max(math.ceil(seconds * 1000), 1) / 1000:.3f}"


# Slack's documented shape: about one post per second per channel, short bursts allowed.
SLACK_POSTING_RATE = PostingRate(per_second=1.0, burst=3)
