"""`AskStore.asks_between`: asks in a time range, filtered and paged, alike on every store."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import psycopg
import pytest
from pydantic import ValidationError

from bot.outcomes import Verdict
from bot.store import AskRecord, AskState, AskStore, MemoryStore
from bot.store.postgres import _ID_BY_CODE_POINT as PG_ID
from bot.store.postgres import PostgresStore
from bot.store.postgres import _json_text as pg_json_text
from bot.store.queries import AskQuery, Outcome, PageCursor, page_filter
from bot.store.sqlite import SqliteStore
from bot.store.sqlite import _json_text as json_text
from provider import AskUserQuestionAnswer, AskUserQuestionAnswerItem, AskUserQuestionItem

NAME = AskUserQuestionItem(id="name", question="Name the service")
ALL = AskQuery(since=0, until=10_000)


@pytest.fixture(params=["memory", "sqlite", "postgres"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[AskStore]:
    chosen: AskStore
    if request.param == "memory":
        chosen = MemoryStore()
    elif request.param == "sqlite":
        chosen = await SqliteStore.open(tmp_path / "asks.db")
    else:
        chosen = await PostgresStore.open(request.getfixturevalue("postgres_url"))
    try:
        yield chosen
    finally:
        await chosen.close()


def ask(ask_id: str, at: float, **fields: object) -> AskRecord:
    return AskRecord.model_validate({"id": ask_id, "questions": [NAME], "created_at": at, **fields})


def answered(ask_id: str, at: float, by: str, **fields: object) -> AskRecord:
    answer = AskUserQuestionAnswer(answers=[AskUserQuestionAnswerItem(id="name", custom="api")])
    return ask(
        ask_id,
        at,
        state=AskState.ANSWERED,
        verdict=Verdict.ANSWERED,
        answer=answer,
        decided_by=by,
        decided_at=at + 5,
        **fields,
    )


async def ids(store: AskStore, query: AskQuery, **page: object) -> list[str]:
    found = await store.asks_between(query, **page)  # type: ignore[arg-type]
    return [r.id for r in found.records]


async def test_the_range_holds_asks_made_from_since_up_to_but_not_at_until(
    store: AskStore,
) -> None:
    for ask_id, at in [("before", 99.0), ("first", 100.0), ("last", 199.5), ("at-until", 200.0)]:
        await store.add(ask(ask_id, at))
    assert await ids(store, AskQuery(since=100, until=200)) == ["first", "last"]


async def test_asks_come_oldest_first_and_same_instant_asks_by_id(store: AskStore) -> None:
    for ask_id, at in [("b", 5.0), ("c", 1.0), ("a", 5.0)]:
        await store.add(ask(ask_id, at))
    assert await ids(store, ALL) == ["c", "a", "b"]


async def test_pages_continue_after_their_cursor_without_repeating_an_ask(
    store: AskStore,
) -> None:
    for n in range(5):
        await store.add(ask(f"ask-{n}", 10.0 + n // 2))
    first = await store.asks_between(ALL, limit=2)
    assert [r.id for r in first.records] == ["ask-0", "ask-1"]
    assert first.next == PageCursor(created_at=10.0, id="ask-1")
    second = await store.asks_between(ALL, limit=2, after=first.next)
    assert [r.id for r in second.records] == ["ask-2", "ask-3"]
    last = await store.asks_between(ALL, limit=2, after=second.next)
    assert ([r.id for r in last.records], last.next) == (["ask-4"], None)


async def test_a_full_last_page_has_no_cursor(store: AskStore) -> None:
    await store.add(ask("only", 1.0))
    page = await store.asks_between(ALL, limit=1)
    assert ([r.id for r in page.records], page.next) == (["only"], None)


async def test_an_agent_selects_its_own_asks_and_its_sessions_not_a_longer_name(
    store: AskStore,
) -> None:
    await store.add(ask("own", 1.0, agent_id="ci"))
    await store.add(ask("session", 2.0, agent_id="ci/run-7"))
    await store.add(ask("other", 3.0, agent_id="ci2"))
    await store.add(ask("pattern", 4.0, agent_id="c_"))
    await store.add(ask("nobody", 5.0))
    assert await ids(store, AskQuery(since=0, until=10, agent="ci")) == ["own", "session"]


async def test_a_person_selects_the_asks_they_decided(store: AskStore) -> None:
    await store.add(answered("alice", 1.0, "U0ALICE"))
    await store.add(answered("bob", 2.0, "U0BOB"))
    await store.add(answered("rule", 3.0, "rule:reads"))
    await store.add(ask("pending", 4.0))
    assert await ids(store, AskQuery(since=0, until=10, person="U0ALICE")) == ["alice"]
    assert await ids(store, AskQuery(since=0, until=10, person="rule:reads")) == ["rule"]


async def test_each_outcome_selects_the_asks_that_ended_so(store: AskStore) -> None:
    await store.add(answered("answered", 1.0, "U0ALICE"))
    await store.add(ask("pending", 2.0))
    await store.add(ask("expired", 3.0, state=AskState.FAILED, verdict=Verdict.EXPIRED))
    await store.add(ask("withdrawn", 4.0, state=AskState.FAILED, verdict=Verdict.WITHDRAWN))
    # Settled before verdicts were kept: it reads as failed (`AskRecord.ended_as`).
    await store.add(ask("legacy", 5.0, state=AskState.FAILED))
    found = {
        outcome: await ids(store, AskQuery(since=0, until=10, outcome=outcome))
        for outcome in Outcome
    }
    assert found == {
        Outcome.PENDING: ["pending"],
        Outcome.ANSWERED: ["answered"],
        Outcome.WITHDRAWN: ["withdrawn"],
        Outcome.CLOSED: [],
        Outcome.CANCELLED: [],
        Outcome.EXPIRED: ["expired"],
        Outcome.FAILED: ["legacy"],
    }


async def test_filters_combine(store: AskStore) -> None:
    await store.add(answered("match", 1.0, "U0ALICE", agent_id="ci/a"))
    await store.add(answered("other-agent", 2.0, "U0ALICE", agent_id="deploy"))
    await store.add(answered("late", 20.0, "U0ALICE", agent_id="ci/b"))
    query = AskQuery(since=0, until=10, agent="ci", person="U0ALICE", outcome=Outcome.ANSWERED)
    assert await ids(store, query) == ["match"]


async def test_a_page_size_out_of_bounds_is_refused(store: AskStore) -> None:
    with pytest.raises(ValueError, match="a page holds 1 to 1000 asks, not 0"):
        await store.asks_between(ALL, limit=0)


def test_a_range_that_ends_before_it_starts_is_refused() -> None:
    with pytest.raises(ValidationError, match="until must be after since"):
        AskQuery(since=10, until=10)


async def test_sqlite_reads_the_range_by_index(tmp_path: Path) -> None:
    async with SqliteStore(tmp_path / "asks.db"):
        pass
    conn = sqlite3.connect(tmp_path / "asks.db")

    def plan(query: AskQuery) -> str:
        where, params = page_filter(query, PageCursor(created_at=0, id="a"), "?", json_text)
        sql = f"EXPLAIN QUERY PLAN SELECT record FROM asks{where} ORDER BY created_at, id LIMIT 5"
        return " / ".join(row[3] for row in conn.execute(sql, params))

    try:
        by_outcome = plan(AskQuery(since=0, until=1, outcome=Outcome.EXPIRED))
        by_range = plan(AskQuery(since=0, until=1, person="U0ALICE"))
        by_agent = plan(AskQuery(since=0, until=1, agent="ci"))
    finally:
        conn.close()
    assert by_range.startswith(
        "SEARCH asks USING INDEX asks_by_age (created_at>? AND created_at<?)"
    )
    assert by_outcome.startswith("SEARCH asks USING INDEX asks_by_state (state=? AND created_at>?")
    assert "SCAN asks" not in by_agent


async def test_postgres_reads_a_narrow_range_by_index(postgres_url: str) -> None:
    async with PostgresStore(postgres_url) as store:
        for n in range(2000):
            await store.add(ask(f"ask-{n:04d}", float(n), agent_id=f"agent-{n % 7}"))
    where, params = page_filter(
        AskQuery(since=100, until=120, person="U0ALICE"), None, "%s", pg_json_text, ask_id=PG_ID
    )
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("ANALYZE asks")
        rows = conn.execute(
            f"EXPLAIN SELECT record::text FROM asks{where} ORDER BY created_at, {PG_ID} LIMIT 501",
            params,
        ).fetchall()
    plan = "\n".join(row[0] for row in rows)
    assert "asks_by_age" in plan
    assert "Seq Scan" not in plan
