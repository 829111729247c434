"""`PostgresStore`: the `AskStore` on a PostgreSQL database that several replicas share.

Same layout and rules as `SqliteStore` (bot/store/sqlite.py), so either can hold a team's
asks; what differs is that other processes write the same rows at the same time:
- `asks`: the record as JSON (the truth), beside the columns we query by. `seq` keeps the
  order asks were added in, for asks created at the same instant.
- `events`: append-only (a trigger refuses UPDATE and TRUNCATE, and DELETE but of an ask's
  events after the ask itself: retention), ordered by `seq`.
- `threads`: the thread each agent session posts in.
- `inbox`: Slack interactions stored before their ack, deleted once handled.

This module holds the store's queries; the pool they run on, its errors and the schema's
migrations are `PostgresPool`'s (bot/store/postgres_pool.py).

Across replicas the row is the truth: `settle` is one conditional UPDATE (`… AND state =
'pending'`) in the transaction that writes its event, so exactly one replica's answer wins;
`claim_thread` is an insert-if-absent on the session key. Every write that changes an ask
is one statement that also appends its event and calls `pg_notify(ASK_CHANNEL, ask_id)`:
one round trip, one transaction; PostgreSQL delivers the notification at commit, never for
a write that rolled back or touched no row (listeners: bot/store/postgres_notify.py).
"""

from __future__ import annotations

import time
from collections.abc import Collection, Sequence
from typing import Literal

from psycopg import errors as pg_errors

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
    GENESIS,
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
from bot.store.postgres_connect import CONNECT_TIMEOUT_S, PostgresStoreError
from bot.store.postgres_pool import (
    APPLICATION_NAME,
    MIGRATION_LOCK,
    MIGRATIONS,
    SCHEMA_VERSION,
    Connection,
    PostgresPool,
    migrate,
)
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

__all__ = [
    "APPLICATION_NAME",
    "ASK_CHANNEL",
    "MIGRATIONS",
    "MIGRATION_LOCK",
    "SCHEMA_VERSION",
    "Connection",
    "PostgresStore",
    "migrate",
]

# Listeners LISTEN on this channel; the payload is the id of the ask that changed.
ASK_CHANNEL = "slack_questions_asks"

_ASK_COLUMNS = "(id, idempotency_key, state, created_at, record)"
_ASK_VALUES = "(%s, %s, %s, %s, %s::jsonb)"


class PostgresStore(Connected[PostgresPool]):
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
        audit_key: bytes = OFFLINE_AUDIT_KEY,
    ) -> None:
        super().__init__(
            PostgresPool(
                url,
                min_connections=min_connections,
                max_connections=max_connections,
                connect_timeout=connect_timeout,
            )
        )
        self.target = self._db.target
        self._audit_key = audit_key

    @classmethod
    async def open(
        cls,
        url: str,
        *,
        min_connections: int = 1,
        max_connections: int = 10,
        connect_timeout: float = CONNECT_TIMEOUT_S,
        audit_key: bytes = OFFLINE_AUDIT_KEY,
    ) -> PostgresStore:
        """A started store on the database at `url`, its schema brought up to date."""
        store = cls(
            url,
            min_connections=min_connections,
            max_connections=max_connections,
            connect_timeout=connect_timeout,
            audit_key=audit_key,
        )
        await store.start()
        return store

    # --- asks ------------------------------------------------------------------------------

    async def add(self, record: AskRecord) -> tuple[AskRecord, bool]:
        """See `AskStore.add`. The ask and its `created` event commit together; the
        unique idempotency key makes racing adds, from any replica, one ask."""
        created = AskEvent(ask_id=record.id, at=record.created_at, kind=EventKind.CREATED)
        async with self._db.transaction() as conn:
            try:
                added = await _write_with_event(
                    conn,
                    self._audit_key,
                    f"INSERT INTO asks {_ASK_COLUMNS} VALUES {_ASK_VALUES}"
                    " ON CONFLICT (idempotency_key) DO NOTHING",
                    ask_row(record),
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
        async with self._db.connection() as conn:
            return await _one_record(conn, "SELECT record::text FROM asks WHERE id = %s", ask_id)

    async def save(self, record: AskRecord, event: AskEvent) -> None:
        """See `AskStore.save`: the new record and its event commit together, or neither."""
        if event.ask_id != record.id:
            raise ValueError(f"event of ask {event.ask_id!r} saved with ask {record.id!r}")
        async with self._db.transaction() as conn:
            # An upsert keeps the row's seq, so asks created at the same instant keep order.
            await _write_with_event(
                conn,
                self._audit_key,
                f"INSERT INTO asks {_ASK_COLUMNS} VALUES {_ASK_VALUES}"
                " ON CONFLICT (id) DO UPDATE SET idempotency_key = excluded.idempotency_key,"
                " state = excluded.state, created_at = excluded.created_at,"
                " record = excluded.record",
                ask_row(record),
                event,
            )

    async def log(self, event: AskEvent) -> None:
        """See `AskStore.log`. `KeyError` if no ask has `event.ask_id`."""
        async with self._db.transaction() as conn:
            try:
                await conn.execute(
                    "INSERT INTO events (ask_id, at, kind, actor, detail)"
                    " VALUES (%s, %s, %s, %s, %s)",
                    event_row(event),
                )
            except pg_errors.ForeignKeyViolation as error:
                raise KeyError(event.ask_id) from error
            await _chain(conn, self._audit_key, entry_of(event))

    async def pending(self) -> list[AskRecord]:
        """See `AskStore.pending`: oldest first (by created_at, then by when it was added)."""
        async with self._db.connection() as conn:
            cursor = await conn.execute(
                "SELECT record::text FROM asks WHERE state = %s ORDER BY created_at, seq",
                (AskState.PENDING.value,),
            )
            return records_from(await cursor.fetchall())

    async def recent(
        self,
        *,
        state: AskState | None = None,
        limit: int = 50,
        agents: Collection[str] | None = None,
    ) -> list[AskRecord]:
        """See `AskStore.recent`: newest first (by created_at, then latest added)."""
        where, params = recent_filter(state, agents, "%s")
        async with self._db.connection() as conn:
            cursor = await conn.execute(
                f"SELECT record::text FROM asks{where} ORDER BY created_at DESC, seq DESC LIMIT %s",
                (*params, limit),
            )
            return records_from(await cursor.fetchall())

    async def events(self, ask_id: str) -> list[AskEvent]:
        """See `AskStore.events`: in the order they were appended."""
        async with self._db.connection() as conn:
            cursor = await conn.execute(
                "SELECT at, kind, actor, detail FROM events WHERE ask_id = %s ORDER BY seq",
                (ask_id,),
            )
            rows = await cursor.fetchall()
        return events_from(ask_id, rows)

    # --- threads ---------------------------------------------------------------------------

    async def thread(self, session: str) -> ThreadRef | None:
        """See `AskStore.thread`."""
        async with self._db.connection() as conn:
            return await _one_thread(conn, session)

    async def set_thread(self, session: str, ref: ThreadRef) -> None:
        """See `AskStore.set_thread`: a later call for the session replaces the thread."""
        async with self._db.connection() as conn:
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
        async with self._db.transaction() as conn:
            won = await _write_with_event(
                conn,
                self._audit_key,
                "UPDATE asks SET idempotency_key = %s, state = %s, created_at = %s,"
                " record = %s::jsonb WHERE id = %s AND state = 'pending'",
                (*ask_row(record)[1:], record.id),
                event,
            )
            return won or await _not_written(conn, record.id)

    async def claim_thread(self, session: str, ref: ThreadRef) -> ThreadRef:
        """See `AskStore.claim_thread`: insert-if-absent on the session key."""
        async with self._db.transaction() as conn:
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
        async with self._db.connection() as conn:
            try:
                await conn.execute(
                    "INSERT INTO inbox (id, received_at, kind, body) VALUES (%s, %s, %s, %s)",
                    (item.id, item.received_at, item.kind.value, item.body),
                )
            except pg_errors.UniqueViolation as error:
                raise ValueError(f"inbox item {item.id} is already stored") from error

    async def inbox_done(self, item_id: str) -> None:
        """See `AskStore.inbox_done`."""
        async with self._db.connection() as conn:
            await conn.execute("DELETE FROM inbox WHERE id = %s", (item_id,))

    async def inbox_pending(self) -> list[InboxItem]:
        """See `AskStore.inbox_pending`: in order of arrival (every replica's)."""
        async with self._db.connection() as conn:
            cursor = await conn.execute(
                "SELECT id, received_at, kind, body FROM inbox ORDER BY received_at, seq"
            )
            rows = await cursor.fetchall()
        return inbox_from(rows)

    async def advance(self, record: AskRecord, event: AskEvent) -> bool:
        """See `AskStore.advance`: one conditional UPDATE on state and version; a racing
        replica waits on the row lock, then finds the version moved and writes nothing."""
        check_advance(record, event)
        async with self._db.transaction() as conn:
            written = await _write_with_event(
                conn,
                self._audit_key,
                "UPDATE asks SET idempotency_key = %s, state = %s, created_at = %s,"
                " record = %s::jsonb WHERE id = %s AND state = 'pending'"
                " AND coalesce((record->>'version')::int, 0) = %s",
                (*ask_row(record)[1:], record.id, record.version - 1),
                event,
            )
            return written or await _not_written(conn, record.id)

    async def lease(self, name: str, owner: str, *, now: float, until: float) -> Lease | None:
        """See `AskStore.lease`: the row is made if absent, then locked, read and taken in
        one transaction, so racing replicas take turns and only one gets it."""
        async with self._db.transaction() as conn:
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
        async with self._db.connection() as conn:
            await conn.execute(
                "UPDATE leases SET owner = '', until = 0 WHERE name = %s AND owner = %s",
                (name, owner),
            )

    # --- credentials -----------------------------------------------------------------------

    async def add_credential(self, credential: Credential) -> None:
        """See `AskStore.add_credential`."""
        async with self._db.connection() as conn:
            try:
                await conn.execute(
                    "INSERT INTO credentials (id, created_at, record) VALUES (%s, %s, %s::jsonb)",
                    (credential.id, credential.created_at, credential.model_dump_json()),
                )
            except pg_errors.UniqueViolation as error:
                raise ValueError(f"credential {credential.id} is already stored") from error

    async def credential(self, credential_id: str) -> Credential | None:
        """See `AskStore.credential`."""
        async with self._db.connection() as conn:
            cursor = await conn.execute(
                "SELECT record::text FROM credentials WHERE id = %s", (credential_id,)
            )
            row = await cursor.fetchone()
        return None if row is None else Credential.model_validate_json(str(row[0]))

    async def credentials(self) -> list[Credential]:
        """See `AskStore.credentials`: oldest first."""
        async with self._db.connection() as conn:
            cursor = await conn.execute(
                "SELECT record::text FROM credentials ORDER BY created_at, id"
            )
            rows = await cursor.fetchall()
        return [Credential.model_validate_json(str(row[0])) for row in rows]

    async def revoke_credential(self, credential_id: str, at: float) -> Credential | None:
        """See `AskStore.revoke_credential`: one conditional UPDATE, then a read."""
        async with self._db.connection() as conn:
            await conn.execute(
                "UPDATE credentials"
                " SET record = jsonb_set(record, '{revoked_at}', to_jsonb(%s::float8))"
                " WHERE id = %s"
                " AND coalesce(record->'revoked_at', 'null'::jsonb) = 'null'::jsonb",
                (at, credential_id),
            )
            cursor = await conn.execute(
                "SELECT record::text FROM credentials WHERE id = %s", (credential_id,)
            )
            row = await cursor.fetchone()
        return None if row is None else Credential.model_validate_json(str(row[0]))

    # --- grants ----------------------------------------------------------------------------

    async def add_grant(self, grant: Grant) -> None:
        """See `AskStore.add_grant`."""
        async with self._db.connection() as conn:
            try:
                await conn.execute(
                    "INSERT INTO grants (id, created_at, record) VALUES (%s, %s, %s::jsonb)",
                    (grant.id, grant.created_at, grant.model_dump_json()),
                )
            except pg_errors.UniqueViolation as error:
                raise ValueError(f"grant {grant.id} is already stored") from error

    async def grants(self) -> list[Grant]:
        """See `AskStore.grants`: oldest first."""
        async with self._db.connection() as conn:
            cursor = await conn.execute("SELECT record::text FROM grants ORDER BY created_at, id")
            rows = await cursor.fetchall()
        return [Grant.model_validate_json(str(row[0])) for row in rows]

    async def revoke_grant(self, grant_id: str, by: str, at: float) -> Grant | None:
        """See `AskStore.revoke_grant`: one conditional UPDATE, then a read."""
        async with self._db.connection() as conn:
            await conn.execute(
                "UPDATE grants"
                " SET record = record || jsonb_build_object('revoked_at', %s::float8,"
                " 'revoked_by', %s::text)"
                " WHERE id = %s"
                " AND coalesce(record->'revoked_at', 'null'::jsonb) = 'null'::jsonb",
                (at, by, grant_id),
            )
            cursor = await conn.execute(
                "SELECT record::text FROM grants WHERE id = %s", (grant_id,)
            )
            row = await cursor.fetchone()
        return None if row is None else Grant.model_validate_json(str(row[0]))

    # --- feedback --------------------------------------------------------------------------

    async def give_feedback(self, feedback: Feedback) -> None:
        """See `AskStore.give_feedback`: one upsert."""
        verdict = feedback.verdict.value if feedback.verdict is not None else None
        async with self._db.connection() as conn:
            await conn.execute(
                "INSERT INTO feedback (ask_id, person, verdict, note, at)"
                " VALUES (%s, %s, %s, %s, %s) ON CONFLICT (ask_id, person) DO UPDATE SET"
                " verdict = coalesce(excluded.verdict, feedback.verdict),"
                " note = coalesce(excluded.note, feedback.note), at = excluded.at",
                (feedback.ask_id, feedback.person, verdict, feedback.note, feedback.at),
            )

    async def feedback(self, ask_ids: Collection[str]) -> list[Feedback]:
        """See `AskStore.feedback`."""
        wanted = sorted(set(ask_ids))
        if not wanted:
            return []
        async with self._db.connection() as conn:
            cursor = await conn.execute(
                "SELECT ask_id, person, verdict, note, at FROM feedback"
                " WHERE ask_id = ANY(%s) ORDER BY at, ask_id, person",
                (wanted,),
            )
            rows = await cursor.fetchall()
        return [
            Feedback(
                ask_id=str(ask_id),
                person=str(person),
                verdict=FeedbackVerdict(str(verdict)) if verdict is not None else None,
                note=None if note is None else str(note),
                at=float(at),
            )
            for ask_id, person, verdict, note, at in rows
        ]

    # --- stored rules ----------------------------------------------------------------------

    async def add_rule(self, rule: StoredRule) -> None:
        """See `AskStore.add_rule`."""
        async with self._db.connection() as conn:
            try:
                await conn.execute(
                    "INSERT INTO stored_rules (name, created_at, record)"
                    " VALUES (%s, %s, %s::jsonb)",
                    (rule.name, rule.created_at, rule.model_dump_json()),
                )
            except pg_errors.UniqueViolation as error:
                raise ValueError(f"a rule named {rule.name} is already stored") from error

    async def rules(self) -> list[StoredRule]:
        """See `AskStore.rules`: oldest first."""
        async with self._db.connection() as conn:
            cursor = await conn.execute(
                "SELECT record::text FROM stored_rules ORDER BY created_at, name"
            )
            rows = await cursor.fetchall()
        return [StoredRule.model_validate_json(str(row[0])) for row in rows]

    async def revoke_rule(self, name: str, by: str, at: float) -> StoredRule | None:
        """See `AskStore.revoke_rule`: one conditional UPDATE, then a read."""
        async with self._db.connection() as conn:
            await conn.execute(
                "UPDATE stored_rules"
                " SET record = record || jsonb_build_object('revoked_at', %s::float8,"
                " 'revoked_by', %s::text)"
                " WHERE name = %s"
                " AND coalesce(record->'revoked_at', 'null'::jsonb) = 'null'::jsonb",
                (at, by, name),
            )
            cursor = await conn.execute(
                "SELECT record::text FROM stored_rules WHERE name = %s", (name,)
            )
            row = await cursor.fetchone()
        return None if row is None else StoredRule.model_validate_json(str(row[0]))

    # --- delegations -----------------------------------------------------------------------

    async def set_delegation(self, delegation: Delegation) -> None:
        """See `AskStore.set_delegation`: one upsert."""
        async with self._db.connection() as conn:
            await conn.execute(
                "INSERT INTO delegations (delegator, record) VALUES (%s, %s::jsonb)"
                " ON CONFLICT (delegator) DO UPDATE SET record = excluded.record",
                (delegation.delegator, delegation.model_dump_json()),
            )

    async def delegations(self) -> list[Delegation]:
        """See `AskStore.delegations`: by delegator."""
        async with self._db.connection() as conn:
            cursor = await conn.execute("SELECT record::text FROM delegations ORDER BY delegator")
            rows = await cursor.fetchall()
        return [Delegation.model_validate_json(str(row[0])) for row in rows]

    async def end_delegation(self, delegator: str, at: float) -> Delegation | None:
        """See `AskStore.end_delegation`: one conditional UPDATE, then a read."""
        async with self._db.connection() as conn:
            await conn.execute(
                "UPDATE delegations"
                " SET record = record || jsonb_build_object('ended_at', %s::float8)"
                " WHERE delegator = %s"
                " AND coalesce(record->'ended_at', 'null'::jsonb) = 'null'::jsonb",
                (at, delegator),
            )
            cursor = await conn.execute(
                "SELECT record::text FROM delegations WHERE delegator = %s", (delegator,)
            )
            row = await cursor.fetchone()
        return None if row is None else Delegation.model_validate_json(str(row[0]))

    # --- retention -------------------------------------------------------------------------

    async def purge(self, before: float, *, keep: Collection[str] = ()) -> int:
        """See `AskStore.purge`: one transaction."""
        async with self._db.transaction() as conn:
            cursor = await conn.execute(
                "SELECT id, record->>'agent_id' FROM asks WHERE state <> 'pending'"
                " AND coalesce((record->>'decided_at')::float8, created_at) < %s"
                " FOR UPDATE",
                (before,),
            )
            rows = await cursor.fetchall()
            expired = [(str(ask_id), session) for ask_id, session in rows if ask_id not in keep]
            await _delete_asks(conn, [ask_id for ask_id, _ in expired])
            sessions = sorted({str(session) for _, session in expired if session is not None})
            cursor = await conn.execute(
                "DELETE FROM threads WHERE session = ANY(%s) AND NOT EXISTS (SELECT 1 FROM asks"
                " WHERE record->>'agent_id' = threads.session) RETURNING session",
                (sessions,),
            )
            unused = [thread_lease(str(row[0])) for row in await cursor.fetchall()]
            await conn.execute("DELETE FROM leases WHERE name = ANY(%s)", (unused,))
            await conn.execute("DELETE FROM inbox WHERE received_at < %s", (before,))
            await _purge_audit(conn, self._audit_key, before, len(expired))
        return len(expired)

    async def erase(self, ask_id: str) -> bool:
        """See `AskStore.erase`: one transaction."""
        async with self._db.transaction() as conn:
            cursor = await conn.execute(
                "SELECT state FROM asks WHERE id = %s FOR UPDATE", (ask_id,)
            )
            row = await cursor.fetchone()
            if row is None:
                raise KeyError(ask_id)
            if row[0] == AskState.PENDING.value:
                return False
            await _delete_asks(conn, [ask_id])
            # Interaction bodies carry the ask id in their button values and metadata.
            await conn.execute("DELETE FROM inbox WHERE strpos(body, %s) > 0", (ask_id,))
            await _chain(
                conn,
                self._audit_key,
                AuditEntry(at=time.time(), kind=AuditKind.ERASED, ask_id=ask_id),
            )
        return True

    # --- the audit chain ------------------------------------------------------------------

    async def audit_append(self, entry: AuditEntry) -> AuditRow:
        """See `AskStore.audit_append`."""
        async with self._db.transaction() as conn:
            return await _chain(conn, self._audit_key, entry)

    async def audit_rows(self) -> list[AuditRow]:
        """See `AskStore.audit_rows`."""
        async with self._db.connection() as conn:
            cursor = await conn.execute(
                "SELECT seq, at, kind, ask_id, actor, payload, prev_mac, mac FROM audit"
                " ORDER BY seq"
            )
            return [audit_row_from(row) for row in await cursor.fetchall()]

    async def audit_anchor(self) -> AuditLink | None:
        """See `AskStore.audit_anchor`."""
        async with self._db.connection() as conn:
            return await _link(conn, "SELECT seq, mac FROM audit_anchor WHERE one = 1")

    async def audit_publish(self, at: float) -> AuditLink | None:
        """See `AskStore.audit_publish`."""
        async with self._db.transaction() as conn:
            head = await _link(conn, "SELECT seq, mac FROM audit_head WHERE one = 1 FOR SHARE")
            if head is None:
                return None
            await conn.execute(
                "INSERT INTO audit_published (seq, mac, at) VALUES (%s, %s, %s)",
                (head.seq, head.mac, at),
            )
        return head

    async def audit_published(self) -> AuditLink | None:
        """See `AskStore.audit_published`."""
        async with self._db.connection() as conn:
            return await _link(
                conn, "SELECT seq, mac FROM audit_published ORDER BY seq DESC, id DESC LIMIT 1"
            )

    async def asks_between(
        self, query: AskQuery, *, limit: int = 500, after: PageCursor | None = None
    ) -> AskPage:
        """See `AskStore.asks_between`: the range read by `asks_by_age` (or `asks_by_agent`
        for one agent), the other filters in the query."""
        check_limit(limit)
        where, params = page_filter(query, after, "%s", _json_text, ask_id=_ID_BY_CODE_POINT)
        async with self._db.connection() as conn:
            cursor = await conn.execute(
                f"SELECT record::text FROM asks{where}"
                f" ORDER BY created_at, {_ID_BY_CODE_POINT} LIMIT %s",
                (*params, limit + 1),
            )
            return page_of(records_from(await cursor.fetchall()), limit)


_ID_BY_CODE_POINT = 'id COLLATE "C"'


def _json_text(name: str) -> str:
    return f"record->>'{name}'"


async def _delete_asks(conn: Connection, ask_ids: list[str]) -> None:
    """Delete asks, then their events (the trigger lets an event go once its ask has), then
    the leases named for them, inside the caller's transaction; the foreign key from events
    to asks is deferred to the commit, by when both are gone."""
    await conn.execute("SET CONSTRAINTS events_ask_id_fkey DEFERRED")
    await conn.execute("DELETE FROM asks WHERE id = ANY(%s)", (ask_ids,))
    await conn.execute("DELETE FROM events WHERE ask_id = ANY(%s)", (ask_ids,))
    await conn.execute("DELETE FROM feedback WHERE ask_id = ANY(%s)", (ask_ids,))
    names = [name for ask_id in ask_ids for name in named_leases(ask_id)]
    await conn.execute("DELETE FROM leases WHERE name = ANY(%s)", (names,))


async def _write_with_event(
    conn: Connection, key: bytes, write: str, params: Sequence[object], event: AskEvent
) -> bool:
    """Run `write` (an INSERT or UPDATE of one ask) and, only if it touched the row, append
    `event` and notify listeners in one statement, then chain its audit row, inside the
    caller's transaction. Whether the row was touched."""
    _, at, kind, actor, detail = event_row(event)  # the ask's id comes from the written row
    cursor = await conn.execute(
        f"WITH written AS ({write} RETURNING id),"
        " logged AS (INSERT INTO events (ask_id, at, kind, actor, detail)"
        " SELECT id, %s, %s, %s, %s FROM written RETURNING ask_id)"
        " SELECT pg_notify(%s, ask_id) FROM logged",
        (*params, at, kind, actor, detail, ASK_CHANNEL),
    )
    if cursor.rowcount != 1:
        return False
    await _chain(conn, key, entry_of(event))
    return True


async def _chain(conn: Connection, key: bytes, entry: AuditEntry) -> AuditRow:
    """Append `entry` after the chain's head, inside the caller's transaction. The head row
    is locked FOR UPDATE until the commit, so writers on every replica take turns and the
    chain keeps one order (a writer that rolls back leaves the head as it was)."""
    await conn.execute(
        "INSERT INTO audit_head (one, seq, mac) VALUES (1, 0, %s) ON CONFLICT (one) DO NOTHING",
        (GENESIS,),
    )
    head = await _link(conn, "SELECT seq, mac FROM audit_head WHERE one = 1 FOR UPDATE")
    row = chained(key, entry, head)
    await conn.execute(
        "INSERT INTO audit (seq, at, kind, ask_id, actor, payload, prev_mac, mac)"
        " VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
        (row.seq, row.at, row.kind, row.ask_id, row.actor, row.payload, row.prev_mac, row.mac),
    )
    await conn.execute("UPDATE audit_head SET seq = %s, mac = %s WHERE one = 1", (row.seq, row.mac))
    return row


async def _purge_audit(conn: Connection, key: bytes, before: float, asks: int) -> None:
    """As `SqliteStore`'s: the prefix written before `before` goes, its last link becomes
    the anchor, and the purge is logged naming it, so the chain still verifies."""
    last = await _link(
        conn,
        "SELECT seq, mac FROM audit WHERE seq = (SELECT max(seq) FROM audit WHERE at < %s)",
        before,
    )
    if last is None and not asks:
        return
    if last is not None:
        await conn.execute("DELETE FROM audit WHERE seq <= %s", (last.seq,))
        await conn.execute(
            "INSERT INTO audit_anchor (one, seq, mac) VALUES (1, %s, %s) ON CONFLICT (one)"
            " DO UPDATE SET seq = excluded.seq, mac = excluded.mac",
            (last.seq, last.mac),
        )
    anchor = await _link(conn, "SELECT seq, mac FROM audit_anchor WHERE one = 1")
    payload = AuditPayload(
        purged_asks=asks,
        through_seq=None if anchor is None else anchor.seq,
        anchor_mac=None if anchor is None else anchor.mac,
    )
    await _chain(conn, key, AuditEntry(at=before, kind=AuditKind.PURGED, payload=payload))


async def _link(conn: Connection, query: str, *params: object) -> AuditLink | None:
    cursor = await conn.execute(query, params)
    row = await cursor.fetchone()
    return None if row is None else AuditLink(seq=int(row[0]), mac=str(row[1]))


async def _one_record(conn: Connection, query: str, value: object) -> AskRecord | None:
    cursor = await conn.execute(query, (value,))
    row = await cursor.fetchone()
    return None if row is None else AskRecord.model_validate_json(str(row[0]))


async def _one_thread(conn: Connection, session: str) -> ThreadRef | None:
    cursor = await conn.execute(
        "SELECT channel, thread_ts FROM threads WHERE session = %s", (session,)
    )
    return thread_from(await cursor.fetchone())


async def _not_written(conn: Connection, ask_id: str) -> Literal[False]:
    """After a conditional UPDATE that touched no row: False, the ask moved on first;
    `KeyError` if there is no such ask."""
    cursor = await conn.execute("SELECT 1 FROM asks WHERE id = %s", (ask_id,))
    if await cursor.fetchone() is None:
        raise KeyError(ask_id)
    return False
