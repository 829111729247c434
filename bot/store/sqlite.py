"""`SqliteStore`: the `AskStore` on one SQLite file, so asks survive a restart of the bot.

Every sqlite3 call but one kind runs on one worker thread that the store owns
(`StoreThread`): the connection is opened on that thread, used only there (sqlite3's own
same-thread check stays on to prove it), and closed there. One worker also serialises the
store's calls, so a transaction never interleaves with another of the same store. A call
whose caller is cancelled still runs to the end (commit or rollback) on the worker.

The exception is the click path (issue 13): settling an ask and keeping a click in the inbox
are committed where they are asked for, on the event loop, through a second connection
(opened by the worker, then used only on the loop) that never makes the loop wait on
another writer or a sync: it never waits for a lock (`busy_timeout` 0: when another
writer holds the file, the write goes to the worker as usual), never checkpoints (the
worker's connection does), and under WAL with `synchronous=NORMAL` a commit is an append to
the log, with no fsync. A hop to the worker and back costs a thread wake-up and two GIL
hand-offs on the way to the waiting agent: a settle took 0.37 ms at the median and 5.2 ms
at p95 through the worker (the worker waiting out the interpreter's 5 ms switch interval
for the GIL), 0.22 and 0.45 ms on the loop (`bench/sqlite_inline.py`, 2-core machine).

Durability: WAL journal with `synchronous=NORMAL`. A committed write survives the process
being killed (SIGKILL included); after a power cut the last few commits may roll back, but
the file stays consistent. Several processes may share the file: writers take the lock at
`BEGIN IMMEDIATE` and wait up to `BUSY_TIMEOUT_MS` for each other.

Layout (`PRAGMA user_version` is the schema version; `MIGRATIONS` takes a file forward):
- `asks`: the record as JSON, beside the columns we query by (id, idempotency key, state,
  created_at). The JSON is the truth; the columns are written from it in the same statement.
- `events`: append-only (triggers refuse UPDATE and DELETE), ordered by `seq`.
- `threads`: the thread each agent session posts in.
- `inbox`: Slack interactions stored before their ack, deleted once handled.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Self, TypeVar

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
from bot.store.sqlite_thread import StoreThread

T = TypeVar("T")

BUSY_TIMEOUT_MS = 5000

# MIGRATIONS[n] takes a file from schema version n to n + 1. Append, never edit: a file
# already at version n + 1 will not run step n again. A later column is a new step, e.g.
# ("ALTER TABLE asks ADD COLUMN channel TEXT",).
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE IF NOT EXISTS asks (
            id TEXT PRIMARY KEY,
            idempotency_key TEXT UNIQUE,
            state TEXT NOT NULL,
            created_at REAL NOT NULL,
            record TEXT NOT NULL
        )""",
        "CREATE INDEX IF NOT EXISTS asks_by_state ON asks (state, created_at)",
        "CREATE INDEX IF NOT EXISTS asks_by_age ON asks (created_at)",
        """CREATE TABLE IF NOT EXISTS events (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            ask_id TEXT NOT NULL REFERENCES asks (id),
            at REAL NOT NULL,
            kind TEXT NOT NULL,
            actor TEXT,
            detail TEXT NOT NULL
        )""",
        "CREATE INDEX IF NOT EXISTS events_by_ask ON events (ask_id, seq)",
        """CREATE TRIGGER IF NOT EXISTS events_are_never_updated BEFORE UPDATE ON events
        BEGIN SELECT RAISE(ABORT, 'events are append-only'); END""",
        """CREATE TRIGGER IF NOT EXISTS events_are_never_deleted BEFORE DELETE ON events
        BEGIN SELECT RAISE(ABORT, 'events are append-only'); END""",
        """CREATE TABLE IF NOT EXISTS threads (
            session TEXT PRIMARY KEY,
            channel TEXT NOT NULL,
            thread_ts TEXT
        )""",
    ),
    (
        # Acked Slack interactions not yet handled (bot/interactions/inbox.py); `seq` keeps arrival order.
        """CREATE TABLE IF NOT EXISTS inbox (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            id TEXT NOT NULL UNIQUE,
            received_at REAL NOT NULL,
            kind TEXT NOT NULL,
            body TEXT NOT NULL
        )""",
    ),
    (
        # Work done once across replicas (posting, thread roots, reminders): who holds it, until.
        """CREATE TABLE IF NOT EXISTS leases (
            name TEXT PRIMARY KEY,
            owner TEXT NOT NULL,
            until REAL NOT NULL
        )""",
    ),
)
SCHEMA_VERSION = len(MIGRATIONS)


class StoreError(Exception):
    """The ask store cannot be used; the message names the file and the cause."""

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(f"ask store {path}: {problem}")
        self.path = path
        self.problem = problem


def migrate(
    conn: sqlite3.Connection, path: Path, migrations: Sequence[Sequence[str]] = MIGRATIONS
) -> None:
    """Bring the file to the newest schema in one transaction; refuse a newer file.

    The version is read under the write lock, so two processes opening one new file at
    once cannot both run the same step.
    """
    with _transaction(conn):
        found: int = conn.execute("PRAGMA user_version").fetchone()[0]
        if found > len(migrations):
            # Old code must not write into a layout it does not know.
            raise StoreError(
                path,
                f"its schema version {found} is newer than this code knows "
                f"({len(migrations)}); run a newer slack-questions",
            )
        for step in migrations[found:]:
            for statement in step:
                conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {len(migrations)}")


class SqliteStore:
    """An `AskStore` on a SQLite file. `await SqliteStore.open(path)`; `await close()`.

    Also an async context manager: `async with SqliteStore(path) as store: ...`.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._worker: StoreThread | None = None
        self._conn: sqlite3.Connection | None = None
        # Opened by the worker, used only on the event loop (see the module docstring).
        self._inline: sqlite3.Connection | None = None

    @classmethod
    async def open(cls, path: str | Path) -> SqliteStore:
        """A started store on `path` (created with the current schema if absent)."""
        store = cls(path)
        await store.start()
        return store

    async def start(self) -> None:
        """Open the file on the store's worker thread and bring its schema up to date."""
        if self._worker is not None:
            raise StoreError(self.path, "the store is already started")
        worker = StoreThread("sqlite-store")
        opened: list[sqlite3.Connection] = []

        def connect() -> tuple[sqlite3.Connection, sqlite3.Connection | None]:
            opened.append(conn := self._connect())
            if str(self.path) == ":memory:":
                return conn, None  # a second connection would open another, empty database
            opened.append(inline := self._connect_inline())
            return conn, inline

        try:
            self._conn, self._inline = await worker.submit(connect)
        except BaseException:
            # Failed, or cancelled while connecting: whatever the worker opens, it closes
            # next (one worker, so this runs after the connect has finished).
            worker.submit(lambda: _close_all(opened))
            worker.stop()
            raise
        self._worker = worker

    def _connect(self) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(self.path, isolation_level=None)
        except sqlite3.Error as error:
            raise StoreError(self.path, f"cannot open it ({error})") from error
        try:
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            _use_wal(conn)
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA foreign_keys = ON")
            migrate(conn, self.path)
        except StoreError:
            conn.close()
            raise
        except sqlite3.Error as error:
            conn.close()
            raise StoreError(self.path, f"cannot open it ({error})") from error
        return conn

    def _connect_inline(self) -> sqlite3.Connection:
        """The event loop's connection (opened after `_connect` has migrated the file)."""
        try:
            conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as error:
            raise StoreError(self.path, f"cannot open it ({error})") from error
        try:
            conn.execute("PRAGMA busy_timeout = 0")  # a held lock sends the write to the worker
            conn.execute("PRAGMA wal_autocheckpoint = 0")  # a checkpoint may fsync: the worker's
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA foreign_keys = ON")
        except sqlite3.Error as error:
            conn.close()
            raise StoreError(self.path, f"cannot open it ({error})") from error
        return conn

    async def close(self) -> None:
        """Close the connections on the worker and let the thread go. Closing twice is fine."""
        conn, inline, worker = self._conn, self._inline, self._worker
        self._conn = self._inline = self._worker = None
        if worker is None:
            return
        try:
            if conn is not None:
                await worker.submit(lambda: _close_all([c for c in (inline, conn) if c]))
        finally:
            # The close above was the last job: the worker exits at once, nothing to wait for.
            worker.stop()

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

    async def _run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run `work` on the worker thread; SQLite's own errors become `StoreError`."""
        conn, worker = self._conn, self._worker
        if conn is None or worker is None:
            raise StoreError(self.path, "the store is closed (or was never started)")
        try:
            return await worker.submit(lambda: work(conn))
        except sqlite3.Error as error:
            raise StoreError(self.path, str(error)) from error

    async def _write_now(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Commit `work` on the event loop's connection, or, when another writer holds the
        file (or the store has none), on the worker like every other call."""
        inline = self._inline
        if inline is not None:
            try:
                return work(inline)
            except sqlite3.OperationalError as error:
                if error.sqlite_errorcode & 0xFF not in (
                    sqlite3.SQLITE_BUSY,
                    sqlite3.SQLITE_LOCKED,
                ):
                    raise StoreError(self.path, str(error)) from error
            except sqlite3.Error as error:
                raise StoreError(self.path, str(error)) from error
        return await self._run(work)

    async def check_writable(self) -> None:
        """Readiness: take the write lock and write, then roll back; `StoreError` saying why
        not (closed, read-only, locked by another process past the busy timeout, disk)."""

        def probe(conn: sqlite3.Connection) -> None:
            conn.execute("BEGIN IMMEDIATE")
            try:
                version: int = conn.execute("PRAGMA user_version").fetchone()[0]
                conn.execute(f"PRAGMA user_version = {version}")
            finally:
                conn.execute("ROLLBACK")

        await self._run(probe)

    # --- asks ------------------------------------------------------------------------------

    async def add(self, record: AskRecord) -> tuple[AskRecord, bool]:
        """See `AskStore.add`. The ask and its `created` event commit together; the
        idempotency key is checked under the write lock, so racing adds make one ask."""

        def add(conn: sqlite3.Connection) -> tuple[AskRecord, bool]:
            with _transaction(conn):
                if record.idempotency_key is not None:
                    row = conn.execute(
                        "SELECT record FROM asks WHERE idempotency_key = ?",
                        (record.idempotency_key,),
                    ).fetchone()
                    if row is not None:
                        return AskRecord.model_validate_json(row[0]), False
                try:
                    conn.execute(
                        "INSERT INTO asks (id, idempotency_key, state, created_at, record)"
                        " VALUES (?, ?, ?, ?, ?)",
                        _ask_row(record),
                    )
                except sqlite3.IntegrityError as error:
                    raise ValueError(f"an ask with id {record.id!r} is already stored") from error
                _append(
                    conn, AskEvent(ask_id=record.id, at=record.created_at, kind=EventKind.CREATED)
                )
            return record, True

        return await self._run(add)

    async def get(self, ask_id: str) -> AskRecord | None:
        """See `AskStore.get`."""

        def get(conn: sqlite3.Connection) -> AskRecord | None:
            row = conn.execute("SELECT record FROM asks WHERE id = ?", (ask_id,)).fetchone()
            return None if row is None else AskRecord.model_validate_json(row[0])

        return await self._run(get)

    async def save(self, record: AskRecord, event: AskEvent) -> None:
        """See `AskStore.save`: the new record and its event commit together, or neither."""
        if event.ask_id != record.id:
            raise ValueError(f"event of ask {event.ask_id!r} saved with ask {record.id!r}")

        def save(conn: sqlite3.Connection) -> None:
            with _transaction(conn):
                # An upsert, not INSERT OR REPLACE: the row keeps its rowid, so asks created
                # at the same instant keep their order.
                conn.execute(
                    "INSERT INTO asks (id, idempotency_key, state, created_at, record)"
                    " VALUES (?, ?, ?, ?, ?)"
                    " ON CONFLICT (id) DO UPDATE SET idempotency_key = excluded.idempotency_key,"
                    " state = excluded.state, created_at = excluded.created_at,"
                    " record = excluded.record",
                    _ask_row(record),
                )
                _append(conn, event)

        await self._run(save)

    async def log(self, event: AskEvent) -> None:
        """See `AskStore.log`. `KeyError` if no ask has `event.ask_id`."""

        def log(conn: sqlite3.Connection) -> None:
            with _transaction(conn):
                try:
                    _append(conn, event)
                except sqlite3.IntegrityError as error:
                    raise KeyError(event.ask_id) from error

        await self._run(log)

    async def pending(self) -> list[AskRecord]:
        """See `AskStore.pending`: oldest first (by created_at, then by when it was added)."""
        return await self._run(
            lambda conn: _records(
                conn.execute(
                    "SELECT record FROM asks WHERE state = ? ORDER BY created_at, rowid",
                    (AskState.PENDING.value,),
                )
            )
        )

    async def recent(self, *, state: AskState | None = None, limit: int = 50) -> list[AskRecord]:
        """See `AskStore.recent`: newest first (by created_at, then latest added)."""
        if state is None:
            query = "SELECT record FROM asks ORDER BY created_at DESC, rowid DESC LIMIT ?"
            params: tuple[object, ...] = (limit,)
        else:
            query = (
                "SELECT record FROM asks WHERE state = ?"
                " ORDER BY created_at DESC, rowid DESC LIMIT ?"
            )
            params = (state.value, limit)
        return await self._run(lambda conn: _records(conn.execute(query, params)))

    async def events(self, ask_id: str) -> list[AskEvent]:
        """See `AskStore.events`: in the order they were appended."""

        def events(conn: sqlite3.Connection) -> list[AskEvent]:
            rows = conn.execute(
                "SELECT at, kind, actor, detail FROM events WHERE ask_id = ? ORDER BY seq",
                (ask_id,),
            )
            return [
                AskEvent(ask_id=ask_id, at=at, kind=EventKind(kind), actor=actor, detail=detail)
                for at, kind, actor, detail in rows
            ]

        return await self._run(events)

    # --- threads ---------------------------------------------------------------------------

    async def thread(self, session: str) -> ThreadRef | None:
        """See `AskStore.thread`."""

        def thread(conn: sqlite3.Connection) -> ThreadRef | None:
            row = conn.execute(
                "SELECT channel, thread_ts FROM threads WHERE session = ?", (session,)
            ).fetchone()
            return None if row is None else ThreadRef(channel=row[0], thread_ts=row[1])

        return await self._run(thread)

    async def set_thread(self, session: str, ref: ThreadRef) -> None:
        """See `AskStore.set_thread`: a later call for the session replaces the thread."""
        await self._run(
            lambda conn: conn.execute(
                "INSERT INTO threads (session, channel, thread_ts) VALUES (?, ?, ?)"
                " ON CONFLICT (session) DO UPDATE"
                " SET channel = excluded.channel, thread_ts = excluded.thread_ts",
                (session, ref.channel, ref.thread_ts),
            )
        )

    # --- across processes ------------------------------------------------------------------

    async def settle(self, record: AskRecord, event: AskEvent) -> bool:
        """See `AskStore.settle`: a conditional UPDATE under the write lock, so processes
        sharing the file settle an ask once."""
        check_settle(record, event)

        def settle(conn: sqlite3.Connection) -> bool:
            with _transaction(conn):
                won = conn.execute(
                    "UPDATE asks SET idempotency_key = ?, state = ?, created_at = ?, record = ?"
                    " WHERE id = ? AND state = ?",
                    (*_ask_row(record)[1:], record.id, AskState.PENDING.value),
                ).rowcount
                if not won:
                    if conn.execute("SELECT 1 FROM asks WHERE id = ?", (record.id,)).fetchone():
                        return False
                    raise KeyError(record.id)
                _append(conn, event)
            return True

        return await self._write_now(settle)

    async def claim_thread(self, session: str, ref: ThreadRef) -> ThreadRef:
        """See `AskStore.claim_thread`: insert-if-absent and read back, under the write lock."""

        def claim(conn: sqlite3.Connection) -> ThreadRef:
            with _transaction(conn):
                conn.execute(
                    "INSERT INTO threads (session, channel, thread_ts) VALUES (?, ?, ?)"
                    " ON CONFLICT (session) DO NOTHING",
                    (session, ref.channel, ref.thread_ts),
                )
                channel, thread_ts = conn.execute(
                    "SELECT channel, thread_ts FROM threads WHERE session = ?", (session,)
                ).fetchone()
            return ThreadRef(channel=channel, thread_ts=thread_ts)

        return await self._run(claim)

    # --- the inbox -------------------------------------------------------------------------

    async def inbox_add(self, item: InboxItem) -> None:
        """See `AskStore.inbox_add`: one autocommitted INSERT (no BEGIN IMMEDIATE), so the
        ack waits for the least the file can do durably."""

        def add(conn: sqlite3.Connection) -> None:
            try:
                conn.execute(
                    "INSERT INTO inbox (id, received_at, kind, body) VALUES (?, ?, ?, ?)",
                    (item.id, item.received_at, item.kind.value, item.body),
                )
            except sqlite3.IntegrityError as error:
                raise ValueError(f"inbox item {item.id} is already stored") from error

        await self._write_now(add)

    async def inbox_done(self, item_id: str) -> None:
        """See `AskStore.inbox_done`."""
        await self._run(lambda conn: conn.execute("DELETE FROM inbox WHERE id = ?", (item_id,)))

    async def inbox_pending(self) -> list[InboxItem]:
        """See `AskStore.inbox_pending`: in order of arrival."""

        def pending(conn: sqlite3.Connection) -> list[InboxItem]:
            rows = conn.execute(
                "SELECT id, received_at, kind, body FROM inbox ORDER BY received_at, seq"
            )
            return [
                InboxItem(id=i, received_at=at, kind=InboxKind(kind), body=body)
                for i, at, kind, body in rows
            ]

        return await self._run(pending)

    async def advance(self, record: AskRecord, event: AskEvent) -> bool:
        """See `AskStore.advance`: a conditional UPDATE on state and version, under the
        write lock."""
        check_advance(record, event)

        def advance(conn: sqlite3.Connection) -> bool:
            with _transaction(conn):
                written = conn.execute(
                    "UPDATE asks SET idempotency_key = ?, state = ?, created_at = ?, record = ?"
                    " WHERE id = ? AND state = ?"
                    " AND coalesce(json_extract(record, '$.version'), 0) = ?",
                    (
                        *_ask_row(record)[1:],
                        record.id,
                        AskState.PENDING.value,
                        record.version - 1,
                    ),
                ).rowcount
                if not written:
                    if conn.execute("SELECT 1 FROM asks WHERE id = ?", (record.id,)).fetchone():
                        return False
                    raise KeyError(record.id)
                _append(conn, event)
            return True

        return await self._run(advance)

    async def lease(self, name: str, owner: str, *, now: float, until: float) -> Lease | None:
        """See `AskStore.lease`: read and taken under the write lock."""

        def lease(conn: sqlite3.Connection) -> Lease | None:
            with _transaction(conn):
                row = conn.execute(
                    "SELECT owner, until FROM leases WHERE name = ?", (name,)
                ).fetchone()
                holder, held_until = row or ("", 0.0)
                granted = lease_for(holder, held_until, owner, now)
                if granted is None:
                    return None
                conn.execute(
                    "INSERT INTO leases (name, owner, until) VALUES (?, ?, ?) ON CONFLICT (name)"
                    " DO UPDATE SET owner = excluded.owner, until = excluded.until",
                    (name, owner, until),
                )
            return granted

        return await self._run(lease)

    async def release(self, name: str, owner: str) -> None:
        """See `AskStore.release`."""
        await self._run(
            lambda conn: conn.execute(
                "DELETE FROM leases WHERE name = ? AND owner = ?", (name, owner)
            )
        )


@contextmanager
def _transaction(conn: sqlite3.Connection) -> Iterator[None]:
    """`BEGIN IMMEDIATE` … `COMMIT`, or `ROLLBACK` on any exception (a failed COMMIT too).

    IMMEDIATE takes the write lock at the start, so a read-then-write (the idempotency
    check, the schema version) cannot race another connection's write between the two.
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:  # some errors (e.g. a full disk) have rolled back already
            conn.execute("ROLLBACK")
        raise


def _use_wal(conn: sqlite3.Connection) -> None:
    """Switch the file to WAL, waiting out other connections that are opening it too.

    The switch needs the file alone, and SQLite reports "database is locked" at once
    instead of calling the busy handler when another connection holds it, so the wait
    is ours: on the worker thread, up to `BUSY_TIMEOUT_MS`.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as error:
            busy = error.sqlite_errorcode & 0xFF == sqlite3.SQLITE_BUSY
            if not busy or time.monotonic() >= deadline:
                raise
        time.sleep(0.005)


def _close_all(connections: list[sqlite3.Connection]) -> None:
    for conn in connections:
        conn.close()


def _ask_row(record: AskRecord) -> tuple[str, str | None, str, float, str]:
    return (
        record.id,
        record.idempotency_key,
        record.state.value,
        record.created_at,
        record.model_dump_json(),
    )


def _append(conn: sqlite3.Connection, event: AskEvent) -> None:
    conn.execute(
        "INSERT INTO events (ask_id, at, kind, actor, detail) VALUES (?, ?, ?, ?, ?)",
        (event.ask_id, event.at, event.kind.value, event.actor, event.detail),
    )


def _records(rows: sqlite3.Cursor) -> list[AskRecord]:
    return [AskRecord.model_validate_json(text) for (text,) in rows]
