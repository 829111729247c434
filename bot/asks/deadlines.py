"""Deadlines of asks: a plan review's reminder that mentions the reviewers, then its expiry;
and for any ask, the moment its asker stops waiting (the relay's `expires_in`).

Expiry ends the ask as `ASK_ABORTED` with a reason; it never approves anything. An asker that
stopped waiting (a hook killed at its timeout) has its ask withdrawn, so a later click is
refused as withdrawn instead of recording an answer nobody reads.
Timers are rebuilt from `created_at` after a restart, so a restart neither resets nor skips them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from bot.asks.lifecycle import Asks
from bot.asks.live import LiveAsk
from bot.asks.observers import AskObserver
from bot.clock import Clock
from bot.review import ReviewPolicies, ReviewPolicy
from bot.slack.messages import AskMessages
from bot.slack.responders import mentions
from bot.store import EventKind, Verdict
from bot.store.leases import LeaseKind, Leases

log = logging.getLogger(__name__)

# How long one replica holds the right to post a review's reminder.
REMIND_LEASE_S = 300.0


def spoken(seconds: float) -> str:
    """A duration as people say it: 90 s, 15 min, 2 h, 1 d."""
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{int(seconds // size)} {unit}"
    return f"{seconds:g} s"


# Why an ask whose asker stopped waiting ends (shown in Slack and told to the agent).
LAPSED = "the asking process stopped waiting for an answer"


class Deadlines(AskObserver):
    """Starts one timer per plan review whose policy has a reminder or an expiry, and per ask
    with an `expires_at`.

    An observer of `asks`: each timer starts when its ask is posted (or taken in hand posted).
    """

    def __init__(
        self,
        asks: Asks,
        leases: Leases,
        policies: ReviewPolicies,
        clock: Clock,
        messages: AskMessages,
    ) -> None:
        self._asks = asks
        self._leases = leases
        self._policies = policies
        self._clock = clock
        self._messages = messages
        self._timers: dict[str, asyncio.Task[None]] = {}
        self._acting: set[str] = set()  # timers past their sleep: reminding or expiring
        self._closed = False

    def posted(self, live: LiveAsk) -> None:
        """Start the ask's timer, if it has deadlines (idempotent)."""
        record = live.record
        if self._closed or record.id in self._timers:
            return
        policy = self._policies.of(record) if live.layout.plan_review else None
        if record.expires_at is None and (
            policy is None or (policy.remind_after is None and policy.expire_after is None)
        ):
            return
        timer = asyncio.create_task(self._run(record.id, policy), name=f"deadline {record.id}")
        self._timers[record.id] = timer
        timer.add_done_callback(lambda _: self._timers.pop(record.id, None))

    async def _run(self, ask_id: str, policy: ReviewPolicy | None) -> None:
        asks = self._asks
        try:
            live = asks.live(ask_id)
            if live is None:
                return
            created, lapses = live.record.created_at, live.record.expires_at
            expires = None
            if policy is not None and policy.expire_after is not None:
                expires = created + policy.expire_after
            if policy is not None and policy.remind_after is not None:
                remind_at = created + policy.remind_after
                if live.record.reminded_at is None and (lapses is None or remind_at < lapses):
                    await self._clock.sleep_until(remind_at)
                    self._acting.add(ask_id)
                    await self._remind(ask_id, policy, policy.remind_after)
                    self._acting.discard(ask_id)
            if lapses is not None and (expires is None or lapses < expires):
                # The asker is gone first: nobody would read a decision made after this.
                await self._clock.sleep_until(lapses)
                self._acting.add(ask_id)
                await asks.settle(ask_id, Verdict.WITHDRAWN, reason=LAPSED)
            elif policy is not None and expires is not None and policy.expire_after is not None:
                await self._clock.sleep_until(expires)
                self._acting.add(ask_id)
                reason = f"the review expired after {spoken(policy.expire_after)} without approval"
                await asks.settle(ask_id, Verdict.EXPIRED, reason=reason)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("deadline of ask %s failed", ask_id)
        finally:
            self._acting.discard(ask_id)

    async def _remind(self, ask_id: str, policy: ReviewPolicy, after: float) -> None:
        live = self._asks.live(ask_id)
        if live is None:
            return
        # Every replica holding the ask runs this timer: the lease lets one remind at a time,
        # and the stored record (`reminded_at`) tells a later one it was done.
        async with self._leases.hold(LeaseKind.REMIND, ask_id, REMIND_LEASE_S) as lease:
            if lease is not None:
                await self._remind_once(live, policy, after)

    async def _remind_once(self, live: LiveAsk, policy: ReviewPolicy, after: float) -> None:
        asks, ask_id = self._asks, live.record.id
        stored = await asks.stored(ask_id)
        if stored is None or stored.settled or stored.reminded_at is not None:
            return
        who = mentions(policy.reviewers)
        text = f"{who + ': t' if who else 'T'}his plan has waited {spoken(after)} for review."
        if not await self._messages.remind(live.record, text):
            return
        # Read again after the post: the ask may have moved on (an approval, a decision).
        now_live = asks.live(ask_id)
        if now_live is None:
            return
        now = self._clock.now()
        await asks.save_progress(
            now_live,
            EventKind.REMINDED,
            lambda record: record.model_copy(update={"reminded_at": now}),
            detail=text,
        )

    @property
    def watching(self) -> int:
        """How many timers run."""
        return len(self._timers)

    async def finished(self) -> None:
        """Wait until every running timer has done all it had to do."""
        while self._timers:
            await asyncio.gather(*self._timers.values(), return_exceptions=True)

    async def close(self) -> None:
        """Stop every timer (they are rebuilt from the store after a restart); one already
        reminding or expiring finishes first, so no decision is cut in half."""
        self._closed = True
        timers = list(self._timers.items())
        for ask_id, timer in timers:
            if ask_id not in self._acting:
                timer.cancel()
        for _, timer in timers:
            with contextlib.suppress(asyncio.CancelledError):
                await timer
