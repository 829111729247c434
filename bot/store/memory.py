"""`MemoryStore`: an `AskStore` in memory, for in-process hosts and tests."""

from __future__ import annotations

import time
from collections.abc import Collection

from bot.outcomes import AskState, EventKind
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
from bot.store.protocol import (
    check_advance,
    check_settle,
    lease_for,
    named_leases,
    settled_at,
    thread_lease,
)
from bot.store.queries import AskPage, AskQuery, PageCursor, check_limit, matches, page_of
from bot.store.vocabulary import (
    AskEvent,
    AskRecord,
    Credential,
    Delegation,
    Feedback,
    Grant,
    InboxItem,
    Lease,
    StoredRule,
    ThreadRef,
    of_agents,
)


class MemoryStore:
    """An `AskStore` in memory: for in-process hosts that need no restart survival."""

    def __init__(self, *, audit_key: bytes = OFFLINE_AUDIT_KEY) -> None:
        self._audit_key = audit_key
        self._audit: list[AuditRow] = []
        self._audit_head: AuditLink | None = None
        self._audit_anchor: AuditLink | None = None
        self._audit_published: AuditLink | None = None
        self._asks: dict[str, AskRecord] = {}
        self._keys: dict[str, str] = {}
        self._events: dict[str, list[AskEvent]] = {}
        self._threads: dict[str, ThreadRef] = {}
        self._inbox: dict[str, InboxItem] = {}
        self._leases: dict[str, tuple[str, float]] = {}
        self._credentials: dict[str, Credential] = {}
        self._grants: dict[str, Grant] = {}
        self._feedback: dict[tuple[str, str], Feedback] = {}
        self._rules: dict[str, StoredRule] = {}
        self._delegations: dict[str, Delegation] = {}

    async def add(self, record: AskRecord) -> tuple[AskRecord, bool]:
        """See `AskStore.add`."""
        key = record.idempotency_key
        if key is not None and key in self._keys:
            return self._asks[self._keys[key]], False
        if record.id in self._asks:
            raise ValueError(f"ask {record.id} is already stored")
        self._asks[record.id] = record
        if key is not None:
            self._keys[key] = record.id
        created = AskEvent(ask_id=record.id, at=record.created_at, kind=EventKind.CREATED)
        self._events[record.id] = [created]
        self._chain(entry_of(created))
        return record, True

    async def get(self, ask_id: str) -> AskRecord | None:
        """See `AskStore.get`."""
        return self._asks.get(ask_id)

    async def save(self, record: AskRecord, event: AskEvent) -> None:
        """See `AskStore.save`."""
        if event.ask_id != record.id:
            raise ValueError(f"event of ask {event.ask_id} saved with ask {record.id}")
        self._asks[record.id] = record
        self._events.setdefault(record.id, []).append(event)
        self._chain(entry_of(event))

    async def log(self, event: AskEvent) -> None:
        """See `AskStore.log`."""
        if event.ask_id not in self._asks:
            raise KeyError(event.ask_id)
        self._events[event.ask_id].append(event)
        self._chain(entry_of(event))

    async def pending(self) -> list[AskRecord]:
        """See `AskStore.pending`."""
        pending = [r for r in self._asks.values() if r.state is AskState.PENDING]
        return sorted(pending, key=lambda r: r.created_at)

    async def recent(
        self,
        *,
        state: AskState | None = None,
        limit: int = 50,
        agents: Collection[str] | None = None,
    ) -> list[AskRecord]:
        """See `AskStore.recent`."""
        chosen = [
            r
            for r in self._asks.values()
            if (state is None or r.state is state)
            and (agents is None or of_agents(r.agent_id, agents))
        ]
        # Newest first; among equal times, the one added last first (as SQLite orders them).
        newest = sorted(reversed(chosen), key=lambda r: r.created_at, reverse=True)
        return newest[:limit]

    async def events(self, ask_id: str) -> list[AskEvent]:
        """See `AskStore.events`."""
        return list(self._events.get(ask_id, []))

    async def thread(self, session: str) -> ThreadRef | None:
        """See `AskStore.thread`."""
        return self._threads.get(session)

    async def set_thread(self, session: str, ref: ThreadRef) -> None:
        """See `AskStore.set_thread`."""
        self._threads[session] = ref

    async def close(self) -> None:
        """Nothing to release."""

    async def settle(self, record: AskRecord, event: AskEvent) -> bool:
        """See `AskStore.settle`."""
        check_settle(record, event)
        stored = self._asks.get(record.id)
        if stored is None:
            raise KeyError(record.id)
        if stored.settled:
            return False
        self._asks[record.id] = record
        self._events[record.id].append(event)
        self._chain(entry_of(event))
        return True

    async def claim_thread(self, session: str, ref: ThreadRef) -> ThreadRef:
        """See `AskStore.claim_thread`."""
        return self._threads.setdefault(session, ref)

    async def inbox_add(self, item: InboxItem) -> None:
        """See `AskStore.inbox_add`."""
        if item.id in self._inbox:
            raise ValueError(f"inbox item {item.id} is already stored")
        self._inbox[item.id] = item

    async def inbox_done(self, item_id: str) -> None:
        """See `AskStore.inbox_done`."""
        self._inbox.pop(item_id, None)

    async def inbox_pending(self) -> list[InboxItem]:
        """See `AskStore.inbox_pending`."""
        # Added in order of arrival; the sort is stable, so equal times keep that order.
        return sorted(self._inbox.values(), key=lambda item: item.received_at)

    async def advance(self, record: AskRecord, event: AskEvent) -> bool:
        """See `AskStore.advance`."""
        check_advance(record, event)
        stored = self._asks.get(record.id)
        if stored is None:
            raise KeyError(record.id)
        if stored.settled or stored.version != record.version - 1:
            return False
        self._asks[record.id] = record
        self._events[record.id].append(event)
        self._chain(entry_of(event))
        return True

    async def lease(self, name: str, owner: str, *, now: float, until: float) -> Lease | None:
        """See `AskStore.lease`."""
        holder, held_until = self._leases.get(name, ("", 0.0))
        granted = lease_for(holder, held_until, owner, now)
        if granted is not None:
            self._leases[name] = (owner, until)
        return granted

    async def release(self, name: str, owner: str) -> None:
        """See `AskStore.release`."""
        if self._leases.get(name, ("", 0.0))[0] == owner:
            del self._leases[name]

    async def add_credential(self, credential: Credential) -> None:
        """See `AskStore.add_credential`."""
        if credential.id in self._credentials:
            raise ValueError(f"credential {credential.id} is already stored")
        self._credentials[credential.id] = credential

    async def credential(self, credential_id: str) -> Credential | None:
        """See `AskStore.credential`."""
        return self._credentials.get(credential_id)

    async def credentials(self) -> list[Credential]:
        """See `AskStore.credentials`."""
        return sorted(self._credentials.values(), key=lambda c: c.created_at)

    async def revoke_credential(self, credential_id: str, at: float) -> Credential | None:
        """See `AskStore.revoke_credential`."""
        stored = self._credentials.get(credential_id)
        if stored is not None and stored.revoked_at is None:
            stored = self._credentials[credential_id] = stored.model_copy(update={"revoked_at": at})
        return stored

    async def add_grant(self, grant: Grant) -> None:
        """See `AskStore.add_grant`."""
        if grant.id in self._grants:
            raise ValueError(f"grant {grant.id} is already stored")
        self._grants[grant.id] = grant

    async def grants(self) -> list[Grant]:
        """See `AskStore.grants`."""
        return sorted(self._grants.values(), key=lambda g: g.created_at)

    async def revoke_grant(self, grant_id: str, by: str, at: float) -> Grant | None:
        """See `AskStore.revoke_grant`."""
        stored = self._grants.get(grant_id)
        if stored is not None and stored.revoked_at is None:
            stored = self._grants[grant_id] = stored.model_copy(
                update={"revoked_at": at, "revoked_by": by}
            )
        return stored

    async def add_rule(self, rule: StoredRule) -> None:
        """See `AskStore.add_rule`."""
        if rule.name in self._rules:
            raise ValueError(f"a rule named {rule.name} is already stored")
        self._rules[rule.name] = rule

    async def rules(self) -> list[StoredRule]:
        """See `AskStore.rules`."""
        return sorted(self._rules.values(), key=lambda r: r.created_at)

    async def revoke_rule(self, name: str, by: str, at: float) -> StoredRule | None:
        """See `AskStore.revoke_rule`."""
        stored = self._rules.get(name)
        if stored is not None and stored.revoked_at is None:
            stored = self._rules[name] = stored.model_copy(
                update={"revoked_at": at, "revoked_by": by}
            )
        return stored

    async def set_delegation(self, delegation: Delegation) -> None:
        """See `AskStore.set_delegation`."""
        self._delegations[delegation.delegator] = delegation

    async def delegations(self) -> list[Delegation]:
        """See `AskStore.delegations`."""
        return [self._delegations[d] for d in sorted(self._delegations)]

    async def end_delegation(self, delegator: str, at: float) -> Delegation | None:
        """See `AskStore.end_delegation`."""
        stored = self._delegations.get(delegator)
        if stored is not None and stored.ended_at is None:
            stored = self._delegations[delegator] = stored.model_copy(update={"ended_at": at})
        return stored

    async def purge(self, before: float, *, keep: Collection[str] = ()) -> int:
        """See `AskStore.purge`."""
        expired = [
            record
            for record in self._asks.values()
            if record.settled and settled_at(record) < before and record.id not in keep
        ]
        for record in expired:
            self._forget(record)
        left = {record.agent_id for record in self._asks.values()}
        for session in {record.agent_id for record in expired} - left:
            if session is not None:
                self._threads.pop(session, None)
                self._leases.pop(thread_lease(session), None)
        for item in [item for item in self._inbox.values() if item.received_at < before]:
            del self._inbox[item.id]
        self._purge_audit(before, len(expired))
        return len(expired)

    async def erase(self, ask_id: str) -> bool:
        """See `AskStore.erase`."""
        record = self._asks.get(ask_id)
        if record is None:
            raise KeyError(ask_id)
        if not record.settled:
            return False
        self._forget(record)
        for item in [item for item in self._inbox.values() if ask_id in item.body]:
            del self._inbox[item.id]
        self._chain(AuditEntry(at=time.time(), kind=AuditKind.ERASED, ask_id=ask_id))
        return True

    async def audit_append(self, entry: AuditEntry) -> AuditRow:
        """See `AskStore.audit_append`."""
        return self._chain(entry)

    async def audit_rows(self) -> list[AuditRow]:
        """See `AskStore.audit_rows`."""
        return list(self._audit)

    async def audit_anchor(self) -> AuditLink | None:
        """See `AskStore.audit_anchor`."""
        return self._audit_anchor

    async def audit_publish(self, at: float) -> AuditLink | None:
        """See `AskStore.audit_publish`."""
        self._audit_published = self._audit_head or self._audit_published
        return self._audit_head

    async def audit_published(self) -> AuditLink | None:
        """See `AskStore.audit_published`."""
        return self._audit_published

    async def asks_between(
        self, query: AskQuery, *, limit: int = 500, after: PageCursor | None = None
    ) -> AskPage:
        """See `AskStore.asks_between`."""
        check_limit(limit)
        chosen = [r for r in self._asks.values() if matches(query, r, after)]
        chosen.sort(key=lambda r: (r.created_at, r.id))
        return page_of(chosen[: limit + 1], limit)

    def _chain(self, entry: AuditEntry) -> AuditRow:
        row = chained(self._audit_key, entry, self._audit_head)
        self._audit.append(row)
        self._audit_head = AuditLink(seq=row.seq, mac=row.mac)
        return row

    def _purge_audit(self, before: float, asks: int) -> None:
        """As `SqliteStore`'s: the prefix written before `before` goes, its last link is
        the anchor, and the purge is logged naming it."""
        gone = [row for row in self._audit if row.at < before]
        if not gone and not asks:
            return
        if gone:
            last = max(gone, key=lambda row: row.seq)
            self._audit = [row for row in self._audit if row.seq > last.seq]
            self._audit_anchor = AuditLink(seq=last.seq, mac=last.mac)
        anchor = self._audit_anchor
        payload = AuditPayload(
            purged_asks=asks,
            through_seq=None if anchor is None else anchor.seq,
            anchor_mac=None if anchor is None else anchor.mac,
        )
        self._chain(AuditEntry(at=before, kind=AuditKind.PURGED, payload=payload))

    async def give_feedback(self, feedback: Feedback) -> None:
        """See `AskStore.give_feedback`."""
        key = (feedback.ask_id, feedback.person)
        earlier = self._feedback.get(key)
        self._feedback[key] = feedback if earlier is None else earlier.merged(feedback)

    async def feedback(self, ask_ids: Collection[str]) -> list[Feedback]:
        """See `AskStore.feedback`."""
        wanted = set(ask_ids)
        given = [f for (ask_id, _), f in self._feedback.items() if ask_id in wanted]
        return sorted(given, key=lambda f: f.at)

    def _forget(self, record: AskRecord) -> None:
        del self._asks[record.id]
        del self._events[record.id]
        if record.idempotency_key is not None:
            self._keys.pop(record.idempotency_key, None)
        for name in named_leases(record.id):
            self._leases.pop(name, None)
        for key in [key for key in self._feedback if key[0] == record.id]:
            del self._feedback[key]
