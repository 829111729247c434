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
3. `POST` — ask parts and reminders.
Within `ROOT` and `POST` the agents take turns (`round_robin.py`): each call names its
`agent`, and the agents with calls waiting go one call each, in a round, so one agent's
burst of 400 asks delays another agent's ask by at most one post. A POST's agent is the
ask's session (asks without one are one agent together); a ROOT's is the agent's name, so
one agent opening many sessions does not hold back another's root (nameless sessions
are one agent together). An agent's own calls go oldest first: an ask's parts in the order
its asks were made (its creation time), whatever order their posting tasks reach the lane
in. A call Slack answered 429 keeps its place and its agent's turn.
An ask settled while its post waits (a withdrawal) leaves the queue without being posted.

A call waits either in its own task (`send`) or as queued work with no task (`queue`): an
entry in the lane's queue, given a task only when its turn comes; the work is handed its
turn (`QueuedTurn`), and the call it makes with it (`send(..., on=turn)`) goes at once. The
relay queues its asks so: 10,000 asks waiting in a channel are 10,000 small entries, not
10,000 suspended coroutines. Queueing, dropping and taking the next call cost O(log n).
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from enum import IntEnum
from typing import Any, TypeVar

from slack_sdk.web.async_slack_response import AsyncSlackResponse

from bot.slack.api import RATE_LIMITS_RAISED, SlackCallFailed, SlackClient
from bot.slack.round_robin import RoundRobin

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
    """A place in a lane's queue: its turn, its agent, then its order, then first come."""

    __slots__ = ("agent", "key", "order", "seq", "turn")

    def __init__(
        self, turn: Turn, order: float, seq: int, key: str | None, agent: str | None
    ) -> None:
        self.turn = turn
        self.order = order
        self.seq = seq
        self.key = key
        self.agent = agent

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
        self,
        turn: Turn,
        order: float,
        seq: int,
        key: str | None,
        agent: str | None,
        granted: asyncio.Future[bool],
    ) -> None:
        super().__init__(turn, order, seq, key, agent)
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
        self,
        turn: Turn,
        order: float,
        seq: int,
        key: str | None,
        agent: str | None,
        work: Work,
        spawn: Spawn,
    ) -> None:
        super().__init__(turn, order, seq, key, agent)
        self.work = work
        self.spawn = spawn
        self.dropped = False

    @property
    def gone(self) -> bool:
        return self.dropped


class _Queue:
    """Who waits in one lane: updates first come, first served; roots, then posts, with
    the agents taking turns (`RoundRobin`); and each key's places, to drop them at once."""

    def __init__(self) -> None:
        self._closing: list[_Place] = []
        self._roots = RoundRobin[_Place]()
        self._posts = RoundRobin[_Place]()
        # A key's place, or its places when it has several (rare: a list for each key would
        # be 10,000 more objects for the collector to scan when 10,000 asks wait).
        self._of_key: dict[str, _Place | list[_Place]] = {}

    def _round(self, turn: Turn) -> RoundRobin[_Place]:
        return self._roots if turn is Turn.ROOT else self._posts

    def push(self, place: _Place, *, again: bool = False) -> None:
        """Queue `place`; `again`: a call Slack refused with 429 on its turn, which its
        agent keeps."""
        turn = place.turn
        if turn is Turn.CLOSE:
            heapq.heappush(self._closing, place)
        elif again:
            self._round(turn).push_first(place.agent, place)
        else:
            self._round(turn).push(place.agent, place)
        key = place.key
        if key is not None:
            known = self._of_key.get(key)
            if known is None:
                self._of_key[key] = place
            elif isinstance(known, list):
                known.append(place)
            else:
                self._of_key[key] = [known, place]

    def first(self) -> _Place | None:
        """The place whose turn is next (it stays queued)."""
        while self._closing and self._closing[0].gone:
            heapq.heappop(self._closing)  # cancelled
        if self._closing:
            return self._closing[0]
        root = self._roots.first()
        return root if root is not None else self._posts.first()

    def pop(self) -> _Place | None:
        """Take the place whose turn is next (its agent's turn is then taken)."""
        head = self.first()
        if head is None:
            return None
        if head.turn is Turn.CLOSE:
            heapq.heappop(self._closing)
        else:
            self._round(head.turn).pop()
        self.forget(head)
        return head

    def forget(self, place: _Place) -> None:
        """`place` left the queue (its turn came, or it was cancelled): no key holds it."""
        if place.key is None:
            return
        known = self._of_key.get(place.key)
        if known is place:
            del self._of_key[place.key]
        elif isinstance(known, list) and place in known:
            known.remove(place)
            if not known:
                del self._of_key[place.key]

    def take_key(self, key: str) -> list[_Place]:
        """`key`'s places, no longer found by key (the caller marks them gone)."""
        known = self._of_key.pop(key, [])
        return known if isinstance(known, list) else [known]

    def __iter__(self) -> Iterator[_Place]:
        yield from self._closing
        yield from self._roots.entries()
        yield from self._posts.entries()

    def discard_queued(self) -> None:
        """Take every queued work out (shutting down: none may start now)."""
        for place in self:
            if isinstance(place, QueuedTurn):
                self.forget(place)
        self._closing = [place for place in self._closing if not isinstance(place, QueuedTurn)]
        heapq.heapify(self._closing)
        for turn in (self._roots, self._posts):
            turn.discard(lambda place: isinstance(place, QueuedTurn))


class _Lane:
    """One channel: who waits, whether a call is in flight, until when posts are held."""

    def __init__(self) -> None:
        self.waiting = _Queue()
        self.busy = False
        self.posts_held_until = 0.0
        self.timer: asyncio.TimerHandle | None = None
        # A job whose turn has come, until its work makes its call or ends without one.
        self.reserved: QueuedTurn | None = None

    def grant(self) -> None:
        """Let the first waiter whose turn has come go, if nothing is in flight."""
        while not self.busy:
            head = self.waiting.first()  # (dropped or cancelled places are discarded)
            if head is None:
                return
            loop = asyncio.get_running_loop()
            if head.turn is not Turn.CLOSE and loop.time() < self.posts_held_until:
                if self.timer is None:
                    self.timer = loop.call_at(self.posts_held_until, self._wake)
                return
            self.waiting.pop()
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
                    self.waiting.discard_queued()

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
        self._stopped = False

    def stop(self) -> None:
        """Shutdown has begun: every post and root waiting its turn gives it up (`Dropped`)
        and none waits from now on; updates still go, and calls in flight finish. Nothing is
        lost: pending asks are taken back from the store and posted at the next start, so the
        shutdown drain does not wait out a 429's `Retry-After` (or a queue) for them."""
        self._stopped = True
        for lane in self._lanes.values():
            for place in list(lane.waiting):
                if place.turn is Turn.CLOSE or place.gone:
                    continue
                if isinstance(place, _Waiter):
                    place.granted.set_result(False)
                elif isinstance(place, QueuedTurn):
                    place.dropped = True

    def _lane(self, channel: str) -> _Lane:
        lane = self._lanes.get(channel)
        if lane is None:  # (not `setdefault`: a lane is built only for a new channel)
            lane = self._lanes[channel] = _Lane()
        return lane

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
        agent: str | None = None,
        order: float | None = None,
        on: QueuedTurn | None = None,
    ) -> T:
        """Run `call` when its turn comes in `channel` (within a turn, the agents in turn,
        and of `agent`'s calls lowest `order` first, default now, then first come), again
        after each 429 once Slack's `Retry-After` has passed. `Dropped` if
        `drop(channel, key)` took it out first. `on`: the turn a queued work was handed;
        its first call goes at once, on it."""
        lane = self._lane(channel)
        place = (time.time() if order is None else order, next(self._seq), key, agent)
        on_turn = on is not None and lane.use_turn(on)
        again = False
        while True:
            if self._stopped and turn is not Turn.CLOSE and not on_turn:
                raise Dropped(key)  # shutting down: left for the next start (`stop`)
            if not on_turn:
                # After a 429 it keeps its place, and its agent the turn.
                await self._acquire(lane, _Waiter(turn, *place, _future()), again=again)
            on_turn = False
            again = True
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
        agent: str | None = None,
        order: float | None = None,
    ) -> None:
        """Queue `work` in `channel` like a call of `send`, but holding no task while it
        waits: when its turn comes a task is started for it (`spawn`), handing it its turn;
        the call it sends with it (`send(..., on=turn)`) goes at once. A turn its work does
        not use passes on when the work ends. `drop(channel, key)` takes it out unstarted.
        Within its turn, `agent`'s work takes turns with other agents' (as in `send`)."""
        if self._stopped and turn is not Turn.CLOSE:
            return  # shutting down: left for the next start (`stop`)
        lane = self._lane(channel)
        place = (time.time() if order is None else order, next(self._seq), key, agent)
        lane.waiting.push(QueuedTurn(turn, *place, work, spawn))
        lane.grant()

    def drop(self, channel: str | None, key: str) -> None:
        """Take `key`'s waiting calls out of `channel`'s queue (they raise `Dropped`) and
        its queued work (never started)."""
        lane = self._lanes.get(channel) if channel is not None else None
        if lane is None:
            return
        for place in lane.waiting.take_key(key):
            if place.gone:
                continue
            if isinstance(place, _Waiter):
                place.granted.set_result(False)
            elif isinstance(place, QueuedTurn):
                place.dropped = True
        lane.grant()

    async def _acquire(self, lane: _Lane, waiter: _Waiter, *, again: bool) -> None:
        lane.waiting.push(waiter, again=again)
        lane.grant()
        try:
            granted = await waiter.granted
        except asyncio.CancelledError:
            if waiter.granted.done() and not waiter.granted.cancelled():
                if waiter.granted.result():
                    lane.release()  # granted as we were cancelled: pass the turn on
            else:
                waiter.granted.cancel()
                lane.waiting.forget(waiter)
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
        agent: str | None = None,
        order: float | None = None,
        on: QueuedTurn | None = None,
        **arguments: Any,
    ) -> AsyncSlackResponse:
        """`chat.postMessage` in `channel` when its turn comes (`Dropped` if dropped first;
        `agent`, `order`, `on`: see `ChannelPacing.send`)."""
        return await self.pacing.send(
            channel,
            turn,
            lambda: self.client.chat_postMessage(channel=channel, **arguments),
            key=key,
            agent=agent,
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
