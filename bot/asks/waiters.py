"""`Waiters`: everyone in this process waiting for an ask to end, keyed by ask id.

In-process `ask()` and the relay's held-open `GET ?wait=` wait here alike. A waiter is one
future, made when someone starts waiting and dropped when they stop: a pending ask that
nobody waits for costs nothing here, and waking one is setting its future. Three things
wake a waiter, from fastest to slowest:
- a settle in this process hands every waiter the settled record (no read at all);
- another replica's settle reaches us as a notification (`changed`, from `AskNotifier` on
  PostgreSQL), and the waiter re-reads the ask;
- a periodic re-read, the safety net: a missed notification costs latency, never an answer.
When the notification stream was interrupted (`reconnected`), every waiter re-reads, since
a change may have committed while nobody listened.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from bot.store import AskRecord

# The safety net: how often a waiter re-reads its ask when nothing woke it.
RE_READ_S = 5.0

Read = Callable[[str], Awaitable[AskRecord | None]]
# Resolved with the settled record, or with None: read the ask again.
Wake = asyncio.Future[AskRecord | None]


class Waiters:
    """The keyed waiters of one process (see the module docstring)."""

    def __init__(self, read: Read, *, re_read_s: float = RE_READ_S) -> None:
        self._read = read
        self.re_read_s = re_read_s
        self._by_key: dict[str, list[Wake]] = {}

    async def wait(self, ask_id: str, *, held: bool = False) -> AskRecord:
        """The ask once settled (at once if it already is). `KeyError` for an unknown id.

        `held`: the ask is open in this process, the only one that settles it, so nothing
        is read and no timer runs: its settle hands the record over. (Told to re-read, by
        `changed`, the waiter reads from then on.) Cancel it, or wrap it in a timeout, to
        stop waiting."""
        read = not held
        while True:
            # Registered before the read: a wake-up during the read is kept, not lost.
            woken = self._enter(ask_id)
            try:
                if not read:
                    handed = await woken
                else:
                    record = await self._read(ask_id)
                    if record is None:
                        raise KeyError(ask_id)
                    if record.settled:
                        return record
                    del record  # not kept while waiting: thousands may wait
                    try:
                        async with asyncio.timeout(self.re_read_s):
                            handed = await woken
                    except TimeoutError:
                        handed = None
            finally:
                self._leave(ask_id, woken)
            if handed is not None:
                return handed
            read = True

    def settled(self, record: AskRecord) -> None:
        """This process settled `record` (or read it settled): hand it to its waiters."""
        for woken in self._by_key.get(record.id, ()):
            if not woken.done():
                woken.set_result(record)

    def changed(self, ask_id: str) -> None:
        """The ask may have changed elsewhere (a notification): its waiters re-read."""
        for woken in self._by_key.get(ask_id, ()):
            if not woken.done():
                woken.set_result(None)

    def reconnected(self) -> None:
        """Notifications may have been missed: every waiter re-reads."""
        for ask_id in list(self._by_key):
            self.changed(ask_id)

    def waiting(self, ask_id: str | None = None) -> int:
        """How many waiters there are, on `ask_id` or on any ask (for reports and tests)."""
        if ask_id is not None:
            return len(self._by_key.get(ask_id, ()))
        return sum(len(waiters) for waiters in self._by_key.values())

    def _enter(self, ask_id: str) -> Wake:
        woken: Wake = asyncio.get_running_loop().create_future()
        waiters = self._by_key.get(ask_id)
        if waiters is None:
            self._by_key[ask_id] = [woken]
        else:
            waiters.append(woken)
        return woken

    def _leave(self, ask_id: str, woken: Wake) -> None:
        waiters = self._by_key[ask_id]
        waiters.remove(woken)
        if not waiters:
            del self._by_key[ask_id]
