"""What `PostgresPool` promises the PostgreSQL store: a schema migrated once across replicas
starting together, an append-only event log, a pool that outlives a dropped connection, and
start-up errors that say what to fix.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator
from urllib.parse import urlsplit

import psycopg
import pytest

from bot.store import AskRecord
from bot.store.postgres import PostgresStore
from bot.store.postgres_connect import PostgresStoreError, Target
from bot.store.postgres_pool import SCHEMA_VERSION, migrate
from provider import AskUserQuestionItem
from tests.conftest import PostgresServer
from tests.postgres_server import free_port

NAME = AskUserQuestionItem(id="name", question="Name the service")


def ask(ask_id: str, **fields: object) -> AskRecord:
    return AskRecord.model_validate(
        {"id": ask_id, "questions": [NAME], "created_at": 1000.0, **fields}
    )


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
            (v,) for v in range(1, SCHEMA_VERSION + 1)
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
        (v,) for v in range(1, SCHEMA_VERSION + 1)
    ]


async def test_a_database_with_a_newer_schema_is_refused_naming_both_versions(
    postgres_url: str,
) -> None:
    async with PostgresStore(postgres_url):
        pass
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("INSERT INTO schema_migrations (version) VALUES (5)")
    with pytest.raises(PostgresStoreError) as refused:
        await PostgresStore.open(postgres_url)
    assert refused.value.problem == (
        "its schema version 5 is newer than this code knows (4); run a newer slack-questions"
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


# --- the pool ------------------------------------------------------------------------------


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
