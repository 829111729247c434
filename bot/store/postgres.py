"""`PostgresStore`: the `AskStore` on a PostgreSQL database that several replicas share.

Same layout and rules as `SqliteStore` (bot/store/sqlite.py), so either can hold a team's
asks; what differs is that other processes write the same rows at the same time:
- `asks`: the record as JSON (the truth), beside the columns we query by. `seq` keeps the
  order asks were added in, for asks created at the same instant.
- `events`: append-only (a trigger refuses UPDATE, DELETE and TRUNCATE), ordered by `seq`.
- `threads`: the thread each agent session posts in.
- `inbox`: Slack interactions stored before their ack, deleted once handled.
- `schema_migrations`: one row per schema step applied. Steps run on start in one
  transaction under an advisory lock, so replicas starting together run each step once.

Across replicas the row is the truth: `settle` is one conditional UPDATE (`… AND state =
'pending'`) in the transaction that writes its event, so exactly one replica's answer wins;
`claim_thread` is an insert-if-absent on the session key. Every write that changes an ask
is one statement that also appends its event and calls `pg_notify(ASK_CHANNEL, ask_id)`:
one round trip, one transaction; PostgreSQL delivers the notification at commit, never for
a write that rolled back or touched no row (listeners: bot/store/postgres_notify.py).

Connections come from a psycopg pool (autocommit: each write is one statement, so one
transaction), checked before each use so a restarted server costs a reconnect, not an error.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from types import TracebackType
from typing import Self

import psycopg
from psycopg import errors as pg_errors
from psycopg.rows import TupleRow
from psycopg_pool import AsyncConnectionPool

from bot.store import (
    AskEvent,
    AskRecord,
    AskState,
    EventKind,
    InboxItem,
    InboxKind,
    Lease,
    ThreadRef,
    check_advance,
    check_settle,
    lease_for,
)
from bot.store.postgres_connect import CONNECT_TIMEOUT_S, PostgresStoreError, Target, connect

Connection = psycopg.AsyncConnection[TupleRow]

# Listeners LISTEN on this channel; the payload is the id of the ask that changed.
ASK_CHANNEL = "slack_questions_asks"
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
        # Acked Slack interactions not yet handled (bot/interactions/inbox.py); `seq` keeps arrival order.
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
)
SCHEMA_VERSION = len(MIGRATIONS)

_ASK_COLUMNS = "(id, idempotency_key, state, created_at, record)"
_ASK_VALUES = "(%s, %s, %s, %s, %s::jsonb)"


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


class PostgresStore:
    """An `AskStore` on PostgreSQL. `await PostgresStore.open(url)`; `await close()`.

    Also an async context manager: `async with PostgresStore(url) as store: ...`.
    """

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

    @classmethod
    async def open(
        cls,
        url: str,
        *,
        min_connections: int = 1,
        max_connections: int = 10,
        connect_timeout: float = CONNECT_TIMEOUT_S,
    ) -> PostgresStore:
        """A started store on the database at `url`, its schema brought up to date."""
        store = cls(
            url,
            min_connections=min_connections,
            max_connections=max_connections,
            connect_timeout=connect_timeout,
        )
        await store.start()
        return store

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
            with self._errors():
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
            with self._errors():
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

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """The driver's errors become `PostgresStoreError` naming the database."""
        try:
            yield
        except psycopg.Error as error:
            raise PostgresStoreError(str(self.target), str(error).strip()) from error

    @asynccontextmanager
    async def _connection(self) -> AsyncIterator[Connection]:
        pool = self._pool
        if pool is None:
            raise PostgresStoreError(str(self.target), "the store is closed (or was never started)")
        with self._errors():
            async with pool.connection() as conn:
                yield conn

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[Connection]:
        async with self._connection() as conn, conn.transaction():
            yield conn

    async def check_writable(self) -> None:
        """Readiness: a connection from the pool on a server that takes writes (not a standby
        in recovery); `PostgresStoreError` saying why not."""
        async with self._connection() as conn:
            cursor = await conn.execute("SELECT pg_is_in_recovery()")
            row = await cursor.fetchone()
        if row is None or row[0]:
            raise PostgresStoreError(
                str(self.target), "the server is a standby: it takes no writes"
            )

    # --- asks ------------------------------------------------------------------------------

    async def add(self, record: AskRecord) -> tuple[AskRecord, bool]:
        """See `AskStore.add`. The ask and its `created` event commit together; the
        unique idempotency key makes racing adds, from any replica, one ask."""
        created = AskEvent(ask_id=record.id, at=record.created_at, kind=EventKind.CREATED)
        async with self._connection() as conn:
            try:
                added = await _write_with_event(
                    conn,
                    f"INSERT INTO asks {_ASK_COLUMNS} VALUES {_ASK_VALUES}"
                    " ON CONFLICT (idempotency_key) DO NOTHING",
                    _ask_row(record),
                    created,
                )
            except pg_errors.UniqueViolation as error:
                raise ValueError(f"an ask with id {record.id!r} is already stored") from error
            if added:
                return record, True
            # The key is taken, by a commit we waited for if it was racing us; this new
            # statement sees it.
            existing = await _one_record(
                conn,
                "SELECT record::text FROM asks WHERE idempotency_key = %s",
                record.idempotency_key,
            )
        if existing is None:
            raise PostgresStoreError(str(self.target), "an idempotency key lost its ask")
        return existing, False

    async def get(self, ask_id: str) -> AskRecord | None:
        """See `AskStore.get`."""
        async with self._connection() as conn:
            return await _one_record(conn, "SELECT record::text FROM asks WHERE id = %s", ask_id)

    async def save(self, record: AskRecord, event: AskEvent) -> None:
        """See `AskStore.save`: the new record and its event commit together, or neither."""
        if event.ask_id != record.id:
            raise ValueError(f"event of ask {event.ask_id!r} saved with ask {record.id!r}")
        async with self._connection() as conn:
            # An upsert keeps the row's seq, so asks created at the same instant keep order.
            await _write_with_event(
                conn,
                f"INSERT INTO asks {_ASK_COLUMNS} VALUES {_ASK_VALUES}"
                " ON CONFLICT (id) DO UPDATE SET idempotency_key = excluded.idempotency_key,"
                " state = excluded.state, created_at = excluded.created_at,"
                " record = excluded.record",
                _ask_row(record),
                event,
            )

    async def log(self, event: AskEvent) -> None:
        """See `AskStore.log`. `KeyError` if no ask has `event.ask_id`."""
        async with self._connection() as conn:
            try:
                await conn.execute(
                    "INSERT INTO events (ask_id, at, kind, actor, detail)"
                    " VALUES (%s, %s, %s, %s, %s)",
                    (event.ask_id, *_event_values(event)),
                )
            except pg_errors.ForeignKeyViolation as error:
                raise KeyError(event.ask_id) from error

    async def pending(self) -> list[AskRecord]:
        """See `AskStore.pending`: oldest first (by created_at, then by when it was added)."""
        async with self._connection() as conn:
            cursor = await conn.execute(
                "SELECT record::text FROM asks WHERE state = %s ORDER BY created_at, seq",
                (AskState.PENDING.value,),
            )
            return _records(await cursor.fetchall())

    async def recent(self, *, state: AskState | None = None, limit: int = 50) -> list[AskRecord]:
        """See `AskStore.recent`: newest first (by created_at, then latest added)."""
        async with self._connection() as conn:
            if state is None:
                cursor = await conn.execute(
                    "SELECT record::text FROM asks ORDER BY created_at DESC, seq DESC LIMIT %s",
                    (limit,),
                )
            else:
                cursor = await conn.execute(
                    "SELECT record::text FROM asks WHERE state = %s"
                    " ORDER BY created_at DESC, seq DESC LIMIT %s",
                    (state.value, limit),
                )
            return _records(await cursor.fetchall())

    async def events(self, ask_id: str) -> list[AskEvent]:
        """See `AskStore.events`: in the order they were appended."""
        async with self._connection() as conn:
            cursor = await conn.execute(
                "SELECT at, kind, actor, detail FROM events WHERE ask_id = %s ORDER BY seq",
                (ask_id,),
            )
            rows = await cursor.fetchall()
        return [
            AskEvent.model_validate(
                {"ask_id": ask_id, "at": at, "kind": kind, "actor": actor, "detail": detail}
            )
            for at, kind, actor, detail in rows
        ]

    # --- threads ---------------------------------------------------------------------------

    async def thread(self, session: str) -> ThreadRef | None:
        """See `AskStore.thread`."""
        async with self._connection() as conn:
            return await _one_thread(conn, session)

    async def set_thread(self, session: str, ref: ThreadRef) -> None:
        """See `AskStore.set_thread`: a later call for the session replaces the thread."""
        async with self._connection() as conn:
            await conn.execute(
                "INSERT INTO threads (session, channel, thread_ts) VALUES (%s, %s, %s)"
                " ON CONFLICT (session) DO UPDATE"
                " SET channel = excluded.channel, thread_ts = excluded.thread_ts",
                (session, ref.channel, ref.thread_ts),
            )

    # --- across replicas -------------------------------------------------------------------

    async def settle(self, record: AskRecord, event: AskEvent) -> bool:
        """See `AskStore.settle`: one conditional UPDATE. Its row lock makes a racing
        replica wait for this commit, then find the ask no longer pending."""
        check_settle(record, event)
        async with self._connection() as conn:
            won = await _write_with_event(
                conn,
                "UPDATE asks SET idempotency_key = %s, state = %s, created_at = %s,"
                " record = %s::jsonb WHERE id = %s AND state = 'pending'",
                (*_ask_row(record)[1:], record.id),
                event,
            )
            if won:
                return True
            known = await conn.execute("SELECT 1 FROM asks WHERE id = %s", (record.id,))
            if await known.fetchone() is None:
                raise KeyError(record.id)
        return False

    async def claim_thread(self, session: str, ref: ThreadRef) -> ThreadRef:
        """See `AskStore.claim_thread`: insert-if-absent on the session key."""
        async with self._transaction() as conn:
            # A racing insert of the same session makes this wait for its commit, so the
            # read below always finds the winner.
            await conn.execute(
                "INSERT INTO threads (session, channel, thread_ts) VALUES (%s, %s, %s)"
                " ON CONFLICT (session) DO NOTHING",
                (session, ref.channel, ref.thread_ts),
            )
            winner = await _one_thread(conn, session)
        if winner is None:
            raise PostgresStoreError(str(self.target), f"the thread of {session!r} vanished")
        return winner

    # --- the inbox -------------------------------------------------------------------------

    async def inbox_add(self, item: InboxItem) -> None:
        """See `AskStore.inbox_add`: one autocommitted INSERT."""
        async with self._connection() as conn:
            try:
                await conn.execute(
                    "INSERT INTO inbox (id, received_at, kind, body) VALUES (%s, %s, %s, %s)",
                    (item.id, item.received_at, item.kind.value, item.body),
                )
            except pg_errors.UniqueViolation as error:
                raise ValueError(f"inbox item {item.id} is already stored") from error

    async def inbox_done(self, item_id: str) -> None:
        """See `AskStore.inbox_done`."""
        async with self._connection() as conn:
            await conn.execute("DELETE FROM inbox WHERE id = %s", (item_id,))

    async def inbox_pending(self) -> list[InboxItem]:
        """See `AskStore.inbox_pending`: in order of arrival (every replica's)."""
        async with self._connection() as conn:
            cursor = await conn.execute(
                "SELECT id, received_at, kind, body FROM inbox ORDER BY received_at, seq"
            )
            rows = await cursor.fetchall()
        return [
            InboxItem(id=str(i), received_at=float(at), kind=InboxKind(str(kind)), body=str(body))
            for i, at, kind, body in rows
        ]

    async def advance(self, record: AskRecord, event: AskEvent) -> bool:
        """See `AskStore.advance`: one conditional UPDATE on state and version; a racing
        replica waits on the row lock, then finds the version moved and writes nothing."""
        check_advance(record, event)
        async with self._connection() as conn:
            written = await _write_with_event(
                conn,
                "UPDATE asks SET idempotency_key = %s, state = %s, created_at = %s,"
                " record = %s::jsonb WHERE id = %s AND state = 'pending'"
                " AND coalesce((record->>'version')::int, 0) = %s",
                (*_ask_row(record)[1:], record.id, record.version - 1),
                event,
            )
            if written:
                return True
            known = await conn.execute("SELECT 1 FROM asks WHERE id = %s", (record.id,))
            if await known.fetchone() is None:
                raise KeyError(record.id)
        return False

    async def lease(self, name: str, owner: str, *, now: float, until: float) -> Lease | None:
        """See `AskStore.lease`: the row is made if absent, then locked, read and taken in
        one transaction, so racing replicas take turns and only one gets it."""
        async with self._transaction() as conn:
            await conn.execute(
                "INSERT INTO leases (name, owner, until) VALUES (%s, '', 0)"
                " ON CONFLICT (name) DO NOTHING",
                (name,),
            )
            cursor = await conn.execute(
                "SELECT owner, until FROM leases WHERE name = %s FOR UPDATE", (name,)
            )
            row = await cursor.fetchone()
            assert row is not None
            granted = lease_for(str(row[0]), float(row[1]), owner, now)
            if granted is None:
                return None
            await conn.execute(
                "UPDATE leases SET owner = %s, until = %s WHERE name = %s", (owner, until, name)
            )
        return granted

    async def release(self, name: str, owner: str) -> None:
        """See `AskStore.release`."""
        async with self._connection() as conn:
            await conn.execute(
                "UPDATE leases SET owner = '', until = 0 WHERE name = %s AND owner = %s",
                (name, owner),
            )


def _ask_row(record: AskRecord) -> tuple[str, str | None, str, float, str]:
    return (
        record.id,
        record.idempotency_key,
        record.state.value,
        record.created_at,
        record.model_dump_json(),
    )


async def _write_with_event(
    conn: Connection, write: str, params: Sequence[object], event: AskEvent
) -> bool:
    """Run `write` (an INSERT or UPDATE of one ask) and, only if it touched the row, append
    `event` and notify listeners: one statement, so one transaction and one round trip.
    Whether the row was touched."""
    cursor = await conn.execute(
        f"WITH written AS ({write} RETURNING id),"
        " logged AS (INSERT INTO events (ask_id, at, kind, actor, detail)"
        " SELECT id, %s, %s, %s, %s FROM written RETURNING ask_id)"
        " SELECT pg_notify(%s, ask_id) FROM logged",
        (*params, *_event_values(event), ASK_CHANNEL),
    )
    return cursor.rowcount == 1


def _event_values(event: AskEvent) -> tuple[float, str, str | None, str]:
    return (event.at, event.kind.value, event.actor, event.detail)


async def _one_record(conn: Connection, query: str, value: object) -> AskRecord | None:
    cursor = await conn.execute(query, (value,))
    row = await cursor.fetchone()
    return None if row is None else AskRecord.model_validate_json(str(row[0]))


async def _one_thread(conn: Connection, session: str) -> ThreadRef | None:
    cursor = await conn.execute(
        "SELECT channel, thread_ts FROM threads WHERE session = %s", (session,)
    )
    row = await cursor.fetchone()
    return (
        None if row is None else ThreadRef.model_validate({"channel": row[0], "thread_ts": row[1]})
    )


def _records(rows: list[TupleRow]) -> list[AskRecord]:
    return [AskRecord.model_validate_json(str(text)) for (text,) in rows]
