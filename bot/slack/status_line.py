"""Slack's own "is waiting…" line under a thread while an ask waits for people.

`assistant.threads.setStatus` shows "<app name> <status>" under a thread. It accepts the
`chat:write` scope since 2026-03 (docs.slack.dev changelog "Set status method scope update"),
so a channel app can use it without the assistant view. Slack removes the status two minutes
after it was set, and as soon as the app replies in the thread; an empty status clears it.
So the line is set after each post in the thread, renewed before the two minutes are up, and
cleared when the last ask waiting in the thread settles.

Every top-level ask is a thread of its own, so this holds no task per thread: one writer
sends the changes in the order they were made, and one renewer re-sends the line of the
thread whose time is up. Only the latest wanted line of a thread matters, so changes not yet
sent coalesce (a set then a clear sends only the clear), and a thread never has two calls in
flight, so a clear is never overtaken by the set before it.

It is a courtesy: a failure is logged once per thread and never touches the ask.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict
from typing import Final

from bot.clock import Clock
from bot.slack.api import SlackCallFailed, SlackClient
from bot.store import ThreadKey

log = logging.getLogger(__name__)

SLACK_STATUS_SECONDS: Final = 120.0
"""setStatus: "A two minute timeout applies, which will cause the status to be removed"."""
RENEW_EVERY_SECONDS: Final = 90.0
"""Renewed well inside Slack's two minutes, leaving room for a slow call."""
CLOSE_GRACE_SECONDS: Final = 5.0
"""How long `close()` lets the writer send what is left before it gives up."""


class _Thread:
    """The asks waiting in one thread, oldest first (the newest's status is shown), and
    when its line is to be sent again. One ask alone (every top-level ask's own thread) is
    kept as (ask id, status), 0.1 KiB less per pending ask than a dict; a dict once there
    are more."""

    __slots__ = ("_asks", "due")

    def __init__(self, due: float) -> None:
        self._asks: tuple[str, str] | dict[str, str] | None = None
        self.due = due

    def wait(self, ask_id: str, status: str) -> None:
        """`ask_id` waits here, the newest now (again, if it waited already)."""
        asks = self._asks
        if asks is None or (isinstance(asks, tuple) and asks[0] == ask_id):
            self._asks = (ask_id, status)
        elif isinstance(asks, tuple):
            self._asks = {asks[0]: asks[1], ask_id: status}
        else:
            asks.pop(ask_id, None)
            asks[ask_id] = status

    def leave(self, ask_id: str) -> bool:
        """`ask_id` waits here no more; False if it did not."""
        asks = self._asks
        if isinstance(asks, tuple):
            if asks[0] != ask_id:
                return False
            self._asks = None
            return True
        if asks is None or asks.pop(ask_id, None) is None:
            return False
        if len(asks) == 1:
            self._asks = next(iter(asks.items()))
        return True

    @property
    def empty(self) -> bool:
        """Whether no ask waits here."""
        return self._asks is None

    @property
    def line(self) -> str:
        """The newest waiting ask's status."""
        asks = self._asks
        assert asks is not None, "an empty thread is dropped, never shown"
        return asks[1] if isinstance(asks, tuple) else next(reversed(asks.values()))


class ThreadStatuses:
    """The status line of every thread where an ask waits.

    `waiting`, `posted` and `settled` record what the thread should show and return at once;
    the writer sends it. `sent()` waits until everything recorded has been sent."""

    def __init__(
        self, client: SlackClient, clock: Clock, *, renew_every: float = RENEW_EVERY_SECONDS
    ) -> None:
        self._client = client
        self._clock = clock
        self._renew_every = renew_every
        self._threads: OrderedDict[ThreadKey, _Thread] = OrderedDict()
        """Threads with a waiting ask, in the order their line is due again."""
        self._unsent: OrderedDict[ThreadKey, None] = OrderedDict()
        """Threads whose wanted line is not sent yet, oldest change first."""
        self._failing: set[ThreadKey] = set()
        """Threads whose last call failed (logged once, until one succeeds or it clears)."""
        self._writer: asyncio.Task[None] | None = None
        self._renewer: asyncio.Task[None] | None = None
        self._closed = False

    def waiting(self, ask_id: str, channel: str, thread_ts: str, status: str) -> None:
        """Ask `ask_id` waits in the thread: show `status` and keep it shown."""
        if self._closed:
            return
        key = (channel, thread_ts)
        thread = self._threads.get(key)
        if thread is None:
            thread = self._threads[key] = _Thread(self._clock.now() + self._renew_every)
        thread.wait(ask_id, status)
        self._change(key)
        if self._renewer is None or self._renewer.done() or self._renewer.cancelling():
            self._renewer = asyncio.create_task(self._renew(), name="thread status renewer")

    def posted(self, channel: str, thread_ts: str) -> None:
        """The app posted in the thread, which clears Slack's status: show it again."""
        if not self._closed and (channel, thread_ts) in self._threads:
            self._change((channel, thread_ts))

    def settled(self, ask_id: str, channel: str, thread_ts: str) -> None:
        """Ask `ask_id` no longer waits: show the next waiting ask's status, or clear it."""
        key = (channel, thread_ts)
        thread = self._threads.get(key)
        if self._closed or thread is None or not thread.leave(ask_id):
            return
        if thread.empty:
            del self._threads[key]
            if not self._threads and self._renewer is not None:
                self._renewer.cancel()  # nothing left to renew: no sleeper left behind
        self._change(key)

    def shown(self, channel: str, thread_ts: str) -> str | None:
        """The status this keeps under the thread, if any."""
        thread = self._threads.get((channel, thread_ts))
        return thread.line if thread is not None else None

    async def sent(self) -> None:
        """Wait until every change recorded so far (and any made meanwhile) was sent."""
        while self._writer is not None and not self._writer.done():
            await asyncio.wait({self._writer})

    async def close(self, grace: float = CLOSE_GRACE_SECONDS) -> None:
        """Send what is left (up to `grace` seconds), then stop renewing (Slack lets the
        lines lapse within two minutes; pending asks keep waiting in the store, and recovery
        shows their line again)."""
        self._closed = True
        await _cancel(self._renewer)
        if self._writer is not None and not self._writer.done():
            await asyncio.wait({self._writer}, timeout=grace)
            await _cancel(self._writer)
        self._threads.clear()
        self._unsent.clear()

    def _change(self, key: ThreadKey) -> None:
        # A thread already waiting to be sent keeps its place: the writer sends its latest line.
        self._unsent.setdefault(key, None)
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write(), name="thread status writer")

    async def _write(self) -> None:
        while self._unsent:
            key, _ = self._unsent.popitem(last=False)
            thread = self._threads.get(key)
            if thread is not None:
                # Slack's two minutes count from this call.
                thread.due = self._clock.now() + self._renew_every
                self._threads.move_to_end(key)
            await self._set(key, thread.line if thread is not None else "")

    async def _renew(self) -> None:
        while self._threads:
            key, thread = next(iter(self._threads.items()))
            now = self._clock.now()
            if thread.due > now:
                await self._clock.sleep_until(thread.due)
                continue
            # Due again later even if the writer is slow to reach it, so this loop moves on.
            thread.due = now + self._renew_every
            self._threads.move_to_end(key)
            self._change(key)

    async def _set(self, key: ThreadKey, status: str) -> None:
        channel, thread_ts = key
        try:
            await self._client.assistant_threads_setStatus(
                channel_id=channel, thread_ts=thread_ts, status=status
            )
        except Exception as error:  # the one writer must outlive any failure
            if key not in self._failing:
                self._failing.add(key)
                why = error.error if isinstance(error, SlackCallFailed) else type(error).__name__
                log.warning(
                    "Slack did not show the thread status in %s/%s (assistant.threads."
                    "setStatus: %s); asks there are unaffected",
                    channel,
                    thread_ts,
                    why,
                )
        else:
            self._failing.discard(key)
        if key not in self._threads:
            self._failing.discard(key)  # cleared: a thread waited in again starts afresh


async def _cancel(task: asyncio.Task[None] | None) -> None:
    if task is None or task.done():
        return
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
