"""Retention: settled asks older than the retention leave the store, on a timer, once per
period across replicas.

Every `every` seconds (the first time `first_after` seconds after start) one replica purges
(`AskStore.purge`) every ask settled more than `keep_for` seconds ago, with its events and
what else names it. Replicas sharing a store take turns through one lease (`LeaseKind.PURGE`)
held for a whole period and never given back: the first to take it purges, the others find
it held until it lapses, so the store is purged once per period however many replicas run
(the holder keeps taking it while it lives; when it dies, another takes over at the next
lapse). Asks this process still holds in memory are left for a later run.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Collection

from bot.clock import Clock
from bot.store import AskStore
from bot.store.leases import LeaseKind, Leases
from bot.tasks import Tasks

log = logging.getLogger(__name__)

PURGE_EVERY_S = 3600.0  # hourly: a settled ask outlives its retention by at most an hour
FIRST_PURGE_AFTER_S = 60.0  # soon after start, once recovery and replay have run
_LEASE_KEY = "retention"


class Retention:
    """The purge timer of one process: `start()`, then `close()` at shutdown (the drain
    of `tasks` also stops it: between runs at once, a run in progress finishes)."""

    def __init__(
        self,
        store: AskStore,
        leases: Leases,
        clock: Clock,
        tasks: Tasks,
        *,
        keep_for: float,
        held: Callable[[], Collection[str]],
        every: float = PURGE_EVERY_S,
        first_after: float = FIRST_PURGE_AFTER_S,
    ) -> None:
        if keep_for <= 0 or every <= 0 or first_after < 0:
            raise ValueError(
                "retention needs keep_for and every above 0 and first_after of 0 or more, "
                f"not {keep_for}, {every} and {first_after}"
            )
        self._store = store
        self._leases = leases
        self._clock = clock
        self._tasks = tasks
        self._keep_for = keep_for
        self._held = held
        self._every = every
        self._first_after = first_after
        self.runs = 0  # timer runs done (purged, or left to the replica holding the lease)
        self._ran = asyncio.Condition()
        self._timer_task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start the timer. Each purge runs as a task tracked in `tasks` (the shutdown drain
        waits for one in progress, and `Tasks.idle` for one in flight); the timer between
        them is not one, so waiting for idle work never waits for the next hour."""
        self._timer_task = asyncio.get_running_loop().create_task(self._timer(), name="retention")

    async def close(self) -> None:
        """Stop the timer (a purge in progress is left to the drain of `tasks`)."""
        task, self._timer_task = self._timer_task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def purge_once(self) -> int | None:
        """Purge what has outlived the retention now, if this replica holds the period's
        lease: how many asks went, or None (another replica purges this period)."""
        lease = await self._leases.take(LeaseKind.PURGE, _LEASE_KEY, self._every)
        if lease is None:
            return None
        before = self._clock.now() - self._keep_for
        purged = await self._store.purge(before, keep=set(self._held()))
        log.info(
            "retention: purged %d settled ask(s) older than %s",
            purged,
            _duration(self._keep_for),
        )
        return purged

    async def ran(self, times: int = 1) -> None:
        """Wait until the timer has run `times` times since start."""
        async with self._ran:
            await self._ran.wait_for(lambda: self.runs >= times)

    async def _timer(self) -> None:
        moment = self._clock.now() + self._first_after
        while await self._tasks.wait_until(self._clock, moment):
            run = self._tasks.spawn(self._run(), name="retention purge")
            if run is None:
                return  # shutdown began
            # Cancelling the timer here leaves the run to finish (drained as tracked work).
            await asyncio.wait({run})
            moment += self._every

    async def _run(self) -> None:
        try:
            await self.purge_once()
        except Exception:
            # The next period tries again; the log has what to fix.
            log.exception("retention: the purge failed; trying again in %s", self._every)
        async with self._ran:
            self.runs += 1
            self._ran.notify_all()


def _duration(seconds: float) -> str:
    """90d, 12h, 30m or 45s: the retention as it is usually written."""
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{int(seconds // size)}{unit}"
    return f"{seconds:g}s"
