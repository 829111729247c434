"""`AskNotifier`: wakes the waiters of an ask on this replica when any replica changes it.

`PostgresStore` sends `pg_notify(ASK_CHANNEL, ask_id)` inside each write's transaction, so
PostgreSQL delivers it at commit. Each replica keeps ONE dedicated connection (never a pooled
one: a pool would hand it to a query and lose the LISTEN) that listens on the channel and
sets the events of that ask's watches.

A notification is a hint to re-read the row, never the data itself, so a missed one costs
latency, not correctness: waiters re-read on a timer as their safety net. When the listening
connection drops, the notifier reconnects with backoff, LISTENs again, and only then wakes
every watch, since a change may have committed while nobody listened; a waiter that re-reads
after that wake-up cannot miss a later change. A connection that goes quiet is probed with
`SELECT 1`, so one lost without a word (a dead peer, a dropped NAT entry) is noticed too:
a probe unanswered within the connect timeout shuts the connection down and reconnects.

    async with notifier.watch(ask_id) as changes:  # watch first, then read: no gap
        while not (record := await store.get(ask_id)).settled:
            await changes.wait(within=RE_READ_S)
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import socket
from collections.abc import Iterator
from types import TracebackType
from typing import Protocol, Self

import psycopg
from psycopg import sql

from bot.store.postgres import ASK_CHANNEL, Connection
from bot.store.postgres_connect import CONNECT_TIMEOUT_S, PostgresStoreError, Target, connect

log = logging.getLogger(__name__)

APPLICATION_NAME = "slack-questions listener"


class Watch:
    """One waiter's view of one ask: woken when the ask may have changed."""

    def __init__(self, key: str) -> None:
        self.key = key
        self._woken = asyncio.Event()

    @property
    def woken(self) -> bool:
        """Whether a wake-up is waiting to be taken by `wait`."""
        return self._woken.is_set()

    async def wait(self, within: float | None = None) -> bool:
        """Until the ask may have changed, or `within` seconds pass; True if woken.

        Takes the wake-up: the next call waits for a new one.
        """
        try:
            async with asyncio.timeout(within):
                await self._woken.wait()
        except TimeoutError:
            return False
        self._woken.clear()
        return True

    def wake(self) -> None:
        """Make the current or next `wait` return True."""
        self._woken.set()


class Hearer(Protocol):
    """Told of every notification, beside the watches (e.g. the process's `Waiters`)."""

    def changed(self, ask_id: str) -> None:
        """The ask `ask_id` may have changed."""
        ...

    def reconnected(self) -> None:
        """Notifications may have been missed while the connection was down."""
        ...


class AskNotifier:
    """The replica's LISTEN connection and the watches it wakes. `await AskNotifier.open(url)`."""

    def __init__(
        self,
        url: str,
        *,
        channel: str = ASK_CHANNEL,
        connect_timeout: float = CONNECT_TIMEOUT_S,
        first_retry: float = 0.05,
        longest_retry: float = 5.0,
        probe_after: float = 30.0,
    ) -> None:
        self.target = Target(url)
        self.channel = channel
        self._connect_timeout = connect_timeout
        self._retry = (first_retry, longest_retry)
        self._probe_after = probe_after
        self._watches: dict[str, set[Watch]] = {}
        self._hearers: list[Hearer] = []
        self._task: asyncio.Task[None] | None = None
        self.reconnects = 0  # how often the connection was lost and made again

    @classmethod
    async def open(cls, url: str, *, channel: str = ASK_CHANNEL) -> AskNotifier:
        """A notifier already listening; `PostgresStoreError` says what to fix if it cannot."""
        notifier = cls(url, channel=channel)
        await notifier.start()
        return notifier

    async def start(self) -> None:
        """Connect and LISTEN, then keep listening in a background task until `close`."""
        if self._task is not None:
            raise RuntimeError("the notifier is already started")
        conn = await self._listen()
        self._task = asyncio.create_task(self._serve(conn), name="ask-notifier")

    async def close(self) -> None:
        """Stop listening and close the connection. Closing twice is fine."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    @contextlib.contextmanager
    def watch(self, key: str) -> Iterator[Watch]:
        """Watch the ask `key` for as long as the block runs.

        Start watching before reading the ask: a change committed after the read then
        always wakes the watch.
        """
        watch = Watch(key)
        self._watches.setdefault(key, set()).add(watch)
        try:
            yield watch
        finally:
            watches = self._watches[key]
            watches.discard(watch)
            if not watches:
                del self._watches[key]

    def hear(self, hearer: Hearer) -> None:
        """Tell `hearer` of every notification and reconnect from now on."""
        self._hearers.append(hearer)

    def watching(self) -> int:
        """How many watches are open (for health reports and tests)."""
        return sum(len(watches) for watches in self._watches.values())

    async def _serve(self, conn: Connection) -> None:
        try:
            while True:
                try:
                    await self._relay(conn)
                except (psycopg.Error, TimeoutError) as lost:
                    log.warning(
                        "listening for asks at %s stopped (%s); reconnecting",
                        self.target,
                        str(lost).strip() or type(lost).__name__,
                    )
                finally:
                    await _close_quietly(conn)
                conn = await self._reconnect()
                self.reconnects += 1
                # Changes committed while nobody listened sent no notification we heard.
                for watches in list(self._watches.values()):
                    for watch in watches:
                        watch.wake()
                for hearer in self._hearers:
                    hearer.reconnected()
        finally:
            await _close_quietly(conn)

    async def _relay(self, conn: Connection) -> None:
        """Wake the watches of each notified ask; probe the connection when it goes quiet."""
        while True:
            async for note in conn.notifies(timeout=self._probe_after):
                for watch in self._watches.get(note.payload, ()):
                    watch.wake()
                for hearer in self._hearers:
                    hearer.changed(note.payload)
            # Notifications that arrive during the probe wait in psycopg's backlog for the
            # next `notifies()`, so none is lost here.
            await self._probe(conn)

    async def _probe(self, conn: Connection) -> None:
        """`SELECT 1` within the time limit, or shut the connection down and raise."""
        probe = asyncio.create_task(conn.execute("SELECT 1"))
        silent = False
        try:
            await asyncio.wait({probe}, timeout=self._connect_timeout)
        finally:
            if not probe.done():
                # Not a cancel: psycopg would then ask the server to cancel the query and
                # wait up to ten seconds for the answer, over a link that carries nothing.
                # Shutting the socket down makes the probe fail at once.
                silent = True
                _shut_down(conn)
                await asyncio.wait({probe})
        if silent:
            with contextlib.suppress(psycopg.Error):
                probe.result()
            raise TimeoutError(f"no answer to a probe within {self._connect_timeout:g} s")
        probe.result()

    async def _reconnect(self) -> Connection:
        first, longest = self._retry
        delay = first
        while True:
            # Jitter: replicas that lost the server together do not return in lockstep.
            await asyncio.sleep(delay * random.uniform(0.5, 1.0))
            try:
                return await self._listen()
            except PostgresStoreError as error:
                log.warning("cannot listen for asks yet: %s", error)
            delay = min(delay * 2, longest)

    async def _listen(self) -> Connection:
        conn = await connect(
            self.target, application_name=APPLICATION_NAME, within=self._connect_timeout
        )
        try:
            await conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(self.channel)))
        except psycopg.Error as error:
            await _close_quietly(conn)
            raise PostgresStoreError(str(self.target), f"cannot LISTEN ({error})") from error
        except BaseException:
            await _close_quietly(conn)
            raise
        return conn


def _shut_down(conn: Connection) -> None:
    """End the connection's TCP stream both ways; the descriptor stays psycopg's to close."""
    with (
        contextlib.suppress(OSError, psycopg.Error),
        socket.socket(fileno=os.dup(conn.pgconn.socket)) as stream,
    ):
        stream.shutdown(socket.SHUT_RDWR)


async def _close_quietly(conn: Connection) -> None:
    with contextlib.suppress(psycopg.Error, OSError):
        await conn.close()
