"""The `AskStore` contract: every store (in memory, SQLite) passes the same tests."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.outcomes import Verdict
from bot.sqlite_store import SqliteStore
from bot.store import (
    AskError,
    AskEvent,
    AskRecord,
    AskState,
    AskStore,
    EventKind,
    MemoryStore,
    PartAnswer,
    ThreadRef,
)
from provider import (
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionOption,
    ErrorCode,
    PlanReviewIntent,
)

NAME = AskUserQuestionItem(id="name", question="Name the service")


@pytest.fixture(params=["memory", "sqlite"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[AskStore]:
    chosen: AskStore
    if request.param == "memory":
        chosen = MemoryStore()
    else:
        chosen = await SqliteStore.open(tmp_path / "asks.db")
    try:
        yield chosen
    finally:
        await chosen.close()


def ask(ask_id: str, *, at: float = 1000.0, key: str | None = None, **fields: object) -> AskRecord:
    return AskRecord.model_validate(
        {"id": ask_id, "questions": [NAME], "created_at": at, "idempotency_key": key, **fields}
    )


def full_record() -> AskRecord:
    """An ask with every field set, nested models and enums included."""
    plan = AskUserQuestionItem(
        id="plan",
        question="Ship this plan?",
        detail="1. migrate\n2. deploy",
        header="Plan",
        options=[
            AskUserQuestionOption(label="Approve", description="go ahead"),
            AskUserQuestionOption(label="Revise"),
        ],
        intent=PlanReviewIntent(approve="Approve"),
    )
    regions = AskUserQuestionItem(
        id="regions",
        question="Which regions?",
        options=[AskUserQuestionOption(label="eu"), AskUserQuestionOption(label="us")],
        multi_select=True,
    )
    plan_answer = AskUserQuestionAnswerItem(id="plan", selected=["Approve"])
    regions_answer = AskUserQuestionAnswerItem(
        id="regions", selected=["eu", "us"], custom="also ap"
    )
    return AskRecord(
        id="ask-full",
        questions=[plan, regions, NAME],
        created_at=1700000000.25,
        agent_id="planner-7",
        agent_name="Release planner",
        idempotency_key="key-full",
        channel="C1",
        thread_ts="1700000000.000100",
        message_ts=["1700000001.000200", "1700000002.000300"],
        state=AskState.FAILED,
        verdict=Verdict.FAILED,
        answer=AskUserQuestionAnswer(answers=[plan_answer, regions_answer]),
        error=AskError(code=ErrorCode.ASK_FAILED, message="channel_not_found"),
        decided_by="U_ALICE",
        decided_at=1700000100.5,
        reason="Slack refused the post",
        parts_done={
            0: PartAnswer(by="U_ALICE", at=1700000050.0, answers=[plan_answer]),
            1: PartAnswer(by="U_BOB", at=1700000060.0, answers=[regions_answer]),
        },
    )


def event(ask_id: str, kind: EventKind, at: float, **fields: str) -> AskEvent:
    return AskEvent.model_validate({"ask_id": ask_id, "kind": kind, "at": at, **fields})


# --- add and get ---------------------------------------------------------------------------


async def test_an_added_ask_reads_back_equal_to_the_record_stored(store: AskStore) -> None:
    record = full_record()
    assert await store.add(record) == (record, True)
    assert await store.get("ask-full") == record


async def test_adding_an_ask_logs_one_created_event_at_its_creation_time(store: AskStore) -> None:
    await store.add(ask("a1", at=1234.5))
    assert await store.events("a1") == [
        AskEvent(ask_id="a1", at=1234.5, kind=EventKind.CREATED, actor=None, detail="")
    ]


async def test_an_unknown_id_has_no_ask_and_no_events(store: AskStore) -> None:
    assert await store.get("missing") is None
    assert await store.events("missing") == []


async def test_a_known_idempotency_key_returns_the_existing_ask_and_adds_nothing(
    store: AskStore,
) -> None:
    first = ask("a1", at=1000.0, key="k")
    await store.add(first)
    assert await store.add(ask("a2", at=2000.0, key="k")) == (first, False)
    assert await store.get("a2") is None
    assert await store.events("a2") == []
    assert [e.kind for e in await store.events("a1")] == [EventKind.CREATED]


async def test_concurrent_adds_with_one_key_make_one_ask(store: AskStore) -> None:
    results = await asyncio.gather(*(store.add(ask(f"a{n}", key="k")) for n in range(5)))
    first = ask("a0", key="k")
    assert results == [(first, True)] + [(first, False)] * 4
    assert await store.recent() == [first]
    assert [e.kind for e in await store.events(first.id)] == [EventKind.CREATED]


async def test_asks_without_an_idempotency_key_are_never_merged(store: AskStore) -> None:
    assert (await store.add(ask("a1")))[1] is True
    assert (await store.add(ask("a2")))[1] is True
    assert await store.get("a1") == ask("a1")
    assert await store.get("a2") == ask("a2")


# --- save and log --------------------------------------------------------------------------


async def test_save_replaces_the_ask_and_appends_its_event(store: AskStore) -> None:
    await store.add(ask("a1", at=1000.0))
    answered = ask(
        "a1",
        at=1000.0,
        state=AskState.ANSWERED,
        verdict=Verdict.ANSWERED,
        answer=AskUserQuestionAnswer(
            answers=[AskUserQuestionAnswerItem(id="name", custom="billing")]
        ),
        decided_by="U_ALICE",
        decided_at=1010.0,
    )
    done = event("a1", EventKind.ANSWERED, 1010.0, actor="U_ALICE", detail="by click")
    await store.save(answered, done)
    assert await store.get("a1") == answered
    assert await store.events("a1") == [
        AskEvent(ask_id="a1", at=1000.0, kind=EventKind.CREATED),
        done,
    ]


async def test_log_appends_an_event_and_leaves_the_ask_unchanged(store: AskStore) -> None:
    record = ask("a1", message_ts=["1.0"])
    await store.add(record)
    refused = event("a1", EventKind.REFUSED, 1005.0, actor="U_MALLORY", detail="not allowed")
    await store.log(refused)
    assert await store.get("a1") == record
    assert (await store.events("a1"))[1:] == [refused]


async def test_events_come_back_in_the_order_they_were_appended_not_by_time(
    store: AskStore,
) -> None:
    await store.add(ask("a1", at=1000.0))
    await store.add(ask("a2", at=1000.0))
    posted = event("a1", EventKind.POSTED, 1003.0, detail="part 0 at 1.0")
    other = event("a2", EventKind.REFUSED, 1002.0)
    refused = event("a1", EventKind.REFUSED, 1001.0, actor="U_BOB")  # an earlier clock
    await store.save(ask("a1", at=1000.0, message_ts=["1.0"]), posted)
    await store.log(other)
    await store.log(refused)
    assert [e.kind for e in await store.events("a1")] == [
        EventKind.CREATED,
        EventKind.POSTED,
        EventKind.REFUSED,
    ]
    assert (await store.events("a1"))[1:] == [posted, refused]


# --- pending and recent --------------------------------------------------------------------


async def seed_states(store: AskStore) -> None:
    """a1 … a5 created a second apart; a2 answered, a4 failed, the rest pending."""
    for n in range(1, 6):
        await store.add(ask(f"a{n}", at=1000.0 + n))
    for n, state in ((2, AskState.ANSWERED), (4, AskState.FAILED)):
        await store.save(
            ask(f"a{n}", at=1000.0 + n, state=state),
            event(f"a{n}", EventKind(state.value), 2000.0),
        )


async def test_pending_lists_only_pending_asks_oldest_first(store: AskStore) -> None:
    await seed_states(store)
    assert [r.id for r in await store.pending()] == ["a1", "a3", "a5"]


async def test_a_settled_ask_is_no_longer_pending(store: AskStore) -> None:
    await store.add(ask("a1"))
    await store.save(ask("a1", state=AskState.ANSWERED), event("a1", EventKind.ANSWERED, 1001.0))
    assert await store.pending() == []


async def test_recent_lists_every_ask_newest_first(store: AskStore) -> None:
    await seed_states(store)
    assert [r.id for r in await store.recent()] == ["a5", "a4", "a3", "a2", "a1"]


async def test_recent_with_a_state_lists_only_asks_in_that_state(store: AskStore) -> None:
    await seed_states(store)
    assert [r.id for r in await store.recent(state=AskState.PENDING)] == ["a5", "a3", "a1"]
    assert [r.id for r in await store.recent(state=AskState.ANSWERED)] == ["a2"]
    assert [r.id for r in await store.recent(state=AskState.FAILED)] == ["a4"]


async def test_recent_returns_at_most_limit_asks_the_newest(store: AskStore) -> None:
    await seed_states(store)
    assert [r.id for r in await store.recent(limit=2)] == ["a5", "a4"]
    assert [r.id for r in await store.recent(state=AskState.PENDING, limit=2)] == ["a5", "a3"]
    assert await store.recent(limit=0) == []


async def test_recent_returns_records_equal_to_those_stored(store: AskStore) -> None:
    record = full_record()
    await store.add(record)
    assert await store.recent(state=AskState.FAILED) == [record]


async def test_recent_lists_at_most_fifty_by_default(store: AskStore) -> None:
    for n in range(60):
        await store.add(ask(f"a{n:02}", at=1000.0 + n))
    newest = await store.recent()
    assert [r.id for r in newest] == [f"a{n:02}" for n in range(59, 9, -1)]


# --- threads -------------------------------------------------------------------------------


async def test_a_session_has_no_thread_until_one_is_set(store: AskStore) -> None:
    assert await store.thread("planner-7") is None


async def test_a_set_thread_reads_back_for_its_session_only(store: AskStore) -> None:
    await store.set_thread("planner-7", ThreadRef(channel="C1", thread_ts="1.000100"))
    await store.set_thread("top-level", ThreadRef(channel="C2"))
    assert await store.thread("planner-7") == ThreadRef(channel="C1", thread_ts="1.000100")
    assert await store.thread("top-level") == ThreadRef(channel="C2", thread_ts=None)
    assert await store.thread("someone-else") is None


async def test_setting_a_sessions_thread_again_replaces_it(store: AskStore) -> None:
    await store.set_thread("planner-7", ThreadRef(channel="C1", thread_ts="1.000100"))
    await store.set_thread("planner-7", ThreadRef(channel="C9", thread_ts="9.000900"))
    assert await store.thread("planner-7") == ThreadRef(channel="C9", thread_ts="9.000900")


def test_a_record_knows_a_plan_review_and_whether_it_was_approved() -> None:
    from provider import AskUserQuestionAnswer, AskUserQuestionItem

    plan = AskUserQuestionItem.model_validate(
        {
            "id": "plan",
            "question": "Go?",
            "detail": "# Plan",
            "options": [{"label": "No"}, {"label": "Yes"}],
            "intent": {"kind": "plan-review", "approve": "Yes"},
        }
    )
    record = AskRecord(id="p", questions=[plan], created_at=0.0)

    def answered(label: str) -> AskRecord:
        answer = AskUserQuestionAnswer.model_validate(
            {"answers": [{"id": "plan", "selected": [label]}]}
        )
        return record.model_copy(update={"state": AskState.ANSWERED, "answer": answer})

    assert (record.is_plan_review, record.approved) == (True, False)
    assert answered("Yes").approved
    assert not answered("No").approved
    plain = AskRecord(id="q", questions=[plan.model_copy(update={"intent": None})], created_at=0.0)
    assert not plain.is_plan_review
