"""The notifier wakes an ask's waiters when any replica commits a change to it, and wakes every
waiter to re-check after its LISTEN connection was lost and made again."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Iterator
from typing import Self
from urllib.parse import urlsplit

import psycopg
import pytest

from bot.outcomes import Verdict
from bot.store import AskEvent, AskRecord, AskState, EventKind
from bot.store.postgres import PostgresStore
from bot.store.postgres_connect import PostgresStoreError
from bot.store.postgres_notify import APPLICATION_NAME, AskNotifier
from provider import AskUserQuestionAnswer, AskUserQuestionAnswerItem, AskUserQuestionItem
from tests.conftest import PostgresServer
from tests.postgres_server import free_port

NAME = AskUserQuestionItem(id="name", question="Name the service")
WAKE_S = 10.0  # generous: a wake-up that comes at all comes in milliseconds


def ask(ask_id: str) -> AskRecord:
    return AskRecord(id=ask_id, questions=[NAME], created_at=1000.0)


def answered_by(ask_id: str, who: str) -> tuple[AskRecord, AskEvent]:
    record = ask(ask_id).model_copy(
        update={
            "state": AskState.ANSWERED,
            "verdict": Verdict.ANSWERED,
            "answer": AskUserQuestionAnswer(
                answers=[AskUserQuestionAnswerItem(id="name", custom=who)]
            ),
            "decided_by": who,
        }
    )
    return record, AskEvent(ask_id=ask_id, at=1010.0, kind=EventKind.ANSWERED, actor=who)


@pytest.fixture
async def store(postgres_url: str) -> AsyncIterator[PostgresStore]:
    """Replica B's store: it writes; the notifier under test is replica A's."""
    async with PostgresStore(postgres_url) as opened:
        for ask_id in ("a1", "a2", "a3"):
            await opened.add(ask(ask_id))
        yield opened


@pytest.fixture
async def notifier(postgres_url: str, store: PostgresStore) -> AsyncIterator[AskNotifier]:
    # Started after the asks were added: their `created` notifications went to nobody.
    async with AskNotifier(postgres_url, first_retry=0.01) as listening:
        yield listening
    assert listening.watching() == 0


def terminate_listener(url: str) -> list[tuple[object, ...]]:
    """Kill the notifier's connection from the server side, as a failover or restart would."""
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = %s",
            (APPLICATION_NAME,),
        ).fetchall()


class Failures(logging.Handler):
    """Counts the notifier's failed attempts to listen again, as an awaitable."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0
        self.changed = asyncio.Event()

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage().startswith("cannot listen for asks yet"):
            self.count += 1
            self.changed.set()

    async def at_least(self, count: int) -> None:
        while self.count < count:
            self.changed.clear()
            await self.changed.wait()


@pytest.fixture
def failures() -> Iterator[Failures]:
    handler = Failures()
    logger = logging.getLogger("bot.store.postgres_notify")
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)


# --- notifications -------------------------------------------------------------------------


async def test_a_settle_committed_on_another_replica_wakes_that_asks_watch_only(
    store: PostgresStore, notifier: AskNotifier
) -> None:
    with notifier.watch("a1") as a1, notifier.watch("a2") as a2:
        assert await store.settle(*answered_by("a1", "U_ALICE"))
        assert await a1.wait(WAKE_S) is True
        assert a2.woken is False


async def test_every_watch_of_one_ask_is_woken(store: PostgresStore, notifier: AskNotifier) -> None:
    with notifier.watch("a1") as first, notifier.watch("a1") as second:
        await store.save(ask("a1").model_copy(update={"message_ts": ["1.0"]}), posted("a1"))
        assert await first.wait(WAKE_S) is True
        assert await second.wait(WAKE_S) is True


async def test_a_settle_that_lost_notifies_nobody(
    store: PostgresStore, notifier: AskNotifier
) -> None:
    with notifier.watch("a1") as a1, notifier.watch("a2") as a2:
        assert await store.settle(*answered_by("a1", "U_ALICE"))
        assert await a1.wait(WAKE_S) is True
        assert await store.settle(*answered_by("a1", "U_BOB")) is False
        # Notifications arrive in commit order: once a2's has come, a lost one would have too.
        await store.save(ask("a2").model_copy(update={"message_ts": ["1.0"]}), posted("a2"))
        assert await a2.wait(WAKE_S) is True
        assert a1.woken is False


async def test_a_refused_click_logged_without_a_change_notifies_nobody(
    store: PostgresStore, notifier: AskNotifier
) -> None:
    with notifier.watch("a1") as a1, notifier.watch("a2") as a2:
        await store.log(AskEvent(ask_id="a1", at=1.0, kind=EventKind.REFUSED, actor="U_EVE"))
        await store.settle(*answered_by("a2", "U_ALICE"))
        assert await a2.wait(WAKE_S) is True
        assert a1.woken is False


async def test_a_watch_that_is_not_woken_times_out_false(notifier: AskNotifier) -> None:
    with notifier.watch("a1") as a1:
        assert await a1.wait(0.01) is False


async def test_a_wake_up_before_the_wait_is_kept_and_taken_once(
    store: PostgresStore, notifier: AskNotifier
) -> None:
    with notifier.watch("a1") as a1, notifier.watch("a3") as a3:
        await store.settle(*answered_by("a1", "U_ALICE"))
        await store.settle(*answered_by("a3", "U_ALICE"))
        assert await a3.wait(WAKE_S) is True  # so a1's earlier notification has come too
        assert a1.woken is True
        assert await a1.wait(0) is True
        assert a1.woken is False


# --- losing the connection -----------------------------------------------------------------


async def test_a_killed_listen_connection_reconnects_and_wakes_every_watch_to_recheck(
    postgres_url: str, store: PostgresStore, notifier: AskNotifier
) -> None:
    with notifier.watch("a1") as a1, notifier.watch("a2") as a2:
        assert terminate_listener(postgres_url) == [(True,)]
        assert await a1.wait(WAKE_S) is True
        assert await a2.wait(WAKE_S) is True
        assert notifier.reconnects == 1
        # Listening again: a later change still wakes its watch.
        await store.settle(*answered_by("a1", "U_ALICE"))
        assert await a1.wait(WAKE_S) is True
        assert a2.woken is False


async def test_the_notifier_retries_until_the_server_lets_it_back_in(
    postgres_server: PostgresServer,
    postgres_url: str,
    store: PostgresStore,
    failures: Failures,
) -> None:
    if not postgres_server.throwaway:
        pytest.skip("logs in as a role of its own, trusted only on the throwaway server")
    listener_url = postgres_url.replace("//postgres@", "//notifier_login@", 1)
    with psycopg.connect(postgres_server.url, autocommit=True) as admin:
        if not admin.execute("SELECT 1 FROM pg_roles WHERE rolname = 'notifier_login'").fetchone():
            admin.execute("CREATE ROLE notifier_login LOGIN")
        async with AskNotifier(listener_url, first_retry=0.01, longest_retry=0.05) as notifier:
            with notifier.watch("a1") as a1:
                admin.execute("ALTER ROLE notifier_login NOLOGIN")
                try:
                    terminate_listener(postgres_url)
                    await asyncio.wait_for(failures.at_least(2), WAKE_S)
                    assert a1.woken is False  # not listening yet: nothing to re-check against
                finally:
                    admin.execute("ALTER ROLE notifier_login LOGIN")
                assert await a1.wait(WAKE_S) is True
                assert notifier.reconnects == 1
                await store.settle(*answered_by("a1", "U_ALICE"))
                assert await a1.wait(WAKE_S) is True


async def test_a_notifier_that_cannot_connect_at_start_says_what_to_fix() -> None:
    port = free_port()
    with pytest.raises(PostgresStoreError) as failed:
        await AskNotifier.open(f"postgresql://ops@127.0.0.1:{port}/asks")
    assert failed.value.problem == (
        f"nothing accepts connections at 127.0.0.1:{port} (connection refused); start"
        " PostgreSQL there or fix the host and port in the URL"
    )


def posted(ask_id: str) -> AskEvent:
    return AskEvent(ask_id=ask_id, at=1001.0, kind=EventKind.POSTED)


class FreezableProxy:
    """A TCP relay to the server that can go silent on its open connections without closing
    them, as a dead peer or a dropped NAT entry does. New connections still get through."""

    def __init__(self, upstream_port: int) -> None:
        self._upstream_port = upstream_port
        self._frozen: list[asyncio.Event] = []
        self._closing = asyncio.Event()
        self._writers: list[asyncio.StreamWriter] = []
        self._relays: set[asyncio.Task[None]] = set()
        self._server: asyncio.Server | None = None
        self.port = 0

    async def __aenter__(self) -> Self:
        self._server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        self._closing.set()
        for writer in self._writers:
            writer.close()
        await asyncio.gather(*self._relays)
        await self._server.wait_closed()

    def freeze(self) -> None:
        """From now on, the connections open so far carry nothing either way."""
        for frozen in self._frozen:
            frozen.set()

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        relay = asyncio.current_task()
        assert relay is not None
        self._relays.add(relay)
        frozen = asyncio.Event()
        self._frozen.append(frozen)
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self._upstream_port)
        self._writers += [writer, up_writer]
        try:
            await asyncio.gather(
                self._pipe(reader, up_writer, frozen), self._pipe(up_reader, writer, frozen)
            )
        except OSError:
            pass  # one side closed mid-write: the relay is over
        finally:
            writer.close()
            up_writer.close()

    async def _pipe(
        self, source: asyncio.StreamReader, sink: asyncio.StreamWriter, frozen: asyncio.Event
    ) -> None:
        while data := await source.read(65536):
            if frozen.is_set():
                await self._closing.wait()  # silent: hold the connection, pass nothing on
                return
            sink.write(data)
            await sink.drain()


async def test_a_listen_connection_gone_silent_is_found_by_the_probe_and_replaced(
    postgres_url: str, store: PostgresStore
) -> None:
    parts = urlsplit(postgres_url)
    assert parts.port is not None
    async with FreezableProxy(parts.port) as proxy:
        via_proxy = parts._replace(netloc=f"{parts.username}@127.0.0.1:{proxy.port}").geturl()
        async with AskNotifier(
            via_proxy, first_retry=0.01, probe_after=0.05, connect_timeout=0.5
        ) as notifier:
            with notifier.watch("a1") as a1:
                proxy.freeze()
                assert await a1.wait(WAKE_S) is True  # probe timed out, reconnected
                assert notifier.reconnects == 1
                await store.settle(*answered_by("a1", "U_ALICE"))
                assert await a1.wait(WAKE_S) is True
