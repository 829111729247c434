"""`SqliteFile`: how `SqliteStore`'s calls reach its SQLite file, and the file's schema.

Every sqlite3 call but one kind runs on one worker thread that the file owns
(`StoreThread`): the connection is opened on that thread, used only there (sqlite3's own
same-thread check stays on to prove it), and closed there. One worker also serialises the
store's calls, so a transaction never interleaves with another of the same store. A call
whose caller is cancelled still runs to the end (commit or rollback) on the worker.

The exception is the hot paths' writes (issue 13, issue 28): creating an ask, recording its
post, settling it, marking it shown and keeping a click in the inbox are committed where
they are asked for, on the event loop, through a second connection
(opened by the worker, then used only on the loop) that never makes the loop wait on
another writer or a sync: it never waits for a lock (`busy_timeout` 0: when another
writer holds the file, the write goes to the worker as usual), never checkpoints (the
worker's connection does), and under WAL with `synchronous=NORMAL` a commit is an append to
the log, with no fsync. A hop to the worker and back costs a thread wake-up and two GIL
hand-offs on the way to the waiting agent: a settle took 0.37 ms at the median and 5.2 ms
at p95 through the worker (the worker waiting out the interpreter's 5 ms switch interval
for the GIL), 0.22 and 0.45 ms on the loop (`bench/sqlite_inline.py`, 2-core machine).
Since that connection never checkpoints, every `CHECKPOINT_EVERY` commits on it the worker
is given a passive checkpoint to run, so the log is folded back into the file as before
(SQLite's own autocheckpoint runs on the committing connection, and most commits are now
the loop's).

Durability: WAL journal with `synchronous=NORMAL`. A committed write survives the process
being killed (SIGKILL included); after a power cut the last few commits may roll back, but
the file stays consistent. Several processes may share the file: writers take the lock at
`BEGIN IMMEDIATE` and wait up to `BUSY_TIMEOUT_MS` for each other.

`PRAGMA user_version` is the schema version; `MIGRATIONS` takes a file forward.

Permissions: the file holds every question and answer (typed secrets included), so only
its owner may read it. A new file is created 0600 whatever the umask, and SQLite gives its
-wal and -shm the main file's mode. An existing file, -wal or -shm that others may read or
write (0644, from an older version or a umask) loses those bits, with a WARNING naming it;
a mode stricter than that is left as the operator made it.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import stat
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import TypeVar

from bot.store.sqlite_thread import StoreThread

T = TypeVar("T")

log = logging.getLogger(__name__)

OWNER_ONLY = 0o600
_OTHERS = 0o077  # group and others: read, write, execute

BUSY_TIMEOUT_MS = 5000
INLINE_CACHE_KIB = 256  # the event loop's connection's page cache (SQLite's default: 2 MiB)
# Commits on the loop's connection between two checkpoints run by the worker. A hot-path
# commit appends a few pages to the log; SQLite's own autocheckpoint is at 1,000 pages.
CHECKPOINT_EVERY = 100

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
        # Acked Slack interactions not yet handled (bot/interactions/intake.py); `seq` keeps arrival order.
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
    (
        # Agent credentials of the relay (bot/service/principals.py): the record as JSON
        # (the secret's sha256, never the secret). `asks.agent_id`, read from the record,
        # lets an agent's list be filtered in the query, by index.
        "ALTER TABLE asks ADD COLUMN agent_id TEXT"
        " GENERATED ALWAYS AS (json_extract(record, '$.agent_id')) VIRTUAL",
        "CREATE INDEX IF NOT EXISTS asks_by_agent ON asks (agent_id, created_at)",
        """CREATE TABLE IF NOT EXISTS credentials (
            id TEXT PRIMARY KEY,
            created_at REAL NOT NULL,
            record TEXT NOT NULL
        )""",
    ),
    (
        # Retention (SLACK_QUESTIONS_RETENTION, `python -m bot erase`): an event may go, but
        # only with its ask, which is deleted first in the same transaction; alone, an event
        # is still never deleted (nor ever updated).
        "DROP TRIGGER IF EXISTS events_are_never_deleted",
        """CREATE TRIGGER IF NOT EXISTS events_go_only_with_their_ask BEFORE DELETE ON events
        WHEN EXISTS (SELECT 1 FROM asks WHERE id = OLD.ask_id)
        BEGIN SELECT RAISE(ABORT, 'events are append-only: they are deleted only with their ask');
        END""",
    ),
    (
        # Grants of tool calls made by reviewers (bot/asks/automatic.py): the record as JSON;
        # a revoked one is kept (who revoked it, when), an expired one too.
        """CREATE TABLE IF NOT EXISTS grants (
            id TEXT PRIMARY KEY,
            created_at REAL NOT NULL,
            record TEXT NOT NULL
        )""",
    ),
    (
        # The tamper-evident decision log (bot/store/audit.py): `audit_head` is the chain's
        # last link (read and moved under the write lock), `audit_anchor` the last link a
        # purge removed, `audit_published` the heads posted to the audit channel.
        """CREATE TABLE IF NOT EXISTS audit (
            seq INTEGER PRIMARY KEY,
            at REAL NOT NULL,
            kind TEXT NOT NULL,
            ask_id TEXT,
            actor TEXT,
            payload TEXT NOT NULL,
            prev_mac TEXT NOT NULL,
            mac TEXT NOT NULL
        )""",
        "CREATE TABLE IF NOT EXISTS audit_head (one INTEGER PRIMARY KEY CHECK (one = 1),"
        " seq INTEGER NOT NULL, mac TEXT NOT NULL)",
        "CREATE TABLE IF NOT EXISTS audit_anchor (one INTEGER PRIMARY KEY CHECK (one = 1),"
        " seq INTEGER NOT NULL, mac TEXT NOT NULL)",
        "CREATE TABLE IF NOT EXISTS audit_published (seq INTEGER NOT NULL, mac TEXT NOT NULL,"
        " at REAL NOT NULL)",
    ),
    (
        # Claims (bot/asks/claim_lapses.py): who holds a pending ask, read from the record,
        # so the asks one person holds are found by index. A new step also tells older code
        # that records now carry `holder`, which it cannot read: it refuses the file instead.
        "ALTER TABLE asks ADD COLUMN holder TEXT"
        " GENERATED ALWAYS AS (json_extract(record, '$.holder')) VIRTUAL",
        "CREATE INDEX IF NOT EXISTS asks_by_holder ON asks (holder, created_at)",
    ),
    (
        # Review of decided asks (bot/interactions/feedback.py): one row per ask and person,
        # their latest verdict ("right" / "wrong") and note; deleted with the ask.
        """CREATE TABLE IF NOT EXISTS feedback (
            ask_id TEXT NOT NULL,
            person TEXT NOT NULL,
            verdict TEXT,
            note TEXT,
            at REAL NOT NULL,
            PRIMARY KEY (ask_id, person)
        )""",
    ),
    (
        # Rules saved with "Always allow" (bot/asks/automatic.py): keyed by name, so a name is
        # taken once; the record as JSON.
        """CREATE TABLE IF NOT EXISTS stored_rules (
            name TEXT PRIMARY KEY,
            created_at REAL NOT NULL,
            record TEXT NOT NULL
        )""",
    ),
    (
        # Out-of-office delegations (bot/delegation.py): one per delegator, the record as
        # JSON; one turned off keeps its row (`ended_at`).
        """CREATE TABLE IF NOT EXISTS delegations (
            delegator TEXT PRIMARY KEY,
            record TEXT NOT NULL
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
    with transaction(conn):
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


class SqliteFile:
    """A SQLite file opened for the store: the worker thread with its connection, the event
    loop's connection, and the two ways a call reaches them (`run`, `write_now`)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._worker: StoreThread | None = None
        self._conn: sqlite3.Connection | None = None
        # Opened by the worker, used only on the event loop (see the module docstring).
        self.inline: sqlite3.Connection | None = None
        self._inline_commits = 0  # since the last checkpoint given to the worker

    async def start(self) -> None:
        """Open the file on a worker thread of its own and bring its schema up to date."""
        if self._worker is not None:
            raise StoreError(self.path, "the store is already started")
        worker = StoreThread("sqlite-store")
        opened: list[sqlite3.Connection] = []

        def connect() -> tuple[sqlite3.Connection, sqlite3.Connection | None]:
            opened.append(conn := _connect(self.path))
            if str(self.path) == ":memory:":
                return conn, None  # a second connection would open another, empty database
            opened.append(inline := _connect_inline(self.path))
            return conn, inline

        try:
            self._conn, self.inline = await worker.submit(connect)
        except BaseException:
            # Failed, or cancelled while connecting: whatever the worker opens, it closes
            # next (one worker, so this runs after the connect has finished).
            worker.submit(lambda: _close_all(opened))
            worker.stop()
            raise
        self._worker = worker

    async def close(self) -> None:
        """Close the connections on the worker and let the thread go. Closing twice is fine."""
        conn, inline, worker = self._conn, self.inline, self._worker
        self._conn = self.inline = self._worker = None
        if worker is None:
            return
        try:
            if conn is not None:
                await worker.submit(lambda: _close_all([c for c in (inline, conn) if c]))
        finally:
            # The close above was the last job: the worker exits at once, nothing to wait for.
            worker.stop()

    async def run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run `work` on the worker thread; SQLite's own errors become `StoreError`."""
        conn, worker = self._conn, self._worker
        if conn is None or worker is None:
            raise StoreError(self.path, "the store is closed (or was never started)")
        try:
            return await worker.submit(lambda: work(conn))
        except sqlite3.Error as error:
            raise StoreError(self.path, str(error)) from error

    async def write_now(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Commit `work` on the event loop's connection, or, when another writer holds the
        file (or the store has none), on the worker like every other call."""
        return await self._on_loop(work, commits=True)

    async def read_now(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run `work`, one read by primary key, on the event loop's connection: the hop to the
        worker and back costs more than the read (on the worker when the file is busy)."""
        return await self._on_loop(work, commits=False)

    async def _on_loop(self, work: Callable[[sqlite3.Connection], T], *, commits: bool) -> T:
        inline = self.inline
        if inline is not None:
            try:
                done = work(inline)
            except sqlite3.OperationalError as error:
                if error.sqlite_errorcode & 0xFF not in (
                    sqlite3.SQLITE_BUSY,
                    sqlite3.SQLITE_LOCKED,
                ):
                    raise StoreError(self.path, str(error)) from error
            except sqlite3.Error as error:
                raise StoreError(self.path, str(error)) from error
            else:
                if commits:
                    self._count_inline_commit()
                return done
        return await self.run(work)

    def _count_inline_commit(self) -> None:
        self._inline_commits += 1
        if self._inline_commits < CHECKPOINT_EVERY or self._worker is None:
            return
        self._inline_commits = 0
        # Not awaited: the worker runs it after the jobs before it, and `close` after it.
        self._worker.submit(partial(_checkpoint, self._conn, self.path))

    async def check_writable(self) -> None:
        """Take the write lock and write, then roll back; `StoreError` saying why not
        (closed, read-only, locked by another process past the busy timeout, disk)."""

        def probe(conn: sqlite3.Connection) -> None:
            conn.execute("BEGIN IMMEDIATE")
            try:
                version: int = conn.execute("PRAGMA user_version").fetchone()[0]
                conn.execute(f"PRAGMA user_version = {version}")
            finally:
                conn.execute("ROLLBACK")

        await self.run(probe)


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[None]:
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


def owner_only(path: Path) -> None:
    """Take group and others' bits off `path` if it exists (never adding any), with a
    WARNING when there were some; `StoreError` if they cannot be taken off."""
    try:
        found = stat.S_IMODE(os.stat(path).st_mode)
        if not found & _OTHERS:
            return
        os.chmod(path, found & ~_OTHERS)
    except FileNotFoundError:
        return
    except OSError as error:
        problem = f"cannot make it readable by its owner only ({error.strerror})"
        raise StoreError(path, problem) from error
    log.warning(
        "ask store %s: other users could read or write it (mode %04o); made it %04o",
        path,
        found,
        found & ~_OTHERS,
    )


def _create_owner_only(path: Path) -> None:
    """Create `path` empty and 0600 (an empty file is a new database to SQLite) unless it
    exists; where it cannot be created, SQLite says why when it tries."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, OWNER_ONLY)
    except OSError:
        return
    try:
        os.fchmod(fd, OWNER_ONLY)  # the umask may have taken bits off: exactly 0600
    finally:
        os.close(fd)


def _companions(path: Path) -> tuple[Path, ...]:
    """The file and the two SQLite keeps beside it in WAL mode."""
    return (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm"))


def _connect(path: Path) -> sqlite3.Connection:
    """The worker's connection, with the file migrated to the current schema."""
    on_disk = str(path) not in ("", ":memory:")
    if on_disk:
        _create_owner_only(path)
        for existing in _companions(path):
            owner_only(existing)
    try:
        conn = sqlite3.connect(path, isolation_level=None)
    except sqlite3.Error as error:
        raise StoreError(path, f"cannot open it ({error})") from error
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        _use_wal(conn)
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
        migrate(conn, path)
        if on_disk:
            # Whatever SQLite created just now (-wal, -shm), and however it chose the mode.
            for created in _companions(path):
                owner_only(created)
    except StoreError:
        conn.close()
        raise
    except sqlite3.Error as error:
        conn.close()
        raise StoreError(path, f"cannot open it ({error})") from error
    return conn


def _connect_inline(path: Path) -> sqlite3.Connection:
    """The event loop's connection (opened after `_connect` has migrated the file)."""
    try:
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    except sqlite3.Error as error:
        raise StoreError(path, f"cannot open it ({error})") from error
    try:
        conn.execute("PRAGMA busy_timeout = 0")  # a held lock sends the write to the worker
        conn.execute("PRAGMA wal_autocheckpoint = 0")  # a checkpoint may fsync: the worker's
        # Its work is single-row writes and lookups by key, which touch a few pages: a small
        # page cache, so it does not keep SQLite's default 2 MiB on top of the worker's.
        conn.execute(f"PRAGMA cache_size = -{INLINE_CACHE_KIB}")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
    except sqlite3.Error as error:
        conn.close()
        raise StoreError(path, f"cannot open it ({error})") from error
    return conn


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


def _checkpoint(conn: sqlite3.Connection | None, path: Path) -> None:
    """Fold the log into the file without waiting for anyone (PASSIVE), on the worker; a
    checkpoint that cannot run now is done by a later one, so a failure is only logged."""
    if conn is None:
        return
    try:
        conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
    except sqlite3.Error as error:
        log.warning("ask store %s: a checkpoint failed: %s", path, error)


def _close_all(connections: list[sqlite3.Connection]) -> None:
    for conn in connections:
        conn.close()
