"""Suite-wide settings and fixtures: our tests talk only to 127.0.0.1.

PostgreSQL tests get an empty schema (`postgres_url`) on one server per session: the one
`SLACK_QUESTIONS_TEST_PG` names (a superuser's URL), else a throwaway server started from the
machine's binaries (tests/postgres_server.py). With no binaries those tests skip, except in
CI (`CI=true`), where a skipped store is a failure.
"""

import os
import sys
import uuid
from collections.abc import Iterator
from typing import NoReturn
from urllib.parse import urlencode, urlsplit

import psycopg
import pytest
from psycopg import sql

from tests.postgres_server import NoPostgres, ThrowawayPostgres

# slack_sdk honours HTTP(S)_PROXY but not NO_PROXY, so a proxy in the environment would
# swallow every call to the local emulator.
for _name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"):
    os.environ.pop(_name, None)

# Test modules are cached assertion-rewritten in __pycache__ (gitignored) even where the
# environment sets PYTHONDONTWRITEBYTECODE: else each xdist worker rewrites and compiles every
# test module again on every run, half of its collection time (about 3 s of CPU a worker).
# Conftest modules come first, so this holds for every test module.
sys.dont_write_bytecode = False

TEST_PG = "SLACK_QUESTIONS_TEST_PG"

pytest_plugins = ["tests.hang_report"]


class PostgresServer:
    """The session's PostgreSQL server: gives each test an empty schema of its own.

    A schema, not a database: CREATE DATABASE costs from 40 ms to 2 s on a busy machine,
    CREATE SCHEMA a millisecond. Each test's URL sets `search_path` to its schema, so the
    store there sees an empty database of its own.
    """

    def __init__(self, url: str, *, throwaway: bool) -> None:
        self.url = url
        self.throwaway = throwaway  # ours: its pg_hba has the `with_password` rule

    def schema_url(self, schema: str) -> str:
        """This server's URL with `schema` as the only schema searched."""
        parts = urlsplit(self.url)
        option = urlencode({"options": f"-csearch_path={schema}"})
        query = f"{parts.query}&{option}" if parts.query else option
        return parts._replace(query=query).geturl()

    def create_schema(self) -> str:
        """A new empty schema; its name."""
        name = f"test_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(name)))
        return name

    def drop_schema(self, name: str) -> None:
        """Drop `name` and everything in it."""
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(name)))


def no_server(reason: str) -> NoReturn:
    """Skip a test that needs PostgreSQL; in CI, fail it: CI must not skip a store."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI must run the PostgreSQL tests: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """The session's server, started on first use and stopped at the end."""
    given = os.environ.get(TEST_PG)
    if given:
        yield PostgresServer(given, throwaway=False)
        return
    try:
        server = ThrowawayPostgres.start()
    except NoPostgres as missing:
        no_server(str(missing))
    try:
        yield PostgresServer(server.url, throwaway=True)
    finally:
        server.stop()


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> Iterator[str]:
    """The URL of an empty schema of the test's own, dropped after the test."""
    name = postgres_server.create_schema()
    try:
        yield postgres_server.schema_url(name)
    finally:
        postgres_server.drop_schema(name)
