"""`SavedRules` on every store (memory, SQLite, PostgreSQL): a rule revoked is a
`rule_revoked` link of the audit chain, which still verifies; a second revoke keeps the first
and adds no link; revoking a rule no one saved finds nothing and adds no link."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.asks.saved_rules import SavedRules
from bot.store import AskStore, MemoryStore, StoredRule
from bot.store.audit import AuditPayload, verify
from bot.store.postgres import PostgresStore
from bot.store.sqlite import SqliteStore
from slack_emulator import ManualClock

KEY = b"k" * 32
ALICE, BOB = "U0ALICE001", "U0BOB00002"
RULE = StoredRule(
    name="git-status",
    tool="Bash",
    args={"command": "re:git status( .*)?"},
    scope="agent",
    subject="ci",
    created_by=ALICE,
    created_at=1_700_000_000.0,
    ask_id="ask-1",
)


@pytest.fixture(params=["memory", "sqlite", "postgres"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[AskStore]:
    if request.param == "memory":
        yield MemoryStore(audit_key=KEY)
    elif request.param == "sqlite":
        async with SqliteStore(tmp_path / "asks.db", audit_key=KEY) as sqlite:
            yield sqlite
    else:
        url = request.getfixturevalue("postgres_url")
        async with PostgresStore(url, audit_key=KEY) as postgres:
            yield postgres


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(1_700_000_100.25)


async def intact(store: AskStore) -> bool:
    rows = await store.audit_rows()
    return verify(KEY, rows, anchor=await store.audit_anchor()).intact


async def test_a_rule_revoked_is_a_link_holding_the_rule_as_revoked(
    store: AskStore, clock: ManualClock
) -> None:
    await store.add_rule(RULE)
    revoked = await SavedRules(store, clock).revoke("git-status", BOB)
    assert revoked.now
    assert revoked.rule == RULE.model_copy(
        update={"revoked_at": 1_700_000_100.25, "revoked_by": BOB}
    )
    [row] = await store.audit_rows()
    assert (row.kind, row.ask_id, row.actor, row.at) == (
        "rule_revoked",
        None,
        BOB,
        1_700_000_100.25,
    )
    detail = AuditPayload.model_validate_json(row.payload).detail
    assert StoredRule.model_validate_json(detail) == revoked.rule
    assert await intact(store)


async def test_a_second_revoke_keeps_the_first_and_adds_no_link(
    store: AskStore, clock: ManualClock
) -> None:
    await store.add_rule(RULE)
    rules = SavedRules(store, clock)
    first = await rules.revoke("git-status", BOB)
    clock.advance(5)
    again = await rules.revoke("git-status", ALICE)
    assert (first.now, again.now) == (True, False)
    assert again.rule == first.rule
    assert [r.kind for r in await store.audit_rows()] == ["rule_revoked"]
    assert await intact(store)


async def test_revoking_a_rule_no_one_saved_finds_nothing_and_adds_no_link(
    store: AskStore, clock: ManualClock
) -> None:
    revoked = await SavedRules(store, clock).revoke("nope", ALICE)
    assert (revoked.rule, revoked.now) == (None, False)
    assert await store.audit_rows() == []
