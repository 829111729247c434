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

A call waits either in its own task (`send`) or as queued work with no task (`queue`): an
entry in the lane's heap, given a task only when its turn comes; the work is handed its
turn (`QueuedTurn`), and the call it makes with it (`send(..., on=turn)`) goes at once. The
relay queues its asks so: 10,000 asks waiting in a channel are 10,000 small entries, not
10,000 suspended coroutines.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import Awaitable, Callable, Coroutine
from enum import IntEnum
from typing import Any, TypeVar

from slack_sdk.web.async_slack_response import AsyncSlackResponse

from bot.slack.api import RATE_LIMITS_RAISED, SlackCallFailed, SlackClient

T = TypeVar("T")
# Work queued in a lane (handed its turn when it comes), and how a task is started for it
# (None: it could not be).
Work = Callable[["QueuedTurn"], Awaitable[None]]
Spawn = Callable[[Coroutine[Any, Any, None]], object | None]

# The shortest pause after a 429, whatever `Retry-After` says: "0" must not become a busy loop.
MIN_PAUSE = 0.01


class Turn(IntEnum):
    """Who goes first in a saturated channel (lower first)."""

    CLOSE = 0
    ROOT = 1
    POST = 2


class Dropped(Exception):
    """The call left the queue before its turn: what it was for was settled meanwhile."""


class _Place:
    """A place in a lane's queue: its turn, then its order, then first come."""

    __slots__ = ("key", "order", "seq", "turn")

    def __init__(self, turn: Turn, order: float, seq: int, key: str | None) -> None:
        self.turn = turn
        self.order = order
        self.seq = seq
        self.key = key

    def __lt__(self, other: _Place) -> bool:
        return (self.turn, self.order, self.seq) < (other.turn, other.order, other.seq)

    @property
    def gone(self) -> bool:
        """Dropped (or cancelled) before its turn came."""
        raise NotImplementedError


class _Waiter(_Place):
    """A call waiting in its own task: its future says when the turn has come."""

    __slots__ = ("granted",)

    def __init__(
        self, turn: Turn, order: float, seq: int, key: str | None, granted: asyncio.Future[bool]
    ) -> None:
        super().__init__(turn, order, seq, key)
        self.granted = granted

    @property
    def gone(self) -> bool:
        return self.granted.done()


class QueuedTurn(_Place):
    """Work waiting with no task of its own: a task is started for it when its turn comes,
    and the work is handed this, to make its first call on that turn (`send(..., on=)`).
    Until then the lane is its: a call of its work in that channel without it would wait
    for itself. Thousands of asks queued in one channel are thousands of these, not tasks."""

    __slots__ = ("dropped", "spawn", "work")

    def __init__(
        self, turn: Turn, order: float, seq: int, key: str | None, work: Work, spawn: Spawn
    ) -> None:
        super().__init__(turn, order, seq, key)
        self.work = work
        self.spawn = spawn
        self.dropped = False

    @property
    def gone(self) -> bool:
        return self.dropped


class _Lane:
    """One channel: who waits, whether a call is in flight, until when posts are held."""

    def __init__(self) -> None:
        self.waiting: list[_Place] = []
        self.busy = False
        self.posts_held_until = 0.0
        self.timer: asyncio.TimerHandle | None = None
        # A job whose turn has come, until its work makes its call or ends without one.
        self.reserved: QueuedTurn | None = None

    def grant(self) -> None:
        """Let the first waiter whose turn has come go, if nothing is in flight."""
        while not self.busy:
            while self.waiting and self.waiting[0].gone:
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
            if isinstance(head, _Waiter):
                head.granted.set_result(True)
            elif isinstance(head, QueuedTurn):
                self.reserved = head
                if head.spawn(self._hold(head)) is None:
                    # Shutting down: no queued work starts now (what it was for is not
                    # lost: pending asks are taken back from the store at the next start).
                    self.reserved = None
                    self.busy = False
                    self.waiting = [
                        place for place in self.waiting if not isinstance(place, QueuedTurn)
                    ]
                    heapq.heapify(self.waiting)

    async def _hold(self, job: QueuedTurn) -> None:
        try:
            await job.work(job)
        finally:
            if self.reserved is job:  # it ended without making its call: pass the turn on
                self.reserved = None
                self.release()

    def use_turn(self, job: QueuedTurn) -> bool:
        """Whether `job` holds this lane's turn, unused (it is used now)."""
        if self.reserved is not job:
            return False
        self.reserved = None
        return True

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
        return sum(not place.gone for place in lane.waiting) if lane else 0

    async def send(
        self,
        channel: str,
        turn: Turn,
        call: Callable[[], Awaitable[T]],
        *,
        key: str | None = None,
        order: float | None = None,
        on: QueuedTurn | None = None,
    ) -> T:
        """Run `call` when its turn comes in `channel` (within a turn, lowest `order` first,
        default now, then first come), again after each 429 once Slack's `Retry-After` has
        passed. `Dropped` if `drop(channel, key)` took it out first. `on`: the turn a queued
        work was handed; its first call goes at once, on it."""
        lane = self._lanes.setdefault(channel, _Lane())
        place = (time.time() if order is None else order, next(self._seq))
        on_turn = on is not None and lane.use_turn(on)
        while True:
            if not on_turn:
                await self._acquire(lane, _Waiter(turn, *place, key, _future()))  # keeps its place
            on_turn = False
            # The lane waits out a 429 itself: the client raises it at once (bot/slack/api.py).
            raising = RATE_LIMITS_RAISED.set(True)
            try:
                return await call()
            except SlackCallFailed as failed:
                if failed.retry_after is None:
                    raise
                wait = max(failed.retry_after, MIN_PAUSE)
                if turn is not Turn.CLOSE:
                    held = asyncio.get_running_loop().time() + wait
                    lane.posts_held_until = max(lane.posts_held_until, held)
                else:
                    await asyncio.sleep(wait)  # updates are rare: wait it out holding the lane
            finally:
                RATE_LIMITS_RAISED.reset(raising)
                lane.release()

    def queue(
        self,
        channel: str,
        turn: Turn,
        work: Work,
        *,
        spawn: Spawn,
        key: str | None = None,
        order: float | None = None,
    ) -> None:
        """Queue `work` in `channel` like a call of `send`, but holding no task while it
        waits: when its turn comes a task is started for it (`spawn`), handing it its turn;
        the call it sends with it (`send(..., on=turn)`) goes at once. A turn its work does
        not use passes on when the work ends. `drop(channel, key)` takes it out unstarted."""
        lane = self._lanes.setdefault(channel, _Lane())
        place = (time.time() if order is None else order, next(self._seq))
        heapq.heappush(lane.waiting, QueuedTurn(turn, *place, key, work, spawn))
        lane.grant()

    def drop(self, channel: str | None, key: str) -> None:
        """Take `key`'s waiting calls out of `channel`'s queue (they raise `Dropped`) and
        its queued work (never started)."""
        lane = self._lanes.get(channel) if channel is not None else None
        if lane is None:
            return
        for place in lane.waiting:
            if place.key != key or place.gone:
                continue
            if isinstance(place, _Waiter):
                place.granted.set_result(False)
            elif isinstance(place, QueuedTurn):
                place.dropped = True
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
    """Posts and updates in channels, each through its channel's lane, on the bot's one
    client (a 429 on a lane's turn comes back to the lane, which honours `Retry-After`)."""

    def __init__(self, client: SlackClient) -> None:
        self.client = client
        self.pacing = ChannelPacing()

    async def post_message(
        self,
        turn: Turn,
        *,
        channel: str,
        key: str | None = None,
        order: float | None = None,
        on: QueuedTurn | None = None,
        **arguments: Any,
    ) -> AsyncSlackResponse:
        """`chat.postMessage` in `channel` when its turn comes (`Dropped` if dropped first;
        `on`: a queued work's turn, see `ChannelPacing.send`)."""
        return await self.pacing.send(
            channel,
            turn,
            lambda: self.client.chat_postMessage(channel=channel, **arguments),
            key=key,
            order=order,
            on=on,
        )

    async def update(self, *, channel: str, ts: str, **arguments: Any) -> AsyncSlackResponse:
        """`chat.update` of a posted message, ahead of every waiting post."""
        return await self.pacing.send(
            channel,
            Turn.CLOSE,
            lambda: self.client.chat_update(channel=channel, ts=ts, **arguments),
        )
