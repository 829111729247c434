"""What only the PostgreSQL store promises: replicas sharing one database settle, claim and
add once. How its calls reach the database is tested in test_postgres_pool.py.

Each "replica" here is a `PostgresStore` with its own pool, as another process would have.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from bot.outcomes import Verdict
from bot.store import AskEvent, AskRecord, AskState, EventKind, ThreadRef
from bot.store.postgres import PostgresStore
from provider import AskUserQuestionAnswer, AskUserQuestionAnswerItem, AskUserQuestionItem

NAME = AskUserQuestionItem(id="name", question="Name the service")


def ask(ask_id: str, **fields: object) -> AskRecord:
    return AskRecord.model_validate(
        {"id": ask_id, "questions": [NAME], "created_at": 1000.0, **fields}
    )


def answered_by(ask_id: str, who: str) -> tuple[AskRecord, AskEvent]:
    record = ask(
        ask_id,
        state=AskState.ANSWERED,
        verdict=Verdict.ANSWERED,
        answer=AskUserQuestionAnswer(answers=[AskUserQuestionAnswerItem(id="name", custom=who)]),
        decided_by=who,
    )
    return record, AskEvent(ask_id=ask_id, at=1010.0, kind=EventKind.ANSWERED, actor=who)


@pytest.fixture
async def replicas(postgres_url: str) -> AsyncIterator[tuple[PostgresStore, PostgresStore]]:
    async with PostgresStore(postgres_url) as a, PostgresStore(postgres_url) as b:
        yield a, b


# --- replicas racing -----------------------------------------------------------------------


async def test_two_replicas_racing_to_settle_fifty_asks_each_win_exactly_once_per_ask(
    replicas: tuple[PostgresStore, PostgresStore],
) -> None:
    a, b = replicas
    ids = [f"a{n:02}" for n in range(50)]
    for ask_id in ids:
        await a.add(ask(ask_id))
    tries = [
        (store, ask_id, *answered_by(ask_id, who))
        for ask_id in ids
        for store, who in ((a, "U_A"), (b, "U_B"))
    ]
    won = await asyncio.gather(*(store.settle(record, done) for store, _, record, done in tries))
    winners = {ask_id: record for (_, ask_id, record, _), w in zip(tries, won, strict=True) if w}
    assert sorted(winners) == ids  # every ask has a winner; a dict keeps one per ask
    assert won.count(True) == 50
    for ask_id in ids:
        assert await b.get(ask_id) == winners[ask_id]
        assert [(e.kind, e.actor) for e in await a.events(ask_id)] == [
            (EventKind.CREATED, None),
            (EventKind.ANSWERED, winners[ask_id].decided_by),
        ]


async def test_two_replicas_claiming_one_sessions_thread_all_get_the_winners(
    replicas: tuple[PostgresStore, PostgresStore],
) -> None:
    a, b = replicas
    claims = [
        (store, ThreadRef(channel="C1", thread_ts=f"{n}.000100"))
        for n, store in enumerate([a, b] * 5)
    ]
    got = await asyncio.gather(*(store.claim_thread("planner-7", ref) for store, ref in claims))
    assert got[0] in [ref for _, ref in claims]
    assert got == [got[0]] * 10
    assert await a.thread("planner-7") == await b.thread("planner-7") == got[0]


async def test_one_ask_added_through_both_replicas_with_one_key_is_stored_once(
    replicas: tuple[PostgresStore, PostgresStore],
) -> None:
    a, b = replicas
    (ra, added_a), (rb, added_b) = await asyncio.gather(
        a.add(ask("from-a", idempotency_key="k")), b.add(ask("from-b", idempotency_key="k"))
    )
    assert ra == rb
    assert sorted([added_a, added_b]) == [False, True]
    assert [r.id for r in await a.recent()] == [ra.id]
