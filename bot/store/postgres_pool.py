"""`PostgresPool`: how `PostgresStore`'s calls reach PostgreSQL, and the database's schema.

Connections come from a psycopg pool (autocommit: each write is one statement, so one
transaction), checked before each use so a restarted server costs a reconnect, not an error.
The driver's errors become `PostgresStoreError` naming the database (never the password).

`schema_migrations` holds one row per schema step applied. Steps run on start in one
transaction under an advisory lock, so replicas starting together run each step once.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager

import psycopg
from psycopg.rows import TupleRow
from psycopg_pool import AsyncConnectionPool

from bot.store.postgres_connect import CONNECT_TIMEOUT_S, PostgresStoreError, Target, connect

Connection = psycopg.AsyncConnection[TupleRow]

APPLICATION_NAME = "slack-questions"
# Any constant of our own: the advisory lock that serialises migrations across replicas.
MIGRATION_LOCK = 0x51AC_0A5C

# MIGRATIONS[n] takes a database from schema version n to n + 1. Append, never edit.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE asks (
            seq BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
            id TEXT PRIMARY KEY,
            idempotency_key TEXT UNIQUE,
            state TEXT NOT NULL,
            created_at DOUBLE PRECISION NOT NULL,
            record JSONB NOT NULL
        )""",
        "CREATE INDEX asks_by_state ON asks (state, created_at, seq)",
        "CREATE INDEX asks_by_age ON asks (created_at, seq)",
        """CREATE TABLE events (
            seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            ask_id TEXT NOT NULL REFERENCES asks (id),
            at DOUBLE PRECISION NOT NULL,
            kind TEXT NOT NULL,
            actor TEXT,
            detail TEXT NOT NULL
        )""",
        "CREATE INDEX events_by_ask ON events (ask_id, seq)",
        """CREATE FUNCTION events_are_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'events are append-only'; END $$""",
        """CREATE TRIGGER events_are_never_changed BEFORE UPDATE OR DELETE ON events
        FOR EACH ROW EXECUTE FUNCTION events_are_append_only()""",
        """CREATE TRIGGER events_are_never_truncated BEFORE TRUNCATE ON events
        FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only()""",
        """CREATE TABLE threads (
            session TEXT PRIMARY KEY,
            channel TEXT NOT NULL,
            thread_ts TEXT
        )""",
    ),
    (
        # Acked Slack interactions not yet handled (bot/interactions/intake.py); `seq` keeps arrival order.
        """CREATE TABLE inbox (
            seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            received_at DOUBLE PRECISION NOT NULL,
            kind TEXT NOT NULL,
            body TEXT NOT NULL
        )""",
    ),
    (
        # Work done once across replicas (posting, thread roots, reminders): who holds it, until.
        """CREATE TABLE leases (
            name TEXT PRIMARY KEY,
            owner TEXT NOT NULL,
            until DOUBLE PRECISION NOT NULL
        )""",
    ),
    (
        # Agent credentials of the relay (bot/service/principals.py): the record as JSON
        # (the secret's sha256, never the secret). `asks.agent_id`, read from the record,
        # lets an agent's list be filtered in the query, by index.
        "ALTER TABLE asks ADD COLUMN agent_id TEXT GENERATED ALWAYS AS (record->>'agent_id') STORED",
        "CREATE INDEX asks_by_agent ON asks (agent_id, created_at, seq)",
        """CREATE TABLE credentials (
            id TEXT PRIMARY KEY,
            created_at DOUBLE PRECISION NOT NULL,
            record JSONB NOT NULL
        )""",
    ),
    (
        # Retention (SLACK_QUESTIONS_RETENTION, `python -m bot erase`): an event may go, but
        # only with its ask, deleted first in the same transaction (the foreign key is
        # checked at its commit, so it may be deferred); alone, an event is still never
        # deleted, updated or truncated.
        """CREATE FUNCTION events_go_only_with_their_ask() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF NOT EXISTS (SELECT 1 FROM asks WHERE id = OLD.ask_id) THEN RETURN OLD; END IF;
            RAISE EXCEPTION 'events are append-only: they are deleted only with their ask';
        END $$""",
        "DROP TRIGGER events_are_never_changed ON events",
        """CREATE TRIGGER events_are_never_updated BEFORE UPDATE ON events
        FOR EACH ROW EXECUTE FUNCTION events_are_append_only()""",
        """CREATE TRIGGER events_go_only_with_their_ask BEFORE DELETE ON events
        FOR EACH ROW EXECUTE FUNCTION events_go_only_with_their_ask()""",
        "ALTER TABLE events ALTER CONSTRAINT events_ask_id_fkey DEFERRABLE INITIALLY IMMEDIATE",
    ),
    (
        # Grants of tool calls made by reviewers (bot/asks/automatic.py): the record as JSON;
        # a revoked one is kept (who revoked it, when), an expired one too.
        """CREATE TABLE grants (
            id TEXT PRIMARY KEY,
            created_at DOUBLE PRECISION NOT NULL,
            record JSONB NOT NULL
        )""",
    ),
    (
        # The tamper-evident decision log (bot/store/audit.py): `audit_head` is the chain's
        # last link, locked FOR UPDATE by each append so replicas keep one order;
        # `audit_anchor` the last link a purge removed; `audit_published` the heads posted.
        """CREATE TABLE audit (
            seq BIGINT PRIMARY KEY,
            at DOUBLE PRECISION NOT NULL,
            kind TEXT NOT NULL,
            ask_id TEXT,
            actor TEXT,
            payload TEXT NOT NULL,
            prev_mac TEXT NOT NULL,
            mac TEXT NOT NULL
        )""",
        "CREATE TABLE audit_head (one INT PRIMARY KEY CHECK (one = 1), seq BIGINT NOT NULL,"
        " mac TEXT NOT NULL)",
        "CREATE TABLE audit_anchor (one INT PRIMARY KEY CHECK (one = 1), seq BIGINT NOT NULL,"
        " mac TEXT NOT NULL)",
        "CREATE TABLE audit_published (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
        " seq BIGINT NOT NULL, mac TEXT NOT NULL, at DOUBLE PRECISION NOT NULL)",
    ),
    (
        # Claims (bot/asks/claim_lapses.py): who holds a pending ask, read from the record,
        # so the asks one person holds are found by index. A new step also tells older code
        # that records now carry `holder`, which it cannot read: it refuses the database.
        "ALTER TABLE asks ADD COLUMN holder TEXT GENERATED ALWAYS AS (record->>'holder') STORED",
        "CREATE INDEX asks_by_holder ON asks (holder, created_at, seq)",
    ),
    (
        # Review of decided asks (bot/interactions/feedback.py): one row per ask and person,
        # their latest verdict ("right" / "wrong") and note; deleted with the ask.
        """CREATE TABLE feedback (
            ask_id TEXT NOT NULL,
            person TEXT NOT NULL,
            verdict TEXT,
            note TEXT,
            at DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (ask_id, person)
        )""",
    ),
    (
        # Rules saved with "Always allow" (bot/asks/automatic.py): keyed by name, so a name is
        # taken once across replicas; the record as JSON.
        """CREATE TABLE stored_rules (
            name TEXT PRIMARY KEY,
            created_at DOUBLE PRECISION NOT NULL,
            record JSONB NOT NULL
        )""",
    ),
    (
        # Out-of-office delegations (bot/delegation.py): one per delegator, the record as
        # JSON; one turned off keeps its row (`ended_at`).
        """CREATE TABLE delegations (
            delegator TEXT PRIMARY KEY,
            record JSONB NOT NULL
        )""",
    ),
)
SCHEMA_VERSION = len(MIGRATIONS)


async def migrate(
    conn: Connection, target: Target, migrations: Sequence[Sequence[str]] = MIGRATIONS
) -> int:
    """Bring the database to the newest schema in one transaction; refuse a newer one.

    The transaction-level advisory lock makes a second replica wait here until the first
    has committed, then find nothing left to do. Returns how many steps this call ran.
    """
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        await conn.execute(
            """CREATE TABLE IF NOT EXISTS schema_migrations (
                version INTEGER PRIMARY KEY,
                applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
            )"""
        )
        cursor = await conn.execute("SELECT coalesce(max(version), 0) FROM schema_migrations")
        row = await cursor.fetchone()
        found = int(row[0]) if row is not None else 0
        if found > len(migrations):
            # Old code must not write into a layout it does not know.
            raise PostgresStoreError(
                str(target),
                f"its schema version {found} is newer than this code knows "
                f"({len(migrations)}); run a newer slack-questions",
            )
        for version, step in enumerate(migrations[found:], start=found + 1):
            for statement in step:
                await conn.execute(statement)
            await conn.execute("INSERT INTO schema_migrations (version) VALUES (%s)", (version,))
        return len(migrations) - found


class PostgresPool:
    """The store's pool of connections to one database: opened (schema migrated first) by
    `start`, closed by `close`, lent out by `connection` and `transaction`."""

    def __init__(
        self,
        url: str,
        *,
        min_connections: int = 1,
        max_connections: int = 10,
        connect_timeout: float = CONNECT_TIMEOUT_S,
    ) -> None:
        self.target = Target(url)
        self._sizes = (min_connections, max_connections)
        self._connect_timeout = connect_timeout
        self._pool: AsyncConnectionPool[Connection] | None = None

    async def start(self) -> None:
        """Connect, migrate, and open the pool; `PostgresStoreError` says what to fix."""
        if self._pool is not None:
            raise PostgresStoreError(str(self.target), "the store is already started")
        # One plain connection first: its failure explains itself, where a pool that cannot
        # fill only reports a timeout.
        conn = await connect(
            self.target, application_name=APPLICATION_NAME, within=self._connect_timeout
        )
        try:
            with self.errors():
                await migrate(conn, self.target)
        finally:
            await conn.close()
        min_size, max_size = self._sizes
        pool: AsyncConnectionPool[Connection] = AsyncConnectionPool(
            self.target.url,
            min_size=min_size,
            max_size=max_size,
            open=False,
            timeout=self._connect_timeout,
            check=AsyncConnectionPool.check_connection,
            kwargs={"autocommit": True, "fallback_application_name": APPLICATION_NAME},
            name="slack-questions",
        )
        try:
            with self.errors():
                await pool.open(wait=True, timeout=self._connect_timeout)
        except BaseException:
            await pool.close()
            raise
        self._pool = pool

    async def close(self) -> None:
        """Close every connection of the pool. Closing twice is fine."""
        pool, self._pool = self._pool, None
        if pool is not None:
            await pool.close()

    @contextmanager
    def errors(self) -> Iterator[None]:
        """The driver's errors become `PostgresStoreError` naming the database."""
        try:
            yield
        except psycopg.Error as error:
            raise PostgresStoreError(str(self.target), str(error).strip()) from error

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[Connection]:
        """A connection of the pool (autocommit) for the block; `PostgresStoreError` if the
        pool is closed or the driver fails."""
        pool = self._pool
        if pool is None:
            raise PostgresStoreError(str(self.target), "the store is closed (or was never started)")
        with self.errors():
            async with pool.connection() as conn:
                yield conn

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Connection]:
        """A connection of the pool inside one transaction, committed when the block ends
        (rolled back if it raises)."""
        async with self.connection() as conn, conn.transaction():
            yield conn

    async def check_writable(self) -> None:
        """A connection from the pool on a server that takes writes (not a standby in
        recovery); `PostgresStoreError` saying why not."""
        async with self.connection() as conn:
            cursor = await conn.execute("SELECT pg_is_in_recovery()")
            row = await cursor.fetchone()
        if row is None or row[0]:
            raise PostgresStoreError(
                str(self.target), "the server is a standby: it takes no writes"
            )
