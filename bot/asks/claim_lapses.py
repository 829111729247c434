"""Claims running out: a claimed ask whose holder neither answered, released nor handed it on
within its policy's `claim_lapse` returns to its pool, with one line in its thread.

The lapse is a stored timer: `claimed_at` is on the record, so every replica holding the ask
(posted here, taken in hand after a restart or from another replica's sweep) counts down to
the same moment, and a restarted or surviving replica takes over the one a stopped replica
was running. It happens once across them: a lease lets one replica act at a time, and the
save is conditional on the claim it ends (same holder, same `claimed_at`), so a later
replica finds nothing left to do and says nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from typing import Final

from bot.asks.escalation import noun_of, spoken
from bot.asks.lifecycle import Asks
from bot.asks.live import LiveAsk
from bot.asks.observers import AskObserver
from bot.claims import lapsed_line, lapses_at, pool_of
from bot.clock import Clock
from bot.review import ReviewPolicies
from bot.slack.messages import AskMessages
from bot.slack.responders import mentions
from bot.store import AskEvent, AskRecord, EventKind
from bot.store.leases import LeaseKind, Leases

log = logging.getLogger(__name__)

# How long one replica holds the right to lapse a claim.
LAPSE_LEASE_S: Final = 300.0
# The saves after which a claim is held (and its timer must run).
_HOLDING: Final = frozenset({EventKind.CLAIMED, EventKind.REASSIGNED})

Claim = tuple[str, str, float]  # ask id, holder, claimed_at


class ClaimLapses(AskObserver):
    """One timer per claim held on an ask this process holds; each lapses its claim once
    across replicas. An observer of `asks`: a claim saved here, or an ask taken in hand
    claimed, starts its timer."""

    def __init__(
        self,
        asks: Asks,
        leases: Leases,
        policies: ReviewPolicies,
        clock: Clock,
        messages: AskMessages,
        *,
        responders: Sequence[str] | str = (),
    ) -> None:
        self._asks = asks
        self._leases = leases
        self._policies = policies
        self._clock = clock
        self._messages = messages
        self._responders = responders
        self._timers: dict[Claim, asyncio.Task[None]] = {}
        self._acting: set[Claim] = set()  # timers past their sleep: lapsing the claim
        self._closed = False

    def posted(self, live: LiveAsk) -> None:
        """Start the timer of the claim `live` holds, if any (idempotent)."""
        self._watch(live.record)

    def saved(self, record: AskRecord, event: AskEvent) -> None:
        """Start the timer of a claim just saved (claimed, or handed to someone)."""
        if event.kind in _HOLDING:
            self._watch(record)

    def _watch(self, record: AskRecord) -> None:
        policy = self._policies.of(record)
        at = lapses_at(record, policy)
        if self._closed or record.settled or at is None:
            return
        assert record.holder is not None
        assert record.claimed_at is not None
        claim = (record.id, record.holder, record.claimed_at)
        if claim in self._timers:
            return
        timer = asyncio.create_task(self._run(claim, at), name=f"claim lapse {record.id}")
        self._timers[claim] = timer
        timer.add_done_callback(lambda _: self._timers.pop(claim, None))

    async def _run(self, claim: Claim, at: float) -> None:
        try:
            await self._clock.sleep_until(at)
            if self._asks.live(claim[0]) is None:
                return  # settled while it waited
            self._acting.add(claim)
            await self.lapse(claim)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the claim lapse of ask %s failed", claim[0])
        finally:
            self._acting.discard(claim)

    async def lapse(self, claim: Claim) -> bool:
        """End `claim` (the ask back with its pool) and say so in the thread, unless it
        ended already (answered, released, handed on, lapsed by another replica). Whether
        this call lapsed it."""
        ask_id, holder, claimed_at = claim
        async with self._leases.hold(LeaseKind.LAPSE, ask_id, LAPSE_LEASE_S) as lease:
            live = self._asks.live(ask_id)
            if lease is None or live is None:
                return False
            policy = self._policies.of(live.record)
            after = spoken(policy.claim_lapse or 0.0)

            def unclaimed(record: AskRecord) -> AskRecord | None:
                if (record.holder, record.claimed_at) != (holder, claimed_at):
                    return None  # released, handed on or lapsed since: not this claim
                return record.model_copy(update={"holder": None, "claimed_at": None})

            saved = await self._asks.save_progress(
                live,
                EventKind.CLAIM_LAPSED,
                unclaimed,
                actor=holder,
                detail=f"after {after}",
                show=tuple(range(len(live.layout.parts))),
            )
            if saved is None:
                return False
            pool = mentions(pool_of(policy, self._responders))
            await self._messages.remind(saved, lapsed_line(holder, noun_of(saved), pool, after))
            return True

    @property
    def watching(self) -> int:
        """How many claim timers run."""
        return len(self._timers)

    async def finished(self) -> None:
        """Wait until every running timer has done all it had to do."""
        while self._timers:
            await asyncio.gather(*self._timers.values(), return_exceptions=True)

    async def close(self) -> None:
        """Stop every timer (they are rebuilt from the store after a restart); one already
        lapsing its claim finishes first."""
        self._closed = True
        timers = list(self._timers.items())
        for claim, timer in timers:
            if claim not in self._acting:
                timer.cancel()
        for _, timer in timers:
            with contextlib.suppress(asyncio.CancelledError):
                await timer
