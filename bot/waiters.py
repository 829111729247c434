"""`Waiters`: everyone in this process waiting for an ask to end, keyed by ask id.

In-process `ask()` and the relay's held-open `GET ?wait=` wait here alike. Three things wake
a waiter, from fastest to slowest:
- a settle in this process hands every waiter the settled record (no read at all);
- another replica's settle reaches us as a notification (`changed`, from `AskNotifier` on
  PostgreSQL), and the waiter re-reads the ask;
- a periodic re-read, the safety net: a missed notification costs latency, never an answer.
When the notification stream was interrupted (`reconnected`), every waiter re-reads, since
a change may have committed while nobody listened.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager

from .store import AskRecord

# The safety net: how often a waiter re-reads its ask when nothing woke it.
RE_READ_S = 5.0

Read = Callable[[str], Awaitable[AskRecord | None]]


class _Waiter:
    """One waiter: woken with the settled record, or told to re-read."""

    def __init__(self) -> None:
        self.record: AskRecord | None = None
        self.woken = asyncio.Event()


class Waiters:
    """The keyed waiters of one process (see the module docstring)."""

    def __init__(self, read: Read, *, re_read_s: float = RE_READ_S) -> None:
        self._read = read
        self.re_read_s = re_read_s
        self._by_key: dict[str, set[_Waiter]] = {}

    async def wait(self, ask_id: str) -> AskRecord:
        """The ask once settled (at once if it already is). `KeyError` for an unknown id.

        Cancel it (or wrap it in a timeout) to stop waiting."""
        with self._waiter(ask_id) as waiter:  # registered before the read: no gap
            while True:
                # Cleared before the read: a wake-up during the read is kept, not lost.
                waiter.woken.clear()
                record = waiter.record or await self._read(ask_id)
                if record is None:
                    raise KeyError(ask_id)
                if record.settled:
                    return record
                try:
                    async with asyncio.timeout(self.re_read_s):
                        await waiter.woken.wait()
                except TimeoutError:
                    pass

    def settled(self, record: AskRecord) -> None:
        """This process settled `record` (or read it settled): hand it to its waiters."""
        for waiter in self._by_key.get(record.id, ()):
            waiter.record = record
            waiter.woken.set()

    def changed(self, ask_id: str) -> None:
        """The ask may have changed elsewhere (a notification): its waiters re-read."""
        for waiter in self._by_key.get(ask_id, ()):
            waiter.woken.set()

    def reconnected(self) -> None:
        """Notifications may have been missed: every waiter re-reads."""
        for waiters in self._by_key.values():
            for waiter in waiters:
                waiter.woken.set()

    def waiting(self) -> int:
        """How many waiters there are (for health reports and tests)."""
        return sum(len(waiters) for waiters in self._by_key.values())

    @contextmanager
    def _waiter(self, ask_id: str) -> Iterator[_Waiter]:
        waiter = _Waiter()
        self._by_key.setdefault(ask_id, set()).add(waiter)
        try:
            yield waiter
        finally:
            waiters = self._by_key[ask_id]
            waiters.discard(waiter)
            if not waiters:
                del self._by_key[ask_id]
