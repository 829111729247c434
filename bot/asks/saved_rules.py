"""Rules saved with "Always allow" as they are revoked: stored, then chained in the audit log.

A revoke is a decision like the rule's creation (`rule_created`, bot/interactions/
always_allow.py): `python -m bot audit verify` must cover it, so it is chained right after the
store took it. As for grants, the two writes are not one transaction: a crash between them
leaves a revoked rule the chain does not name, never a chained revoke that was not stored.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from bot.clock import Clock
from bot.store import AskStore, StoredRule
from bot.store.audit import AuditEntry, AuditKind, AuditPayload

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RuleRevoked:
    """What a revoke found: the rule as stored now (None: no such rule), and whether this
    revoke was the one that ended it (False: it was revoked before, by `rule.revoked_by`)."""

    rule: StoredRule | None
    now: bool


class SavedRules:
    """Finds and revokes saved rules, logging each revoke in the audit chain."""

    def __init__(self, store: AskStore, clock: Clock) -> None:
        self._store = store
        self._clock = clock

    async def get(self, name: str) -> StoredRule | None:
        """The saved rule of this name, whatever its state."""
        return next((r for r in await self._store.rules() if r.name == name), None)

    async def revoke(self, name: str, by: str) -> RuleRevoked:
        """Revoke the rule as `by`, now; idempotent: a rule revoked before keeps its first
        revocation, and only the revoke that ended it is chained."""
        before = await self.get(name)
        if before is None or before.revoked_at is not None:
            return RuleRevoked(before, now=False)
        at = self._clock.now()
        stored = await self._store.revoke_rule(name, by, at)
        if stored is None:
            return RuleRevoked(None, now=False)
        # Another replica may have revoked it between the read and the update: the store
        # kept theirs, and theirs is the one chained.
        ended_now = stored.revoked_by == by and stored.revoked_at == at
        if ended_now:
            await self._store.audit_append(
                AuditEntry(
                    at=at,
                    kind=AuditKind.RULE_REVOKED,
                    actor=by,
                    payload=AuditPayload(detail=stored.model_dump_json()),
                )
            )
            log.info("saved rule %s of %r revoked by %s", stored.name, stored.tool, by)
        return RuleRevoked(stored, now=ended_now)
