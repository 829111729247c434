"""What only the PostgreSQL store promises: replicas sharing one database, clear start-up errors.

Each "replica" here is a `PostgresStore` with its own pool, as another process would have.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Iterator
from urllib.parse import urlsplit

import psycopg
import pytest

from bot.outcomes import Verdict
from bot.store import AskEvent, AskRecord, AskState, EventKind, ThreadRef
from bot.store.postgres import SCHEMA_VERSION, PostgresStore, migrate
from bot.store.postgres_connect import PostgresStoreError, Target
from provider import AskUserQuestionAnswer, AskUserQuestionAnswerItem, AskUserQuestionItem
from tests.conftest import PostgresServer
from tests.postgres_server import free_port

NAME = AskUserQuestionItem(id="name", question="Name the service")


def ask(ask_id: str, **fields: object) -> AskRecord:
    return AskRecord.model_validate(
        {"id": ask_id, "questions": [NAME], "created_at": 1000.0, **fields}
    )


def answered_by(ask_id: str, who: str) -> tuple[AskRecord, AskEvent]:
    record = ask(
        ask_id,
        state=AskState.ANSWERED,
        verdict=Verdict.ANSWERED,
        answer=AskUserQuestionAnswer(answers=[AskUserQuestionAnswerItem(id="name", custom=who)]),
        decided_by=who,
    )
    return record, AskEvent(ask_id=ask_id, at=1010.0, kind=EventKind.ANSWERED, actor=who)


@pytest.fixture
async def replicas(postgres_url: str) -> AsyncIterator[tuple[PostgresStore, PostgresStore]]:
    async with PostgresStore(postgres_url) as a, PostgresStore(postgres_url) as b:
        yield a, b


def rows(url: str, query: str) -> list[tuple[object, ...]]:
    """What a plain connection (another process) reads."""
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute(query.encode()).fetchall()


def server_address(postgres_server: PostgresServer) -> str:
    return urlsplit(postgres_server.url).netloc.rsplit("@", 1)[-1]


# --- migrations ----------------------------------------------------------------------------


async def test_two_replicas_starting_at_once_on_an_empty_database_migrate_it_once(
    postgres_url: str,
) -> None:
    first, second = await asyncio.gather(
        PostgresStore.open(postgres_url), PostgresStore.open(postgres_url)
    )
    try:
        assert rows(postgres_url, "SELECT version FROM schema_migrations ORDER BY version") == [
            (1,),
            (2,),
            (3,),
        ]
        await first.add(ask("a1"))
        assert await second.get("a1") == ask("a1")
    finally:
        await first.close()
        await second.close()


async def test_of_two_racing_migrations_one_runs_every_step_and_the_other_none(
    postgres_url: str,
) -> None:
    target = Target(postgres_url)
    one = await psycopg.AsyncConnection.connect(postgres_url, autocommit=True)
    two = await psycopg.AsyncConnection.connect(postgres_url, autocommit=True)
    async with one, two:
        ran = await asyncio.gather(migrate(one, target), migrate(two, target))
    assert sorted(ran) == [0, SCHEMA_VERSION]


async def test_reopening_a_migrated_database_runs_no_step_and_keeps_the_asks(
    postgres_url: str,
) -> None:
    async with PostgresStore(postgres_url) as store:
        await store.add(ask("a1"))
    async with PostgresStore(postgres_url) as store:
        assert await store.get("a1") == ask("a1")
    assert rows(postgres_url, "SELECT version FROM schema_migrations ORDER BY version") == [
        (1,),
        (2,),
        (3,),
    ]


async def test_a_database_with_a_newer_schema_is_refused_naming_both_versions(
    postgres_url: str,
) -> None:
    async with PostgresStore(postgres_url):
        pass
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("INSERT INTO schema_migrations (version) VALUES (4)")
    with pytest.raises(PostgresStoreError) as refused:
        await PostgresStore.open(postgres_url)
    assert refused.value.problem == (
        "its schema version 4 is newer than this code knows (3); run a newer slack-questions"
    )


@pytest.mark.parametrize(
    "change", ["UPDATE events SET detail = 'x'", "DELETE FROM events", "TRUNCATE events"]
)
async def test_the_event_log_refuses_any_change_but_appending(
    postgres_url: str, change: str
) -> None:
    async with PostgresStore(postgres_url) as store:
        await store.add(ask("a1"))
    with (
        psycopg.connect(postgres_url, autocommit=True) as conn,
        pytest.raises(psycopg.errors.RaiseException, match="events are append-only"),
    ):
        conn.execute(change.encode())
    assert rows(postgres_url, "SELECT count(*) FROM events") == [(1,)]


# --- replicas racing -----------------------------------------------------------------------


async def test_two_replicas_racing_to_settle_fifty_asks_each_win_exactly_once_per_ask(
    replicas: tuple[PostgresStore, PostgresStore],
) -> None:
    a, b = replicas
    ids = [f"a{n:02}" for n in range(50)]
    for ask_id in ids:
        await a.add(ask(ask_id))
    tries = [
        (store, ask_id, *answered_by(ask_id, who))
        for ask_id in ids
        for store, who in ((a, "U_A"), (b, "U_B"))
    ]
    won = await asyncio.gather(*(store.settle(record, done) for store, _, record, done in tries))
    winners = {ask_id: record for (_, ask_id, record, _), w in zip(tries, won, strict=True) if w}
    assert sorted(winners) == ids  # every ask has a winner; a dict keeps one per ask
    assert won.count(True) == 50
    for ask_id in ids:
        assert await b.get(ask_id) == winners[ask_id]
        assert [(e.kind, e.actor) for e in await a.events(ask_id)] == [
            (EventKind.CREATED, None),
            (EventKind.ANSWERED, winners[ask_id].decided_by),
        ]


async def test_two_replicas_claiming_one_sessions_thread_all_get_the_winners(
    replicas: tuple[PostgresStore, PostgresStore],
) -> None:
    a, b = replicas
    claims = [
        (store, ThreadRef(channel="C1", thread_ts=f"{n}.000100"))
        for n, store in enumerate([a, b] * 5)
    ]
    got = await asyncio.gather(*(store.claim_thread("planner-7", ref) for store, ref in claims))
    assert got[0] in [ref for _, ref in claims]
    assert got == [got[0]] * 10
    assert await a.thread("planner-7") == await b.thread("planner-7") == got[0]


async def test_one_ask_added_through_both_replicas_with_one_key_is_stored_once(
    replicas: tuple[PostgresStore, PostgresStore],
) -> None:
    a, b = replicas
    (ra, added_a), (rb, added_b) = await asyncio.gather(
        a.add(ask("from-a", idempotency_key="k")), b.add(ask("from-b", idempotency_key="k"))
    )
    assert ra == rb
    assert sorted([added_a, added_b]) == [False, True]
    assert [r.id for r in await a.recent()] == [ra.id]


async def test_a_pooled_connection_the_server_dropped_is_replaced_not_reported(
    postgres_url: str,
) -> None:
    async with PostgresStore(postgres_url) as store:
        await store.add(ask("a1"))
        dropped = rows(
            postgres_url,
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE application_name = 'slack-questions' AND pid <> pg_backend_pid()",
        )
        assert dropped == [(True,)]
        assert await store.get("a1") == ask("a1")


async def test_a_closed_store_says_so(postgres_url: str) -> None:
    store = await PostgresStore.open(postgres_url)
    await store.close()
    with pytest.raises(PostgresStoreError) as closed:
        await store.get("a1")
    assert closed.value.problem == "the store is closed (or was never started)"


# --- start-up errors -----------------------------------------------------------------------


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts TCP connections and never says a word."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        yield listener.getsockname()[1]


async def start_error(url: str, *, connect_timeout: float = 5.0) -> str:
    with pytest.raises(PostgresStoreError) as failed:
        await PostgresStore.open(url, connect_timeout=connect_timeout)
    return str(failed.value)


async def test_a_malformed_url_is_refused_without_echoing_its_password() -> None:
    with pytest.raises(PostgresStoreError) as failed:
        PostgresStore("postgresql://ops:s3cret@[::1/asks")
    assert str(failed.value) == (
        "ask store (unparsed URL): the PostgreSQL URL is malformed (end of string reached"
        ' when looking for matching "]" in IPv6 host address in URI:'
        ' "postgresql://ops:***@[::1/asks"); write it as'
        " postgresql://USER:PASSWORD@HOST:PORT/DATABASE"
    )


async def test_a_port_that_is_not_a_number_is_a_malformed_url() -> None:
    assert await start_error("postgresql://ops@127.0.0.1:fivefour/asks") == (
        "ask store postgresql://ops@127.0.0.1:fivefour/asks: the PostgreSQL URL is malformed"
        ' (connection is bad: invalid integer value "fivefour" for connection option "port");'
        " write it as postgresql://USER:PASSWORD@HOST:PORT/DATABASE"
    )


async def test_a_port_where_nothing_listens_is_reported_at_once() -> None:
    port = free_port()
    assert await start_error(f"postgresql://ops:s3cret@127.0.0.1:{port}/asks") == (
        f"ask store postgresql://ops@127.0.0.1:{port}/asks: nothing accepts connections at"
        f" 127.0.0.1:{port} (connection refused); start PostgreSQL there or fix the host and"
        " port in the URL"
    )


async def test_a_server_that_never_answers_is_given_up_on_after_the_timeout(
    silent_port: int,
) -> None:
    assert await start_error(
        f"postgresql://ops@127.0.0.1:{silent_port}/asks", connect_timeout=0.3
    ) == (
        f"ask store postgresql://ops@127.0.0.1:{silent_port}/asks: no answer from PostgreSQL"
        f" at 127.0.0.1:{silent_port} within 0.3 s; check the host, the port and any"
        " firewall in between"
    )


async def test_a_missing_database_is_named_with_how_to_create_it(
    postgres_server: PostgresServer,
) -> None:
    address = server_address(postgres_server)
    assert await start_error(f"postgresql://postgres@{address}/no_such_db") == (
        f"ask store postgresql://postgres@{address}/no_such_db: database 'no_such_db' does"
        f" not exist on {address}; create it (createdb no_such_db) or fix the database name"
        " in the URL"
    )


async def test_an_unknown_user_is_named(postgres_server: PostgresServer) -> None:
    if not postgres_server.throwaway:
        pytest.skip("needs the throwaway server's trust rule for unknown users")
    address = server_address(postgres_server)
    assert await start_error(f"postgresql://nobody@{address}/postgres") == (
        f"ask store postgresql://nobody@{address}/postgres: PostgreSQL at {address} has no"
        " user 'nobody'; create it or fix the user in the URL"
    )


async def test_a_wrong_password_is_reported_without_the_password(
    postgres_server: PostgresServer,
) -> None:
    if not postgres_server.throwaway:
        pytest.skip("needs the throwaway server's password rule for role with_password")
    with psycopg.connect(postgres_server.url, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_roles WHERE rolname = 'with_password'").fetchone():
            conn.execute("CREATE ROLE with_password LOGIN PASSWORD 'right'")
    address = server_address(postgres_server)
    assert await start_error(f"postgresql://with_password:wrong@{address}/postgres") == (
        f"ask store postgresql://with_password@{address}/postgres: PostgreSQL at {address}"
        " refused the password of user 'with_password'; fix the user and password in the URL"
    )
