"""How much one relay caller may hold and how fast it may ask: 429 with `Retry-After`.

Per credential (`CredentialLimits`): pending asks of its agents (counted in the store, so
across replicas; alone on its store, this process holds every pending ask and counts them
in memory, `pending_held`, with no read), creates per minute and held waits (counted per
replica: a token bucket and a counter in this process). The service also caps the waits it holds at once for
everyone (`SLACK_QUESTIONS_MAX_WAITS`), the admin token included: each held wait is an open
connection and a task (an ask watched over `GET /v1/asks/watch`: a task, on a shared socket).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Final

from bot.outcomes import AskState
from bot.service.principals import Principal
from bot.store import AskStore

RATE_LIMITED: Final = "RATE_LIMITED"
# A full pending cap frees up only when a person answers: come back in a while, not at once.
PENDING_RETRY_S: Final = 5
# A held wait ends when its ask settles or its `wait` runs out (60 s at most).
WAIT_RETRY_S: Final = 1


class RateLimited(Exception):
    """Over a limit: the message says which, `retry_after` when to try again (seconds)."""

    code = RATE_LIMITED

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.message = message
        self.retry_after = max(1, retry_after)


@dataclass
class _Bucket:
    tokens: float
    at: float


@dataclass
class Limits:
    """The limits of every caller of this replica's relay."""

    store: AskStore
    max_waits: int  # SLACK_QUESTIONS_MAX_WAITS
    monotonic: Callable[[], float] = time.monotonic
    # The pending asks of these agents this process holds: given when no replica shares the
    # store (then they are all of them), so the pending cap reads nothing.
    pending_held: Callable[[frozenset[str]], int] | None = None
    _buckets: dict[str, _Bucket] = field(default_factory=dict)
    _waits: dict[str, int] = field(default_factory=dict)
    _held: int = 0

    @property
    def held(self) -> int:
        """How many waits this relay holds now."""
        return self._held

    async def check_pending(self, principal: Principal) -> None:
        """`RateLimited` if the caller's agents already have as many pending asks as its
        credential allows."""
        cap = principal.limits.max_pending if principal.limits else None
        if cap is None:
            return
        if self.pending_held is not None:
            pending = self.pending_held(principal.agents)
        else:
            found = await self.store.recent(
                state=AskState.PENDING, agents=principal.agents, limit=cap
            )
            pending = len(found)
        if pending >= cap:
            raise RateLimited(
                f"{principal.name} has {cap} pending asks, its limit (max_pending): "
                f"retry in {PENDING_RETRY_S} s, or withdraw one",
                PENDING_RETRY_S,
            )

    def take_create(self, principal: Principal) -> Callable[[], None]:
        """Count one create against the caller's creates per minute; `RateLimited` if the
        minute's allowance is spent. Returns the refund, for a create that made no ask
        (an idempotent retry)."""
        per_minute = principal.limits.creates_per_minute if principal.limits else None
        if per_minute is None or principal.credential_id is None:
            return _nothing
        now = self.monotonic()
        rate = per_minute / 60.0
        bucket = self._buckets.setdefault(principal.credential_id, _Bucket(per_minute, now))
        bucket.tokens = min(float(per_minute), bucket.tokens + (now - bucket.at) * rate)
        bucket.at = now
        if bucket.tokens < 1.0:
            wait = math.ceil((1.0 - bucket.tokens) / rate)
            raise RateLimited(
                f"{principal.name} may create {per_minute} asks a minute "
                f"(creates_per_minute): retry in {wait} s",
                wait,
            )
        bucket.tokens -= 1.0

        def refund() -> None:
            bucket.tokens = min(float(per_minute), bucket.tokens + 1.0)

        return refund

    @contextmanager
    def wait_held(self, principal: Principal) -> Iterator[None]:
        """Count one held wait while the block runs; `RateLimited` (before it runs) if the
        caller or the service holds as many as allowed."""
        if self._held >= self.max_waits:
            raise RateLimited(
                f"the relay holds {self.max_waits} waits, its limit (SLACK_QUESTIONS_MAX_WAITS):"
                f" retry in {WAIT_RETRY_S} s, or poll without wait",
                WAIT_RETRY_S,
            )
        key = principal.credential_id
        cap = principal.limits.max_waits if principal.limits else None
        if key is not None and cap is not None and self._waits.get(key, 0) >= cap:
            raise RateLimited(
                f"{principal.name} holds {cap} waits, its limit (max_waits): "
                f"retry in {WAIT_RETRY_S} s, or poll without wait",
                WAIT_RETRY_S,
            )
        self._held += 1
        if key is not None:
            self._waits[key] = self._waits.get(key, 0) + 1
        try:
            yield
        finally:
            self._held -= 1
            if key is not None:
                left = self._waits[key] - 1
                if left:
                    self._waits[key] = left
                else:
                    del self._waits[key]


def _nothing() -> None:
    """No refund: nothing was counted."""


__all__ = ["RATE_LIMITED", "Limits", "RateLimited"]
