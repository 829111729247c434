"""Slack's own "is waiting…" line under a thread while an ask there waits for people.

`assistant.threads.setStatus` shows "<app name> <status>" under a thread. It accepts the
`chat:write` scope since 2026-03 (docs.slack.dev changelog "Set status method scope update"),
so a channel app can use it without the assistant view. Slack removes the status two minutes
after it was set, and as soon as the app replies in the thread; an empty status clears it.
So the line is set after each post in the thread, renewed before the two minutes are up, and
cleared when the last ask waiting in the thread settles.

It is a courtesy: a failure is logged once per thread and never touches the ask.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field
from typing import Final

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from .clock import Clock

log = logging.getLogger(__name__)

SLACK_STATUS_SECONDS: Final = 120.0
"""setStatus: "A two minute timeout applies, which will cause the status to be removed"."""
RENEW_EVERY_SECONDS: Final = 90.0
"""Renewed well inside Slack's two minutes, leaving room for a slow call."""

ThreadKey = tuple[str, str]


@dataclass
class _Thread:
    waiting: dict[str, str] = field(default_factory=dict)
    """Ask id → its status text, oldest first; the newest is shown."""
    renewer: asyncio.Task[None] | None = None
    failed: bool = False


class ThreadStatuses:
    """The status line of every thread where an ask waits."""

    def __init__(
        self, client: AsyncWebClient, clock: Clock, *, renew_every: float = RENEW_EVERY_SECONDS
    ) -> None:
        self._client = client
        self._clock = clock
        self._renew_every = renew_every
        self._threads: dict[ThreadKey, _Thread] = {}
        # One change at a time, so Slack receives them in the order they were made (a
        # clear never overtaken by the set before it).
        self._lock = asyncio.Lock()

    async def waiting(self, ask_id: str, channel: str, thread_ts: str, status: str) -> None:
        """Ask `ask_id` waits in the thread: show `status` and keep it shown."""
        async with self._lock:
            await self._waiting(ask_id, (channel, thread_ts), status)

    async def _waiting(self, ask_id: str, key: ThreadKey, status: str) -> None:
        channel, thread_ts = key
        thread = self._threads.setdefault(key, _Thread())
        thread.waiting.pop(ask_id, None)
        thread.waiting[ask_id] = status
        await self._set(key, status)
        if thread.renewer is None or thread.renewer.done():
            thread.renewer = asyncio.create_task(
                self._renew(key), name=f"thread status {channel}/{thread_ts}"
            )

    async def posted(self, channel: str, thread_ts: str) -> None:
        """The app posted in the thread, which clears Slack's status: show it again."""
        async with self._lock:
            thread = self._threads.get((channel, thread_ts))
            if thread is not None and thread.waiting:
                await self._set((channel, thread_ts), next(reversed(thread.waiting.values())))

    async def settled(self, ask_id: str, channel: str, thread_ts: str) -> None:
        """Ask `ask_id` no longer waits: show the next waiting ask's status, or clear it."""
        async with self._lock:
            await self._settled(ask_id, (channel, thread_ts))

    async def _settled(self, ask_id: str, key: ThreadKey) -> None:
        thread = self._threads.get(key)
        if thread is None or thread.waiting.pop(ask_id, None) is None:
            return
        if thread.waiting:
            await self._set(key, next(reversed(thread.waiting.values())))
            return
        del self._threads[key]
        await _cancel(thread.renewer)
        await self._set(key, "", thread)

    def shown(self, channel: str, thread_ts: str) -> str | None:
        """The status this keeps under the thread, if any."""
        thread = self._threads.get((channel, thread_ts))
        return next(reversed(thread.waiting.values())) if thread and thread.waiting else None

    async def close(self) -> None:
        """Stop renewing (Slack lets the lines lapse within two minutes; pending asks keep
        waiting in the store, and recovery shows their line again)."""
        threads, self._threads = self._threads, {}
        for thread in threads.values():
            await _cancel(thread.renewer)

    async def _renew(self, key: ThreadKey) -> None:
        while True:
            await self._clock.sleep_until(self._clock.now() + self._renew_every)
            async with self._lock:
                thread = self._threads.get(key)
                if thread is None or not thread.waiting:
                    return
                await self._set(key, next(reversed(thread.waiting.values())))

    async def _set(self, key: ThreadKey, status: str, thread: _Thread | None = None) -> None:
        channel, thread_ts = key
        thread = thread or self._threads.get(key)
        try:
            await self._client.assistant_threads_setStatus(
                channel_id=channel, thread_ts=thread_ts, status=status
            )
        except (SlackApiError, OSError, TimeoutError) as error:
            if thread is not None and not thread.failed:
                thread.failed = True
                why = (
                    error.response.get("error")
                    if isinstance(error, SlackApiError)
                    else type(error).__name__
                )
                log.warning(
                    "Slack did not show the thread status in %s/%s (assistant.threads."
                    "setStatus: %s); asks there are unaffected",
                    channel,
                    thread_ts,
                    why,
                )
        else:
            if thread is not None:
                thread.failed = False


async def _cancel(task: asyncio.Task[None] | None) -> None:
    if task is None or task.done():
        return
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
