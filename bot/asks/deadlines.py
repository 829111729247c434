"""Deadlines of asks: each ask's SLA ladder — a reminder that mentions the reviewers, an
escalation to a backup, then its expiry (bot/asks/escalation.py says each in the thread) —;
and for any ask, the moment its asker stops waiting (the relay's `expires_in`).

Expiry ends the ask as `ASK_ABORTED` "nobody answered"; it never approves anything. An asker that
stopped waiting (a hook killed at its timeout) has its ask withdrawn, so a later click is
refused as withdrawn instead of recording an answer nobody reads.
Timers are rebuilt from `created_at` after a restart, so a restart neither resets nor skips them.
"""

from __future__ import annotations

import asyncio
import logging

from bot.asks.escalation import Escalation, expiry_reason, spoken
from bot.asks.lifecycle import Asks
from bot.asks.live import LiveAsk
from bot.asks.observers import AskObserver
from bot.clock import Clock
from bot.review import ReviewPolicies, ReviewPolicy
from bot.sla import Step, still_due
from bot.slack.messages import AskMessages
from bot.store import Verdict
from bot.store.leases import Leases

__all__ = ["LAPSED", "Deadlines", "spoken"]

log = logging.getLogger(__name__)

# Why an ask whose asker stopped waiting ends (shown in Slack and told to the agent).
LAPSED = "the asking process stopped waiting for an answer"


class Deadlines(AskObserver):
    """Starts one timer per ask whose policy has an SLA ladder (a reminder, an escalation,
    an expiry), and per ask with an `expires_at`.

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
        self._policies = policies
        self._clock = clock
        self._steps = Escalation(asks, leases, clock, messages)
        self._timers: dict[str, asyncio.Task[None]] = {}
        self._acting: set[str] = set()  # timers past their sleep: taking a step or expiring
        self._closed = False

    def posted(self, live: LiveAsk) -> None:
        """Start the ask's timer, if it has deadlines (idempotent)."""
        record = live.record
        if self._closed or record.id in self._timers:
            return
        policy = self._policies.of(record)
        if record.expires_at is None and not policy.ladder(record.created_at):
            return
        timer = asyncio.create_task(self._run(record.id, policy), name=f"deadline {record.id}")
        self._timers[record.id] = timer
        timer.add_done_callback(lambda _: self._timers.pop(record.id, None))

    async def _run(self, ask_id: str, policy: ReviewPolicy) -> None:
        asks = self._asks
        try:
            live = asks.live(ask_id)
            if live is None:
                return
            record = live.record
            lapses = record.expires_at
            steps = still_due(
                policy.ladder(record.created_at),
                reminded_at=record.reminded_at,
                escalated_at=record.escalated_at,
            )
            for due in steps:
                if lapses is not None and lapses <= due.at:
                    break  # the asker is gone first: nobody would read what comes after
                await self._clock.sleep_until(due.at)
                if asks.live(ask_id) is None:
                    return  # settled while it waited
                self._acting.add(ask_id)
                if due.step is Step.REMIND:
                    await self._steps.remind(ask_id, policy, due.after)
                elif due.step is Step.ESCALATE:
                    await self._steps.escalate(ask_id, policy, due.after)
                else:
                    await self._expire(ask_id, due.after)
                    return
                self._acting.discard(ask_id)
                if self._closed:
                    return  # closed while it acted: the next start rebuilds the rest
            if lapses is not None:
                await self._clock.sleep_until(lapses)
                self._acting.add(ask_id)
                await asks.settle(ask_id, Verdict.WITHDRAWN, reason=LAPSED)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("deadline of ask %s failed", ask_id)
        finally:
            self._acting.discard(ask_id)

    async def _expire(self, ask_id: str, after: float) -> None:
        live = self._asks.live(ask_id)
        if live is None:
            return
        record = live.record
        # Settling is conditional across replicas: only the one whose settle ended it says so.
        if await self._asks.settle(ask_id, Verdict.EXPIRED, reason=expiry_reason(record, after)):
            await self._steps.expired(record, after)

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
        if timers:
            # `wait`, not `await timer`: a close cancelled meanwhile is cancelled itself, and
            # its cancellation does not reach (and cut short) a timer that is acting.
            await asyncio.wait([timer for _, timer in timers])
