"""The decision log's head, published: every `every` seconds (daily by default) one replica
records the chain's head (`AskStore.audit_publish`) and posts it to the audit channel
(SLACK_QUESTIONS_AUDIT_CHANNEL). A copy of the head outside the database is what catches a
cut tail: `python -m bot audit verify` checks the chain reaches the last recorded head, and
`--head SEQ:MAC` checks it against one read off the channel. Replicas take turns through one
lease held for the period, as retention does (bot/asks/retention.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from bot.clock import Clock
from bot.store import AskStore
from bot.store.audit import AuditLink
from bot.store.leases import LeaseKind, Leases
from bot.tasks import Tasks

log = logging.getLogger(__name__)

PUBLISH_EVERY_S = 86400.0  # daily
_LEASE_KEY = "audit-head"

Post = Callable[[str], Awaitable[None]]  # posts one text to the audit channel


def head_text(head: AuditLink) -> str:
    """The audit channel's message: what `audit verify --head` takes."""
    return (
        f"Decision log head: seq {head.seq}, mac {head.mac} (verify --head {head.seq}:{head.mac})"
    )


class HeadPublisher:
    """The publish timer of one process: `start()`, then `close()` at shutdown; each
    publication is a task tracked in `tasks`, drained on shutdown."""

    def __init__(
        self,
        store: AskStore,
        leases: Leases,
        clock: Clock,
        tasks: Tasks,
        post: Post,
        *,
        every: float = PUBLISH_EVERY_S,
    ) -> None:
        if every <= 0:
            raise ValueError(f"the audit head is published every period above 0, not {every}")
        self._store = store
        self._leases = leases
        self._clock = clock
        self._tasks = tasks
        self._post = post
        self._every = every
        self.runs = 0
        self._ran = asyncio.Condition()
        self._timer_task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start the timer; the first publication is one period after start."""
        self._timer_task = asyncio.get_running_loop().create_task(self._timer(), name="audit head")

    async def close(self) -> None:
        """Stop the timer (a publication in progress is left to the drain of `tasks`)."""
        task, self._timer_task = self._timer_task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def publish_once(self) -> AuditLink | None:
        """Record and post the head now, if this replica holds the period's lease; the head
        published, None if another replica publishes this period or the chain is empty."""
        if await self._leases.take(LeaseKind.PURGE, _LEASE_KEY, self._every) is None:
            return None
        # Recorded before it is posted: a head recorded but never posted still checks the
        # tail; one posted but not recorded would leave `verify` nothing to compare with.
        head = await self._store.audit_publish(self._clock.now())
        if head is not None:
            await self._post(head_text(head))
        return head

    async def ran(self, times: int = 1) -> None:
        """Wait until the timer has run `times` times since start."""
        async with self._ran:
            await self._ran.wait_for(lambda: self.runs >= times)

    async def _timer(self) -> None:
        moment = self._clock.now() + self._every
        while await self._tasks.wait_until(self._clock, moment):
            run = self._tasks.spawn(self._run(), name="audit head publication")
            if run is None:
                return
            await asyncio.wait({run})
            moment += self._every

    async def _run(self) -> None:
        try:
            await self.publish_once()
        except Exception:
            log.exception("audit: publishing the head failed; trying again in %s s", self._every)
        async with self._ran:
            self.runs += 1
            self._ran.notify_all()
