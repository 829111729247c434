"""Persistence only, no Slack: asks as records, their append-only event log, and the stores.

`vocabulary.py` holds what is stored, `protocol.py` the `AskStore` every backend keeps,
`memory.py` the in-memory store (in-process hosts, tests), `sqlite.py` and `postgres.py` the
durable ones, `leases.py` the work done once across replicas. Each durable store holds its
queries; what it runs on is beside it: `sqlite_file.py` (+ `sqlite_thread.py`) and
`postgres_pool.py` (+ `postgres_connect.py`) open, migrate and close the database and carry
each call to it; `connected.py` forwards a store's start and close to them, and `rows.py`
turns records into rows and back for both. The public names are re-exported here:
`from bot.store import AskRecord` works everywhere.
"""

from __future__ import annotations

from bot.store.memory import MemoryStore
from bot.store.protocol import AskStore, check_advance, check_settle, lease_for
from bot.store.vocabulary import (
    Approval,
    AskError,
    AskEvent,
    AskRecord,
    AskState,
    Credential,
    CredentialLimits,
    Delegation,
    EventKind,
    Feedback,
    FeedbackVerdict,
    Grant,
    GrantScope,
    InboxItem,
    InboxKind,
    Lease,
    PartAnswer,
    StoredRule,
    StoredRuleScope,
    ThreadKey,
    ThreadRef,
    Verdict,
    compact_questions,
    of_agents,
)

__all__ = [
    "Approval",
    "AskError",
    "AskEvent",
    "AskRecord",
    "AskState",
    "AskStore",
    "Credential",
    "CredentialLimits",
    "Delegation",
    "EventKind",
    "Feedback",
    "FeedbackVerdict",
    "Grant",
    "GrantScope",
    "InboxItem",
    "InboxKind",
    "Lease",
    "MemoryStore",
    "PartAnswer",
    "StoredRule",
    "StoredRuleScope",
    "ThreadKey",
    "ThreadRef",
    "Verdict",
    "check_advance",
    "check_settle",
    "compact_questions",
    "lease_for",
    "of_agents",
]
