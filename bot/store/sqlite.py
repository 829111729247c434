"""`SqliteStore`: the `AskStore` on one SQLite file, so asks survive a restart of the bot.

This module holds the store's queries; how they reach the file (one worker thread, and the
event loop's own connection for the hot paths' commits: add, save, advance, settle, inbox_add), its durability and its schema
migrations are `SqliteFile`'s (bot/store/sqlite_file.py).

Layout (`MIGRATIONS` in sqlite_file.py):
- `asks`: the record as JSON, beside the columns we query by (id, idempotency key, state,
  created_at). The JSON is the truth; the columns are written from it in the same statement.
- `events`: append-only (triggers refuse UPDATE, and DELETE but of an ask's events after the
  ask itself: retention), ordered by `seq`.
- `threads`: the thread each agent session posts in.
- `inbox`: Slack interactions stored before their ack, deleted once handled.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Collection
from pathlib import Path
from typing import Literal

from bot.store import (
    AskEvent,
    AskRecord,
    AskState,
    Credential,
    Delegation,
    EventKind,
    Feedback,
    FeedbackVerdict,
    Grant,
    InboxItem,
    Lease,
    StoredRule,
    ThreadRef,
    check_advance,
    check_settle,
    lease_for,
)
from bot.store.audit import (
    OFFLINE_AUDIT_KEY,
    AuditEntry,
    AuditKind,
    AuditLink,
    AuditPayload,
    AuditRow,
    chained,
    entry_of,
)
from bot.store.connected import Connected
from bot.store.protocol import named_leases, thread_lease
from bot.store.queries import AskPage, AskQuery, PageCursor, check_limit, page_filter, page_of
from bot.store.rows import (
    ask_row,
    audit_row_from,
    event_row,
    events_from,
    inbox_from,
    recent_filter,
    records_from,
    thread_from,
)
from bot.store.sqlite_file import (
    BUSY_TIMEOUT_MS,
    MIGRATIONS,
    SCHEMA_VERSION,
    SqliteFile,
    StoreError,
    migrate,
    transaction,
)

__all__ = [
    "BUSY_TIMEOUT_MS",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "SqliteStore",
    "StoreError",
    "migrate",
]


class SqliteStore(Connected[SqliteFile]):
    """An `AskStore` on a SQLite file. `await SqliteStore.open(path)`; `await close()`.

    Also an async context manager: `async with SqliteStore(path) as store: ...`.
    """

    def __init__(self, path: str | Path, *, audit_key: bytes = OFFLINE_AUDIT_KEY) -> None:
        super().__init__(SqliteFile(Path(path)))
        self.path = self._db.path
        self._audit_key = audit_key

    @classmethod
    async def open(cls, path: str | Path, *, audit_key: bytes = OFFLINE_AUDIT_KEY) -> SqliteStore:
        """A started store on `path` (created with the current schema if absent)."""
        store = cls(path, audit_key=audit_key)
        await store.start()
        return store

    # --- asks ------------------------------------------------------------------------------

    async def add(self, record: AskRecord) -> tuple[AskRecord, bool]:
        """See `AskStore.add`. The ask and its `created` event commit together; the
        idempotency key is checked under the write lock, so racing adds make one ask."""

        def add(conn: sqlite3.Connection) -> tuple[AskRecord, bool]:
            with transaction(conn):
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
                        ask_row(record),
                    )
                except sqlite3.IntegrityError as error:
                    raise ValueError(f"an ask with id {record.id!r} is already stored") from error
                _append(
                    conn,
                    self._audit_key,
                    AskEvent(ask_id=record.id, at=record.created_at, kind=EventKind.CREATED),
                )
            return record, True

        # On the loop's connection, no hop to the worker: the agent's 201 and the post wait on it.
        return await self._db.write_now(add)

    async def get(self, ask_id: str) -> AskRecord | None:
        """See `AskStore.get`."""

        def get(conn: sqlite3.Connection) -> AskRecord | None:
            row = conn.execute("SELECT record FROM asks WHERE id = ?", (ask_id,)).fetchone()
            return None if row is None else AskRecord.model_validate_json(row[0])

        return await self._db.run(get)

    async def save(self, record: AskRecord, event: AskEvent) -> None:
        """See `AskStore.save`: the new record and its event commit together, or neither."""
        if event.ask_id != record.id:
            raise ValueError(f"event of ask {event.ask_id!r} saved with ask {record.id!r}")

        def save(conn: sqlite3.Connection) -> None:
            with transaction(conn):
                # An upsert, not INSERT OR REPLACE: the row keeps its rowid, so asks created
                # at the same instant keep their order.
                conn.execute(
                    "INSERT INTO asks (id, idempotency_key, state, created_at, record)"
                    " VALUES (?, ?, ?, ?, ?)"
                    " ON CONFLICT (id) DO UPDATE SET idempotency_key = excluded.idempotency_key,"
                    " state = excluded.state, created_at = excluded.created_at,"
                    " record = excluded.record",
                    ask_row(record),
                )
                _append(conn, self._audit_key, event)

        await self._db.write_now(save)

    async def log(self, event: AskEvent) -> None:
        """See `AskStore.log`. `KeyError` if no ask has `event.ask_id`."""

        def log(conn: sqlite3.Connection) -> None:
            with transaction(conn):
                try:
                    _append(conn, self._audit_key, event)
                except sqlite3.IntegrityError as error:
                    raise KeyError(event.ask_id) from error

        await self._db.run(log)

    async def pending(self) -> list[AskRecord]:
        """See `AskStore.pending`: oldest first (by created_at, then by when it was added)."""
        return await self._db.run(
            lambda conn: records_from(
                conn.execute(
                    "SELECT record FROM asks WHERE state = ? ORDER BY created_at, rowid",
                    (AskState.PENDING.value,),
                )
            )
        )

    async def recent(
        self,
        *,
        state: AskState | None = None,
        limit: int = 50,
        agents: Collection[str] | None = None,
    ) -> list[AskRecord]:
        """See `AskStore.recent`: newest first (by created_at, then latest added)."""
        where, params = recent_filter(state, agents, "?")
        query = f"SELECT record FROM asks{where} ORDER BY created_at DESC, rowid DESC LIMIT ?"
        return await self._db.run(lambda conn: records_from(conn.execute(query, (*params, limit))))

    async def events(self, ask_id: str) -> list[AskEvent]:
        """See `AskStore.events`: in the order they were appended."""

        def events(conn: sqlite3.Connection) -> list[AskEvent]:
            rows = conn.execute(
                "SELECT at, kind, actor, detail FROM events WHERE ask_id = ? ORDER BY seq",
                (ask_id,),
            )
            return events_from(ask_id, rows)

        return await self._db.run(events)

    # --- threads ---------------------------------------------------------------------------

    async def thread(self, session: str) -> ThreadRef | None:
        """See `AskStore.thread`."""

        def thread(conn: sqlite3.Connection) -> ThreadRef | None:
            row = conn.execute(
                "SELECT channel, thread_ts FROM threads WHERE session = ?", (session,)
            ).fetchone()
            return thread_from(row)

        # Read for every ask of a session before it is posted: no hop to the worker.
        return await self._db.read_now(thread)

    async def set_thread(self, session: str, ref: ThreadRef) -> None:
        """See `AskStore.set_thread`: a later call for the session replaces the thread."""
        await self._db.run(
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
            with transaction(conn):
                won = conn.execute(
                    "UPDATE asks SET idempotency_key = ?, state = ?, created_at = ?, record = ?"
                    " WHERE id = ? AND state = ?",
                    (*ask_row(record)[1:], record.id, AskState.PENDING.value),
                ).rowcount
                if not won:
                    return _not_written(conn, record.id)
                _append(conn, self._audit_key, event)
            return True

        return await self._db.write_now(settle)

    async def claim_thread(self, session: str, ref: ThreadRef) -> ThreadRef:
        """See `AskStore.claim_thread`: insert-if-absent and read back, under the write lock."""

        def claim(conn: sqlite3.Connection) -> ThreadRef:
            with transaction(conn):
                conn.execute(
                    "INSERT INTO threads (session, channel, thread_ts) VALUES (?, ?, ?)"
                    " ON CONFLICT (session) DO NOTHING",
                    (session, ref.channel, ref.thread_ts),
                )
                channel, thread_ts = conn.execute(
                    "SELECT channel, thread_ts FROM threads WHERE session = ?", (session,)
                ).fetchone()
            return ThreadRef(channel=channel, thread_ts=thread_ts)

        return await self._db.run(claim)

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

        await self._db.write_now(add)

    async def inbox_done(self, item_id: str) -> None:
        """See `AskStore.inbox_done`."""
        await self._db.run(lambda conn: conn.execute("DELETE FROM inbox WHERE id = ?", (item_id,)))

    async def inbox_pending(self) -> list[InboxItem]:
        """See `AskStore.inbox_pending`: in order of arrival."""

        def pending(conn: sqlite3.Connection) -> list[InboxItem]:
            rows = conn.execute(
                "SELECT id, received_at, kind, body FROM inbox ORDER BY received_at, seq"
            )
            return inbox_from(rows)

        return await self._db.run(pending)

    async def advance(self, record: AskRecord, event: AskEvent) -> bool:
        """See `AskStore.advance`: a conditional UPDATE on state and version, under the
        write lock."""
        check_advance(record, event)

        def advance(conn: sqlite3.Connection) -> bool:
            with transaction(conn):
                written = conn.execute(
                    "UPDATE asks SET idempotency_key = ?, state = ?, created_at = ?, record = ?"
                    " WHERE id = ? AND state = ?"
                    " AND coalesce(json_extract(record, '$.version'), 0) = ?",
                    (
                        *ask_row(record)[1:],
                        record.id,
                        AskState.PENDING.value,
                        record.version - 1,
                    ),
                ).rowcount
                if not written:
                    return _not_written(conn, record.id)
                _append(conn, self._audit_key, event)
            return True

        # On the loop's connection, no hop to the worker: the next post and a click wait on it.
        return await self._db.write_now(advance)

    async def lease(self, name: str, owner: str, *, now: float, until: float) -> Lease | None:
        """See `AskStore.lease`: read and taken under the write lock."""

        def lease(conn: sqlite3.Connection) -> Lease | None:
            with transaction(conn):
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

        return await self._db.run(lease)

    async def release(self, name: str, owner: str) -> None:
        """See `AskStore.release`."""
        await self._db.run(
            lambda conn: conn.execute(
                "DELETE FROM leases WHERE name = ? AND owner = ?", (name, owner)
            )
        )

    # --- credentials -----------------------------------------------------------------------

    async def add_credential(self, credential: Credential) -> None:
        """See `AskStore.add_credential`."""

        def add(conn: sqlite3.Connection) -> None:
            try:
                conn.execute(
                    "INSERT INTO credentials (id, created_at, record) VALUES (?, ?, ?)",
                    (credential.id, credential.created_at, credential.model_dump_json()),
                )
            except sqlite3.IntegrityError as error:
                raise ValueError(f"credential {credential.id} is already stored") from error

        await self._db.run(add)

    async def credential(self, credential_id: str) -> Credential | None:
        """See `AskStore.credential`."""

        def one(conn: sqlite3.Connection) -> Credential | None:
            row = conn.execute(
                "SELECT record FROM credentials WHERE id = ?", (credential_id,)
            ).fetchone()
            return None if row is None else Credential.model_validate_json(row[0])

        return await self._db.run(one)

    async def credentials(self) -> list[Credential]:
        """See `AskStore.credentials`: oldest first."""

        def every(conn: sqlite3.Connection) -> list[Credential]:
            rows = conn.execute("SELECT record FROM credentials ORDER BY created_at, rowid")
            return [Credential.model_validate_json(row[0]) for row in rows]

        return await self._db.run(every)

    async def revoke_credential(self, credential_id: str, at: float) -> Credential | None:
        """See `AskStore.revoke_credential`: read and written under the write lock."""

        def revoke(conn: sqlite3.Connection) -> Credential | None:
            with transaction(conn):
                row = conn.execute(
                    "SELECT record FROM credentials WHERE id = ?", (credential_id,)
                ).fetchone()
                if row is None:
                    return None
                stored = Credential.model_validate_json(row[0])
                if stored.revoked_at is None:
                    stored = stored.model_copy(update={"revoked_at": at})
                    conn.execute(
                        "UPDATE credentials SET record = ? WHERE id = ?",
                        (stored.model_dump_json(), credential_id),
                    )
            return stored

        return await self._db.run(revoke)

    # --- grants ----------------------------------------------------------------------------

    async def add_grant(self, grant: Grant) -> None:
        """See `AskStore.add_grant`."""

        def add(conn: sqlite3.Connection) -> None:
            try:
                conn.execute(
                    "INSERT INTO grants (id, created_at, record) VALUES (?, ?, ?)",
                    (grant.id, grant.created_at, grant.model_dump_json()),
                )
            except sqlite3.IntegrityError as error:
                raise ValueError(f"grant {grant.id} is already stored") from error

        await self._db.run(add)

    async def grants(self) -> list[Grant]:
        """See `AskStore.grants`: oldest first."""

        def every(conn: sqlite3.Connection) -> list[Grant]:
            rows = conn.execute("SELECT record FROM grants ORDER BY created_at, rowid")
            return [Grant.model_validate_json(row[0]) for row in rows]

        return await self._db.run(every)

    async def revoke_grant(self, grant_id: str, by: str, at: float) -> Grant | None:
        """See `AskStore.revoke_grant`: read and written under the write lock."""

        def revoke(conn: sqlite3.Connection) -> Grant | None:
            with transaction(conn):
                row = conn.execute("SELECT record FROM grants WHERE id = ?", (grant_id,)).fetchone()
                if row is None:
                    return None
                stored = Grant.model_validate_json(row[0])
                if stored.revoked_at is None:
                    stored = stored.model_copy(update={"revoked_at": at, "revoked_by": by})
                    conn.execute(
                        "UPDATE grants SET record = ? WHERE id = ?",
                        (stored.model_dump_json(), grant_id),
                    )
            return stored

        return await self._db.run(revoke)

    # --- feedback --------------------------------------------------------------------------

    async def give_feedback(self, feedback: Feedback) -> None:
        """See `AskStore.give_feedback`: one upsert."""

        def give(conn: sqlite3.Connection) -> None:
            with transaction(conn):
                conn.execute(
                    "INSERT INTO feedback (ask_id, person, verdict, note, at)"
                    " VALUES (?, ?, ?, ?, ?) ON CONFLICT (ask_id, person) DO UPDATE SET"
                    " verdict = coalesce(excluded.verdict, feedback.verdict),"
                    " note = coalesce(excluded.note, feedback.note), at = excluded.at",
                    _feedback_row(feedback),
                )

        await self._db.run(give)

    async def feedback(self, ask_ids: Collection[str]) -> list[Feedback]:
        """See `AskStore.feedback`."""
        wanted = sorted(set(ask_ids))

        def given(conn: sqlite3.Connection) -> list[Feedback]:
            marks = ", ".join("?" * len(wanted))
            rows = conn.execute(
                "SELECT ask_id, person, verdict, note, at FROM feedback"
                f" WHERE ask_id IN ({marks}) ORDER BY at, ask_id, person",
                wanted,
            ).fetchall()
            return [_feedback_of(row) for row in rows]

        return await self._db.run(given) if wanted else []

    # --- stored rules ----------------------------------------------------------------------

    async def add_rule(self, rule: StoredRule) -> None:
        """See `AskStore.add_rule`."""

        def add(conn: sqlite3.Connection) -> None:
            try:
                conn.execute(
                    "INSERT INTO stored_rules (name, created_at, record) VALUES (?, ?, ?)",
                    (rule.name, rule.created_at, rule.model_dump_json()),
                )
            except sqlite3.IntegrityError as error:
                raise ValueError(f"a rule named {rule.name} is already stored") from error

        await self._db.run(add)

    async def rules(self) -> list[StoredRule]:
        """See `AskStore.rules`: oldest first."""

        def every(conn: sqlite3.Connection) -> list[StoredRule]:
            rows = conn.execute("SELECT record FROM stored_rules ORDER BY created_at, rowid")
            return [StoredRule.model_validate_json(row[0]) for row in rows]

        return await self._db.run(every)

    async def revoke_rule(self, name: str, by: str, at: float) -> StoredRule | None:
        """See `AskStore.revoke_rule`: read and written under the write lock (the record is
        rewritten whole: SQLite's JSON functions would round `at` to 15 digits)."""

        def revoke(conn: sqlite3.Connection) -> StoredRule | None:
            with transaction(conn):
                row = conn.execute(
                    "SELECT record FROM stored_rules WHERE name = ?", (name,)
                ).fetchone()
                if row is None:
                    return None
                stored = StoredRule.model_validate_json(row[0])
                if stored.revoked_at is None:
                    stored = stored.model_copy(update={"revoked_at": at, "revoked_by": by})
                    conn.execute(
                        "UPDATE stored_rules SET record = ? WHERE name = ?",
                        (stored.model_dump_json(), name),
                    )
            return stored

        return await self._db.run(revoke)

    # --- delegations -----------------------------------------------------------------------

    async def set_delegation(self, delegation: Delegation) -> None:
        """See `AskStore.set_delegation`: one upsert."""

        def put(conn: sqlite3.Connection) -> None:
            with transaction(conn):
                conn.execute(
                    "INSERT INTO delegations (delegator, record) VALUES (?, ?)"
                    " ON CONFLICT (delegator) DO UPDATE SET record = excluded.record",
                    (delegation.delegator, delegation.model_dump_json()),
                )

        await self._db.run(put)

    async def delegations(self) -> list[Delegation]:
        """See `AskStore.delegations`: by delegator."""

        def every(conn: sqlite3.Connection) -> list[Delegation]:
            rows = conn.execute("SELECT record FROM delegations ORDER BY delegator")
            return [Delegation.model_validate_json(row[0]) for row in rows]

        return await self._db.run(every)

    async def end_delegation(self, delegator: str, at: float) -> Delegation | None:
        """See `AskStore.end_delegation`: read and written under the write lock."""

        def end(conn: sqlite3.Connection) -> Delegation | None:
            with transaction(conn):
                row = conn.execute(
                    "SELECT record FROM delegations WHERE delegator = ?", (delegator,)
                ).fetchone()
                if row is None:
                    return None
                stored = Delegation.model_validate_json(row[0])
                if stored.ended_at is None:
                    stored = stored.model_copy(update={"ended_at": at})
                    conn.execute(
                        "UPDATE delegations SET record = ? WHERE delegator = ?",
                        (stored.model_dump_json(), delegator),
                    )
            return stored

        return await self._db.run(end)

    # --- retention -------------------------------------------------------------------------

    async def purge(self, before: float, *, keep: Collection[str] = ()) -> int:
        """See `AskStore.purge`: one transaction on the worker."""

        def purge(conn: sqlite3.Connection) -> int:
            with transaction(conn):
                rows = conn.execute(
                    "SELECT id, json_extract(record, '$.agent_id') FROM asks WHERE state != ?"
                    " AND coalesce(json_extract(record, '$.decided_at'), created_at) < ?",
                    (AskState.PENDING.value, before),
                ).fetchall()
                expired = [(ask_id, session) for ask_id, session in rows if ask_id not in keep]
                _delete_asks(conn, [ask_id for ask_id, _ in expired])
                sessions = {session for _, session in expired if session is not None}
                for session in sessions:
                    unused = conn.execute(
                        "DELETE FROM threads WHERE session = ? AND NOT EXISTS (SELECT 1 FROM"
                        " asks WHERE json_extract(record, '$.agent_id') = ?)",
                        (session, session),
                    ).rowcount
                    if unused:
                        conn.execute("DELETE FROM leases WHERE name = ?", (thread_lease(session),))
                conn.execute("DELETE FROM inbox WHERE received_at < ?", (before,))
                _purge_audit(conn, self._audit_key, before, len(expired))
            return len(expired)

        return await self._db.run(purge)

    async def erase(self, ask_id: str) -> bool:
        """See `AskStore.erase`: one transaction on the worker."""

        def erase(conn: sqlite3.Connection) -> bool:
            with transaction(conn):
                row = conn.execute("SELECT state FROM asks WHERE id = ?", (ask_id,)).fetchone()
                if row is None:
                    raise KeyError(ask_id)
                if row[0] == AskState.PENDING.value:
                    return False
                _delete_asks(conn, [ask_id])
                # Interaction bodies carry the ask id in their button values and metadata.
                conn.execute("DELETE FROM inbox WHERE instr(body, ?) > 0", (ask_id,))
                _chain(
                    conn,
                    self._audit_key,
                    AuditEntry(at=time.time(), kind=AuditKind.ERASED, ask_id=ask_id),
                )
            return True

        return await self._db.run(erase)

    # --- the audit chain ------------------------------------------------------------------

    async def audit_append(self, entry: AuditEntry) -> AuditRow:
        """See `AskStore.audit_append`."""

        def append(conn: sqlite3.Connection) -> AuditRow:
            with transaction(conn):
                return _chain(conn, self._audit_key, entry)

        return await self._db.run(append)

    async def audit_rows(self) -> list[AuditRow]:
        """See `AskStore.audit_rows`."""

        def rows(conn: sqlite3.Connection) -> list[AuditRow]:
            found = conn.execute(
                "SELECT seq, at, kind, ask_id, actor, payload, prev_mac, mac FROM audit"
                " ORDER BY seq"
            )
            return [audit_row_from(row) for row in found]

        return await self._db.run(rows)

    async def audit_anchor(self) -> AuditLink | None:
        """See `AskStore.audit_anchor`."""

        def anchor(conn: sqlite3.Connection) -> AuditLink | None:
            row = conn.execute("SELECT seq, mac FROM audit_anchor WHERE one = 1").fetchone()
            return None if row is None else AuditLink(seq=row[0], mac=row[1])

        return await self._db.run(anchor)

    async def audit_publish(self, at: float) -> AuditLink | None:
        """See `AskStore.audit_publish`."""

        def publish(conn: sqlite3.Connection) -> AuditLink | None:
            with transaction(conn):
                row = conn.execute("SELECT seq, mac FROM audit_head WHERE one = 1").fetchone()
                if row is None:
                    return None
                conn.execute(
                    "INSERT INTO audit_published (seq, mac, at) VALUES (?, ?, ?)",
                    (row[0], row[1], at),
                )
            return AuditLink(seq=row[0], mac=row[1])

        return await self._db.run(publish)

    async def audit_published(self) -> AuditLink | None:
        """See `AskStore.audit_published`."""

        def published(conn: sqlite3.Connection) -> AuditLink | None:
            row = conn.execute(
                "SELECT seq, mac FROM audit_published ORDER BY seq DESC, rowid DESC LIMIT 1"
            ).fetchone()
            return None if row is None else AuditLink(seq=row[0], mac=row[1])

        return await self._db.run(published)

    async def asks_between(
        self, query: AskQuery, *, limit: int = 500, after: PageCursor | None = None
    ) -> AskPage:
        """See `AskStore.asks_between`: the range read by `asks_by_age` (or `asks_by_agent`
        for one agent), the other filters in the query."""
        check_limit(limit)
        where, params = page_filter(query, after, "?", _json_text)
        sql = f"SELECT record FROM asks{where} ORDER BY created_at, id LIMIT ?"
        records = await self._db.run(
            lambda conn: records_from(conn.execute(sql, (*params, limit + 1)))
        )
        return page_of(records, limit)


def _json_text(name: str) -> str:
    return f"json_extract(record, '$.{name}')"


def _delete_asks(conn: sqlite3.Connection, ask_ids: list[str]) -> None:
    """Delete asks, then their events (the trigger lets an event go once its ask has), then
    the leases named for them, inside the caller's transaction. The foreign key from events
    to asks is checked at the commit, by when both are gone."""
    conn.execute("PRAGMA defer_foreign_keys = ON")
    conn.executemany("DELETE FROM asks WHERE id = ?", [(ask_id,) for ask_id in ask_ids])
    conn.executemany("DELETE FROM events WHERE ask_id = ?", [(ask_id,) for ask_id in ask_ids])
    conn.executemany("DELETE FROM feedback WHERE ask_id = ?", [(ask_id,) for ask_id in ask_ids])
    conn.executemany(
        "DELETE FROM leases WHERE name = ?",
        [(name,) for ask_id in ask_ids for name in named_leases(ask_id)],
    )


def _append(conn: sqlite3.Connection, key: bytes, event: AskEvent) -> None:
    """Append `event` and its audit row, inside the caller's write transaction."""
    conn.execute(
        "INSERT INTO events (ask_id, at, kind, actor, detail) VALUES (?, ?, ?, ?, ?)",
        event_row(event),
    )
    _chain(conn, key, entry_of(event))


def _chain(conn: sqlite3.Connection, key: bytes, entry: AuditEntry) -> AuditRow:
    """Append `entry` to the audit chain after its head. The caller holds the write lock
    (BEGIN IMMEDIATE), so no other writer, in this process or another, reads the same head."""
    found = conn.execute("SELECT seq, mac FROM audit_head WHERE one = 1").fetchone()
    row = chained(key, entry, None if found is None else AuditLink(seq=found[0], mac=found[1]))
    conn.execute(
        "INSERT INTO audit (seq, at, kind, ask_id, actor, payload, prev_mac, mac)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (row.seq, row.at, row.kind, row.ask_id, row.actor, row.payload, row.prev_mac, row.mac),
    )
    conn.execute(
        "INSERT INTO audit_head (one, seq, mac) VALUES (1, ?, ?) ON CONFLICT (one)"
        " DO UPDATE SET seq = excluded.seq, mac = excluded.mac",
        (row.seq, row.mac),
    )
    return row


def _purge_audit(conn: sqlite3.Connection, key: bytes, before: float, asks: int) -> None:
    """Retention of the log itself: the rows written before `before` go (a prefix of the
    chain), the last one's link is kept as the anchor `verify` starts from, and the purge is
    logged with that anchor, so the chain still verifies."""
    last = conn.execute(
        "SELECT seq, mac FROM audit WHERE seq = (SELECT max(seq) FROM audit WHERE at < ?)",
        (before,),
    ).fetchone()
    if last is None and not asks:
        return
    payload = AuditPayload(purged_asks=asks)
    if last is not None:
        conn.execute("DELETE FROM audit WHERE seq <= ?", (last[0],))
        conn.execute(
            "INSERT INTO audit_anchor (one, seq, mac) VALUES (1, ?, ?) ON CONFLICT (one)"
            " DO UPDATE SET seq = excluded.seq, mac = excluded.mac",
            (last[0], last[1]),
        )
        payload = AuditPayload(purged_asks=asks, through_seq=last[0], anchor_mac=last[1])
    else:
        anchor = conn.execute("SELECT seq, mac FROM audit_anchor WHERE one = 1").fetchone()
        if anchor is not None:  # the anchor stays: the latest purge names it again
            payload = AuditPayload(purged_asks=asks, through_seq=anchor[0], anchor_mac=anchor[1])
    _chain(conn, key, AuditEntry(at=before, kind=AuditKind.PURGED, payload=payload))


def _not_written(conn: sqlite3.Connection, ask_id: str) -> Literal[False]:
    """After a conditional UPDATE that touched no row: False, the ask moved on first;
    `KeyError` if there is no such ask."""
    if conn.execute("SELECT 1 FROM asks WHERE id = ?", (ask_id,)).fetchone() is None:
        raise KeyError(ask_id)
    return False


def _feedback_row(feedback: Feedback) -> tuple[str, str, str | None, str | None, float]:
    verdict = feedback.verdict.value if feedback.verdict is not None else None
    return (feedback.ask_id, feedback.person, verdict, feedback.note, feedback.at)


def _feedback_of(row: tuple[str, str, str | None, str | None, float]) -> Feedback:
    ask_id, person, verdict, note, at = row
    return Feedback(
        ask_id=ask_id,
        person=person,
        verdict=FeedbackVerdict(verdict) if verdict is not None else None,
        note=note,
        at=at,
    )
