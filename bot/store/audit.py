"""The tamper-evident decision log (issue 27): each audit row carries
`mac = HMAC-SHA256(key, canonical(content) || prev_mac)`, so altering, deleting or reordering
any row breaks the chain at that row, and `verify` names it.

Pure: rows in, a verdict out. The stores append rows in the same transaction as the event
they record (`sqlite.py`, `memory.py`), taking the head under their write lock so several
writers keep one order.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Sequence
from enum import StrEnum
from typing import Final

from pydantic import BaseModel, ConfigDict

from bot.outcomes import EventKind
from bot.store.vocabulary import AskEvent

# Offline and tests only: NOT a secret (it is in the source). Connected to Slack, the service
# refuses to start without SLACK_QUESTIONS_AUDIT_KEY (bot/config.py).
OFFLINE_AUDIT_KEY: Final = b"slack-questions offline audit key: not a secret"
GENESIS: Final = "0" * 64  # the prev_mac of the first row ever written
MIN_KEY_CHARS: Final = 32


def audit_key(value: str | None) -> bytes | None:
    """The key SLACK_QUESTIONS_AUDIT_KEY holds (None: unset); `ValueError` if too short to
    be a secret."""
    if value is None or not value.strip():
        return None
    if len(value.strip()) < MIN_KEY_CHARS:
        raise ValueError(
            f"SLACK_QUESTIONS_AUDIT_KEY must be at least {MIN_KEY_CHARS} characters"
            " (e.g. openssl rand -hex 32)"
        )
    return value.strip().encode()


class AuditKind(StrEnum):
    """What an audit row records: every `EventKind`, and the events other mechanisms log
    (grant and rule decisions, escalations: append them with `AskStore.audit_append`)."""

    CREATED = "created"
    THREAD_OPENED = "thread_opened"
    POSTED = "posted"
    PART_ANSWERED = "part_answered"
    ANSWERED = "answered"
    WITHDRAWN = "withdrawn"
    CLOSED = "closed"
    CANCELLED = "cancelled"
    EXPIRED = "expired"
    FAILED = "failed"
    LEGACY_ABORTED = "aborted"
    REFUSED = "refused"
    APPROVED = "approved"
    REMINDED = "reminded"
    SHOWN = "shown"
    GRANT_DECIDED = "grant_decided"
    RULE_DECIDED = "rule_decided"
    ESCALATED = "escalated"
    PURGED = "purged"
    ERASED = "erased"
    GRANT_CREATED = "grant_created"  # a standing allow stored (`bot.asks.grants`)
    GRANT_REVOKED = "grant_revoked"  # a grant revoked: it covers nothing from then on
    CLAIMED = "claimed"
    RELEASED = "released"
    CLAIM_LAPSED = "claim_lapsed"
    REASSIGNED = "reassigned"
    RULE_CREATED = "rule_created"  # a rule saved with "Always allow"
    DELEGATED = "delegated"  # an out-of-office delegate set: they may answer as the delegator
    DELEGATION_ENDED = "delegation_ended"  # turned off before its end
    EDITED = "edited"  # "Edit and allow" / "Edit and approve": the diff of what the agent runs
    STOPPED = "stopped"  # Stop pressed on the agent's session in Slack
    RULE_REVOKED = "rule_revoked"  # a saved rule revoked: it allows nothing from then on


class Audited(BaseModel):
    """Base of the audit models: frozen, exact."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class AuditPayload(Audited):
    """What an audit row says beyond its kind. A purge names the rows it removed
    (`through_seq`) and the mac of the last of them (`anchor_mac`), so the chain still
    verifies from there."""

    detail: str = ""
    purged_asks: int | None = None
    through_seq: int | None = None
    anchor_mac: str | None = None


class AuditEntry(Audited):
    """An event to append: the store gives it its seq and macs."""

    at: float
    kind: AuditKind
    ask_id: str | None = None
    actor: str | None = None
    payload: AuditPayload = AuditPayload()


class AuditRow(Audited):
    """One stored link of the chain."""

    seq: int
    at: float
    kind: str  # str, not AuditKind: a verifier must read a row whatever was written in it
    ask_id: str | None
    actor: str | None
    payload: str  # canonical JSON of an `AuditPayload`
    prev_mac: str
    mac: str


class AuditLink(Audited):
    """A point of the chain: a row's seq and mac (the head, a purge's anchor, a published
    head)."""

    seq: int
    mac: str


def entry_of(event: AskEvent) -> AuditEntry:
    """The audit entry of one ask event."""
    return AuditEntry(
        at=event.at,
        kind=AuditKind(event.kind.value),
        ask_id=event.ask_id,
        actor=event.actor,
        payload=AuditPayload(detail=event.detail),
    )


def canonical_payload(payload: AuditPayload) -> str:
    """The payload as canonical JSON: sorted keys, no spaces, unset fields left out."""
    return json.dumps(payload.model_dump(exclude_none=True), sort_keys=True, separators=(",", ":"))


def mac_of(
    key: bytes,
    *,
    seq: int,
    at: float,
    kind: str,
    ask_id: str | None,
    actor: str | None,
    payload: str,
    prev_mac: str,
) -> str:
    """HMAC-SHA256(key, canonical(content) || prev_mac), hex."""
    content = json.dumps(
        {"seq": seq, "at": at, "kind": kind, "ask_id": ask_id, "actor": actor, "payload": payload},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hmac.new(key, content.encode() + prev_mac.encode(), hashlib.sha256).hexdigest()


def chained(key: bytes, entry: AuditEntry, head: AuditLink | None) -> AuditRow:
    """The row that follows `head` (None: the first row ever)."""
    seq = 1 if head is None else head.seq + 1
    prev = GENESIS if head is None else head.mac
    payload = canonical_payload(entry.payload)
    mac = mac_of(
        key,
        seq=seq,
        at=entry.at,
        kind=entry.kind.value,
        ask_id=entry.ask_id,
        actor=entry.actor,
        payload=payload,
        prev_mac=prev,
    )
    return AuditRow(
        seq=seq,
        at=entry.at,
        kind=entry.kind.value,
        ask_id=entry.ask_id,
        actor=entry.actor,
        payload=payload,
        prev_mac=prev,
        mac=mac,
    )


class Verdict(Audited):
    """What `verify` found: intact (with the head), or the first broken link and why."""

    intact: bool
    events: int
    head: AuditLink | None = None
    broken_seq: int | None = None
    reason: str = ""
    holds: str = ""  # what the broken row holds, for the operator

    def line(self) -> str:
        """One line for the operator."""
        if self.intact:
            head = "empty" if self.head is None else f"seq {self.head.seq}, {self.head.mac}"
            return f"intact ({self.events} events, head {head})"
        where = "" if self.broken_seq is None else f" at seq {self.broken_seq}"
        holds = f" — it holds {self.holds}" if self.holds else ""
        return f"broken{where}: {self.reason}{holds}"


def _holds(row: AuditRow) -> str:
    return f"kind={row.kind} ask={row.ask_id} actor={row.actor} at={row.at} payload={row.payload}"


def verify(
    key: bytes,
    rows: Sequence[AuditRow],
    *,
    anchor: AuditLink | None = None,
    published: AuditLink | None = None,
) -> Verdict:
    """Walk the chain from the purge anchor (or the start) and report the first broken link:
    a gap (rows deleted), a row chained after another one (reordered), a mac that does not
    match the row's content (altered); then the tail against the last published head
    (truncated), and the anchor against the latest purge that set it."""
    prev = anchor or AuditLink(seq=0, mac=GENESIS)
    latest_purge: AuditRow | None = None
    for row in rows:
        if row.seq != prev.seq + 1:
            reason = (
                f"gap: seq {prev.seq + 1}..{row.seq - 1} missing (deleted)"
                if row.seq > prev.seq + 1
                else f"reorder: seq {row.seq} follows seq {prev.seq}"
            )
            return Verdict(
                intact=False, events=len(rows), broken_seq=row.seq, reason=reason, holds=_holds(row)
            )
        if not hmac.compare_digest(row.prev_mac, prev.mac):
            return Verdict(
                intact=False,
                events=len(rows),
                broken_seq=row.seq,
                reason=f"reorder: chained after another row than seq {prev.seq}"
                " (its prev_mac is not that row's mac)",
                holds=_holds(row),
            )
        expected = mac_of(
            key,
            seq=row.seq,
            at=row.at,
            kind=row.kind,
            ask_id=row.ask_id,
            actor=row.actor,
            payload=row.payload,
            prev_mac=row.prev_mac,
        )
        if not hmac.compare_digest(expected, row.mac):
            return Verdict(
                intact=False,
                events=len(rows),
                broken_seq=row.seq,
                reason="mac mismatch: the row's content was altered (or the key is wrong)",
                holds=_holds(row),
            )
        if row.kind == AuditKind.PURGED.value:
            latest_purge = row
        prev = AuditLink(seq=row.seq, mac=row.mac)
    if anchor is not None:
        purge = (
            None if latest_purge is None else AuditPayload.model_validate_json(latest_purge.payload)
        )
        if purge is None or (purge.through_seq, purge.anchor_mac) != (anchor.seq, anchor.mac):
            return Verdict(
                intact=False,
                events=len(rows),
                broken_seq=anchor.seq,
                reason=f"the chain starts after seq {anchor.seq}, but no purge logged that"
                " anchor (rows deleted from the start)",
            )
    if published is not None:
        if published.seq > prev.seq:
            return Verdict(
                intact=False,
                events=len(rows),
                broken_seq=published.seq,
                reason=f"truncated: the last published head is seq {published.seq}"
                f" ({published.mac}), the chain ends at seq {prev.seq}",
            )
        at_head = next((row for row in rows if row.seq == published.seq), None)
        if at_head is not None and not hmac.compare_digest(at_head.mac, published.mac):
            return Verdict(
                intact=False,
                events=len(rows),
                broken_seq=published.seq,
                reason=f"rewritten: the published head of seq {published.seq} was"
                f" {published.mac}, the row now has {at_head.mac}",
                holds=_holds(at_head),
            )
    head = None if not rows and anchor is None else prev
    return Verdict(intact=True, events=len(rows), head=head)


__all__ = [
    "GENESIS",
    "OFFLINE_AUDIT_KEY",
    "AuditEntry",
    "AuditKind",
    "AuditLink",
    "AuditPayload",
    "AuditRow",
    "EventKind",
    "Verdict",
    "audit_key",
    "canonical_payload",
    "chained",
    "entry_of",
    "mac_of",
    "verify",
]
