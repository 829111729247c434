"""Slack's posting rate, kept: one call in flight per channel, in an order, and a 429 waited out.

Slack allows about one `chat.postMessage` per second per channel (a thread's replies count
against its channel), with short bursts, and answers 429 with `Retry-After` beyond that.
A burst of asks must queue, not fail. Every post and update of a channel therefore waits
its turn in the channel's lane; a 429 holds the lane's posts for the `Retry-After` Slack
announces (not a guessed constant; at least `MIN_PAUSE`), and the call is sent again, with no
limit on the number of tries. Nothing here fails for a
rate limit; other failures go to the caller unchanged.

When a channel is saturated, the turn goes (then first come, first served):
1. `CLOSE` — updates of posted messages: a decided or withdrawn ask's controls closed,
   progress shown. Stale buttons invite clicks that can no longer count; and chat.update
   is not under the posting rate, so it never waits out a post's 429.
2. `ROOT` — a session's thread root: every ask of the session waits behind it.
3. `POST` — ask parts and reminders, oldest first: an ask's parts go in the order the asks
   were made (its creation time), whatever order their posting tasks reach the lane in.
An ask settled while its post waits (a withdrawal) leaves the queue without being posted.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, TypeVar

from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_async_handlers import AsyncRateLimitErrorRetryHandler
from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.web.async_slack_response import AsyncSlackResponse

from .slack_watch import WatchedWebClient

T = TypeVar("T")

# The shortest pause after a 429, whatever `Retry-After` says: "0" must not become a busy loop.
MIN_PAUSE = 0.01


class Turn(IntEnum):
    """Who goes first in a saturated channel (lower first)."""

    CLOSE = 0
    ROOT = 1
    POST = 2


class Dropped(Exception):
    """The call left the queue before its turn: what it was for was settled meanwhile."""


def retry_after(error: SlackApiError) -> float | None:
    """The seconds a 429 asks us to wait (Slack sends whole seconds; any number is read)."""
    response = error.response
    if response.status_code != 429:
        return None
    value = response.headers.get("Retry-After") or response.headers.get("retry-after")
    if isinstance(value, list):
        value = value[0] if value else None
    try:
        return max(float(value), MIN_PAUSE) if value is not None else 1.0
    except ValueError:
        return 1.0


@dataclass(order=True)
class _Waiter:
    turn: Turn
    order: float
    seq: int
    key: str | None = field(compare=False)
    granted: asyncio.Future[bool] = field(compare=False)


class _Lane:
    """One channel: who waits, whether a call is in flight, until when posts are held."""

    def __init__(self) -> None:
        self.waiting: list[_Waiter] = []
        self.busy = False
        self.posts_held_until = 0.0
        self.timer: asyncio.TimerHandle | None = None

    def grant(self) -> None:
        """Let the first waiter whose turn has come go, if nothing is in flight."""
        if self.busy:
            return
        while self.waiting and self.waiting[0].granted.done():
            heapq.heappop(self.waiting)  # dropped or cancelled
        if not self.waiting:
            return
        loop = asyncio.get_running_loop()
        head = self.waiting[0]
        if head.turn is not Turn.CLOSE and loop.time() < self.posts_held_until:
            if self.timer is None:
                self.timer = loop.call_at(self.posts_held_until, self._wake)
            return
        heapq.heappop(self.waiting)
        self.busy = True
        head.granted.set_result(True)

    def _wake(self) -> None:
        self.timer = None
        self.grant()

    def release(self) -> None:
        self.busy = False
        self.grant()


class ChannelPacing:
    """The lanes of every channel the bot writes to."""

    def __init__(self) -> None:
        self._lanes: dict[str, _Lane] = {}
        self._seq = itertools.count()

    def queued(self, channel: str) -> int:
        """How many calls wait their turn in `channel` (not counting the one in flight)."""
        lane = self._lanes.get(channel)
        return sum(not w.granted.done() for w in lane.waiting) if lane else 0

    async def send(
        self,
        channel: str,
        turn: Turn,
        call: Callable[[], Awaitable[T]],
        *,
        key: str | None = None,
        order: float | None = None,
    ) -> T:
        """Run `call` when its turn comes in `channel` (within a turn, lowest `order` first,
        default now, then first come), again after each 429 once Slack's `Retry-After` has
        passed. `Dropped` if `drop(channel, key)` took it out first."""
        lane = self._lanes.setdefault(channel, _Lane())
        place = (time.time() if order is None else order, next(self._seq))
        while True:
            await self._acquire(lane, _Waiter(turn, *place, key, _future()))  # keeps its place
            try:
                return await call()
            except SlackApiError as error:
                wait = retry_after(error)
                if wait is None:
                    raise
                if turn is not Turn.CLOSE:
                    held = asyncio.get_running_loop().time() + wait
                    lane.posts_held_until = max(lane.posts_held_until, held)
                else:
                    await asyncio.sleep(wait)  # updates are rare: wait it out holding the lane
            finally:
                lane.release()

    def drop(self, channel: str | None, key: str) -> None:
        """Take `key`'s waiting calls out of `channel`'s queue (they raise `Dropped`)."""
        lane = self._lanes.get(channel) if channel is not None else None
        if lane is None:
            return
        for waiter in lane.waiting:
            if waiter.key == key and not waiter.granted.done():
                waiter.granted.set_result(False)
        lane.grant()

    async def _acquire(self, lane: _Lane, waiter: _Waiter) -> None:
        heapq.heappush(lane.waiting, waiter)
        lane.grant()
        try:
            granted = await waiter.granted
        except asyncio.CancelledError:
            if waiter.granted.done() and not waiter.granted.cancelled():
                if waiter.granted.result():
                    lane.release()  # granted as we were cancelled: pass the turn on
            else:
                waiter.granted.cancel()
                lane.grant()
            raise
        if not granted:
            raise Dropped(waiter.key)


def _future() -> asyncio.Future[bool]:
    return asyncio.get_running_loop().create_future()


class ChannelPosts:
    """Posts and updates in channels, each through its channel's lane.

    Its client is the bot's own minus slack_sdk's 429 handler: that handler sleeps a whole
    second plus jitter while holding the lane, and reads only whole seconds; the lane
    honours `Retry-After` itself.
    """

    def __init__(self, client: AsyncWebClient) -> None:
        handlers = [
            handler
            for handler in client.retry_handlers
            if not isinstance(handler, AsyncRateLimitErrorRetryHandler)
        ]
        # The same connection, watch (failures reach logs, metrics and /readyz) and 5xx
        # retries as the bot's client; only the 429 handler is left to the lane.
        self.client = (
            WatchedWebClient(
                calls=client.calls,
                token=client.token,
                base_url=client.base_url,
                timeout=client.timeout,
                session=client.session,
                headers=client.headers,
                retry_handlers=handlers,
            )
            if isinstance(client, WatchedWebClient)
            else AsyncWebClient(
                token=client.token,
                base_url=client.base_url,
                timeout=client.timeout,
                session=client.session,
                headers=client.headers,
                retry_handlers=handlers,
            )
        )
        self.pacing = ChannelPacing()

    async def post_message(
        self,
        turn: Turn,
        *,
        channel: str,
        key: str | None = None,
        order: float | None = None,
        **arguments: Any,
    ) -> AsyncSlackResponse:
        """`chat.postMessage` in `channel` when its turn comes (`Dropped` if dropped first)."""
        return await self.pacing.send(
            channel,
            turn,
            lambda: self.client.chat_postMessage(channel=channel, **arguments),
            key=key,
            order=order,
        )

    async def update(self, *, channel: str, ts: str, **arguments: Any) -> AsyncSlackResponse:
        """`chat.update` of a posted message, ahead of every waiting post."""
        return await self.pacing.send(
            channel,
            Turn.CLOSE,
            lambda: self.client.chat_update(channel=channel, ts=ts, **arguments),
        )
