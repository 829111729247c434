"""Grants as they are made and revoked: stored, and each step appended to the audit chain.

A grant created and a grant revoked are decisions like an answer: `python -m bot audit
verify` must cover them, so each is chained (`AskStore.audit_append`) right after the store
took it. The two writes are not one transaction: a crash between them leaves a grant the
chain does not name, never a chained grant that was not stored.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass

from bot.clock import Clock
from bot.store import AskStore, Grant
from bot.store.audit import AuditEntry, AuditKind, AuditPayload

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Revoked:
    """What a revoke found: the grant as stored now (None: no such grant), and whether this
    revoke was the one that ended it (False: it was revoked before, by `grant.revoked_by`)."""

    grant: Grant | None
    now: bool


def grant_detail(grant: Grant) -> str:
    """What the chain records of a grant: every field that says what it covers, as
    canonical JSON, so the log alone tells what was allowed to whom until when."""
    covers = grant.model_dump(include={"id", "tool", "args", "scope", "subject", "expires_at"})
    return json.dumps(covers, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class Grants:
    """Adds, revokes and lists grants, logging each change in the audit chain."""

    def __init__(self, store: AskStore, clock: Clock) -> None:
        self._store = store
        self._clock = clock

    async def add(self, grant: Grant, *, ask_id: str | None = None) -> None:
        """Store `grant` (made on `ask_id`'s card, if it was), then chain its creation."""
        await self._store.add_grant(grant)
        await self._store.audit_append(
            AuditEntry(
                at=grant.created_at,
                kind=AuditKind.GRANT_CREATED,
                ask_id=ask_id,
                actor=grant.granted_by,
                payload=AuditPayload(detail=grant_detail(grant)),
            )
        )
        log.info(
            "grant %s of %r made by %s (%s)", grant.id, grant.tool, grant.granted_by, grant.scope
        )

    async def revoke(self, grant_id: str, by: str) -> Revoked:
        """Revoke the grant as `by`, now; idempotent: a grant revoked before keeps its first
        revocation, and only the revoke that ended it is chained."""
        before = await self.get(grant_id)
        if before is None or before.revoked_at is not None:
            return Revoked(before, now=False)
        at = self._clock.now()
        stored = await self._store.revoke_grant(grant_id, by, at)
        if stored is None:
            return Revoked(None, now=False)
        ended_now = stored.revoked_by == by and stored.revoked_at == at
        if ended_now:
            await self._store.audit_append(
                AuditEntry(
                    at=at,
                    kind=AuditKind.GRANT_REVOKED,
                    actor=by,
                    payload=AuditPayload(detail=grant_detail(stored)),
                )
            )
            log.info("grant %s of %r revoked by %s", stored.id, stored.tool, by)
        return Revoked(stored, now=ended_now)

    async def active(self) -> list[Grant]:
        """The grants that cover calls now (neither revoked nor expired), oldest first."""
        now = self._clock.now()
        return [grant for grant in await self._store.grants() if grant.active(now)]

    async def get(self, grant_id: str) -> Grant | None:
        """The grant with this id, whatever its state."""
        return next((g for g in await self._store.grants() if g.id == grant_id), None)
