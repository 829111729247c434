"""The store interface every backend keeps, and the guards they share.

Stored before shown: an ask is added before anything is posted, and every transition is
saved together with the event that explains it.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Protocol

from bot.outcomes import AskState
from bot.store.audit import AuditEntry, AuditLink, AuditRow
from bot.store.queries import AskPage, AskQuery, PageCursor
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
)


class AskStore(Protocol):
    """What the bot needs from storage; SQLite today, a networked database later."""

    async def add(self, record: AskRecord) -> tuple[AskRecord, bool]:
        """Store a new ask with a `created` event; with a known idempotency key, return
        the existing ask instead. The flag says whether `record` was added."""
        ...

    async def get(self, ask_id: str) -> AskRecord | None:
        """The ask with this id."""
        ...

    async def save(self, record: AskRecord, event: AskEvent) -> None:
        """Replace the stored ask and append `event`, atomically."""
        ...

    async def log(self, event: AskEvent) -> None:
        """Append an event that changes no state (e.g. a refused click)."""
        ...

    async def pending(self) -> list[AskRecord]:
        """Every pending ask, oldest first."""
        ...

    async def recent(
        self,
        *,
        state: AskState | None = None,
        limit: int = 50,
        agents: Collection[str] | None = None,
    ) -> list[AskRecord]:
        """Asks newest first, optionally only in one state, and only of these agent ids
        (`agents`: an agent credential sees its own asks only; None: every ask)."""
        ...

    async def events(self, ask_id: str) -> list[AskEvent]:
        """The ask's event log, oldest first."""
        ...

    async def thread(self, session: str) -> ThreadRef | None:
        """The thread an agent session posts in."""
        ...

    async def set_thread(self, session: str, ref: ThreadRef) -> None:
        """Remember the thread of an agent session."""
        ...

    async def close(self) -> None:
        """Release the store's resources."""
        ...

    async def settle(self, record: AskRecord, event: AskEvent) -> bool:
        """End a pending ask: store `record` (settled) and append `event` only if the stored
        ask is still pending, as one atomic step. True if this call settled it; False if
        the ask had already ended (nothing written). `KeyError` for an unknown ask.

        Several replicas may race: exactly one of them gets True."""
        ...

    async def claim_thread(self, session: str, ref: ThreadRef) -> ThreadRef:
        """Remember `ref` as the session's thread unless it has one; the thread that won.

        Racing claims (from any replica) all get the same, first-stored thread."""
        ...

    async def inbox_add(self, item: InboxItem) -> None:
        """Keep an interaction durably before it is acked (committed when this returns)."""
        ...

    async def inbox_done(self, item_id: str) -> None:
        """Forget a handled interaction (an unknown id is not an error)."""
        ...

    async def inbox_pending(self) -> list[InboxItem]:
        """Interactions acked but not yet handled, oldest first."""

    async def advance(self, record: AskRecord, event: AskEvent) -> bool:
        """Save progress of a pending ask (posted, part answered, approved, reminded) and
        append `event`, only if nobody wrote it since `record` was read: the stored ask must
        be pending at version `record.version - 1`. True if written; False if another write
        (a settle, another replica's progress) came first: re-read and apply the change
        again. `KeyError` for an unknown ask."""
        ...

    async def lease(self, name: str, owner: str, *, now: float, until: float) -> Lease | None:
        """Hold the lease `name` for `owner` until `until`, unless another owner holds it
        past `now` (None). Work that must happen once across replicas (opening a thread,
        posting an ask, a reminder) is done under its lease; a holder that dies loses it
        when it lapses, so no replica waits on a dead one for longer than that."""
        ...

    async def release(self, name: str, owner: str) -> None:
        """Give the lease `name` up, if `owner` holds it: the work is done."""
        ...

    async def add_credential(self, credential: Credential) -> None:
        """Store a new relay credential; `ValueError` if its id is taken."""
        ...

    async def credential(self, credential_id: str) -> Credential | None:
        """The credential with this id, revoked or not."""
        ...

    async def credentials(self) -> list[Credential]:
        """Every credential, revoked ones too, oldest first."""
        ...

    async def revoke_credential(self, credential_id: str, at: float) -> Credential | None:
        """Mark the credential revoked at `at` (a revoked one keeps its first time); the
        credential as stored now, or None if there is no such id."""
        ...

    async def add_grant(self, grant: Grant) -> None:
        """Store a new grant; `ValueError` if its id is taken."""
        ...

    async def grants(self) -> list[Grant]:
        """Every grant, revoked and expired ones too, oldest first."""
        ...

    async def revoke_grant(self, grant_id: str, by: str, at: float) -> Grant | None:
        """Mark the grant revoked by `by` at `at` (a revoked one keeps its first revocation);
        the grant as stored now, or None if there is no such id."""
        ...

    async def add_rule(self, rule: StoredRule) -> None:
        """Store a rule saved with "Always allow"; `ValueError` if its name is taken (the
        name is the key, so two reviewers saving one name at once on two replicas cannot
        both succeed)."""
        ...

    async def rules(self) -> list[StoredRule]:
        """Every stored rule, revoked and expired ones too, oldest first."""
        ...

    async def revoke_rule(self, name: str, by: str, at: float) -> StoredRule | None:
        """Mark the saved rule revoked by `by` at `at` (a revoked one keeps its first
        revocation); the rule as stored now, or None if no rule has this name."""
        ...

    async def set_delegation(self, delegation: Delegation) -> None:
        """Store `delegation` as its delegator's, replacing the one they had."""
        ...

    async def delegations(self) -> list[Delegation]:
        """Every delegator's delegation, ended and expired ones too, by delegator."""
        ...

    async def end_delegation(self, delegator: str, at: float) -> Delegation | None:
        """Turn the delegator's delegation off at `at` (an ended one keeps its first end);
        the delegation as stored now, or None if they have none."""
        ...

    async def purge(self, before: float, *, keep: Collection[str] = ()) -> int:
        """Delete every settled ask settled before `before` (by `decided_at`, or
        `created_at` if it has none) but those in `keep`, with its events, the leases named
        for it and the threads of sessions left with no ask; and inbox rows received before
        `before`. One transaction; how many asks went. Pending asks are never purged."""
        ...

    async def erase(self, ask_id: str) -> bool:
        """Delete one settled ask now: its row, its events, the inbox rows naming it and the
        leases named for it, in one transaction. True if erased; False if it is still
        pending (nothing deleted: withdraw it first). `KeyError` for an unknown ask."""
        ...

    async def audit_append(self, entry: AuditEntry) -> AuditRow:
        """Append an event no ask event carries (a grant or rule decision, an escalation)
        to the audit chain, under the chain's write lock; the row as chained. Every
        `AskEvent` a store writes is chained by that write itself, in its transaction."""
        ...

    async def audit_rows(self) -> list[AuditRow]:
        """The audit chain as stored, by seq (what `verify` walks)."""
        ...

    async def audit_anchor(self) -> AuditLink | None:
        """The last link a purge removed (the chain verifies from it); None: no purge
        removed any."""
        ...

    async def audit_publish(self, at: float) -> AuditLink | None:
        """Record the chain's head now as published (posted to the audit channel); the head,
        None if the chain is empty."""
        ...

    async def audit_published(self) -> AuditLink | None:
        """The last head published, which `verify` checks the tail against."""
        ...

    async def asks_between(
        self, query: AskQuery, *, limit: int = 500, after: PageCursor | None = None
    ) -> AskPage:
        """One page of the asks `query` selects (bot/store/queries.py), oldest first, of up
        to `limit` (1 to `PAGE_MAX`) asks after `after`; SQL stores filter in the query,
        by index, never by reading every ask."""
        ...

    async def give_feedback(self, feedback: Feedback) -> None:
        """Keep one person's feedback on an ask, one row per ask and person: a verdict
        replaces their earlier one, a note theirs; what `feedback` leaves None is kept.
        Retention and erase delete it with its ask."""
        ...

    async def feedback(self, ask_ids: Collection[str]) -> list[Feedback]:
        """The feedback given on these asks, oldest first (by when it was last given)."""
        ...


def settled_at(record: AskRecord) -> float:
    """When an ask ended, as retention counts it: its decision, or its creation if the
    record has no decision time (settled before they were kept)."""
    return record.decided_at if record.decided_at is not None else record.created_at


def named_leases(ask_id: str) -> tuple[str, ...]:
    """The lease names work on one ask is done under (`bot.store.leases.lease_name`)."""
    return (f"post:{ask_id}", f"remind:{ask_id}")


def thread_lease(session: str) -> str:
    """The lease name a session's thread is opened under."""
    return f"thread:{session}"


def check_settle(record: AskRecord, event: AskEvent) -> None:
    """`settle`'s guards, shared by every store."""
    if event.ask_id != record.id:
        raise ValueError(f"event of ask {event.ask_id!r} settled with ask {record.id!r}")
    if not record.settled:
        raise ValueError(f"ask {record.id!r} is still pending: settle takes a settled record")


def check_advance(record: AskRecord, event: AskEvent) -> None:
    """`advance`'s guards, shared by every store."""
    if event.ask_id != record.id:
        raise ValueError(f"event of ask {event.ask_id!r} saved with ask {record.id!r}")
    if record.settled:
        raise ValueError(f"ask {record.id!r} is settled: advance saves progress, settle ends it")


def lease_for(holder: str, held_until: float, owner: str, now: float) -> Lease | None:
    """The lease `owner` gets of one now held by `holder` ("" for nobody) until
    `held_until`: None while another owner holds it.

    Owners are `replica#incarnation`: a replica restarted after a crash takes what its
    previous incarnation held at once (lapsed), without waiting for the lease to run out."""
    if holder in ("", owner):
        return Lease()
    if held_until > now and not _predecessor(holder, owner):
        return None
    return Lease(lapsed=holder)


def _predecessor(holder: str, owner: str) -> bool:
    replica, mark, _ = owner.partition("#")
    return bool(mark) and holder.startswith(f"{replica}#")
