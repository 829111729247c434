"""The `AskStore` contract: every store (in memory, SQLite, PostgreSQL) passes the same tests."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.outcomes import Verdict
from bot.store import (
    AskError,
    AskEvent,
    AskRecord,
    AskState,
    AskStore,
    EventKind,
    InboxItem,
    InboxKind,
    Lease,
    MemoryStore,
    PartAnswer,
    StoredRule,
    ThreadRef,
)
from bot.store.postgres import PostgresStore
from bot.store.sqlite import SqliteStore
from provider import (
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionOption,
    ErrorCode,
    PlanReviewIntent,
)

NAME = AskUserQuestionItem(id="name", question="Name the service")


@pytest.fixture(params=["memory", "sqlite", "postgres"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[AskStore]:
    chosen: AskStore
    if request.param == "memory":
        chosen = MemoryStore()
    elif request.param == "sqlite":
        chosen = await SqliteStore.open(tmp_path / "asks.db")
    else:
        # A fresh database on the session's server (tests/conftest.py).
        chosen = await PostgresStore.open(request.getfixturevalue("postgres_url"))
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
        requester="U0ALICE001",
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


def test_an_ask_stored_before_requesters_were_kept_reads_back_with_none() -> None:
    stored = full_record().model_dump(mode="json")
    del stored["requester"]
    assert AskRecord.model_validate_json(json.dumps(stored)).requester is None


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
    # Which add wins is the store's to decide (a pool runs them side by side); all agree.
    [winner] = [record for record, added in results if added]
    assert results == [(winner, added) for _, added in results]
    assert winner in [ask(f"a{n}", key="k") for n in range(5)]
    assert await store.recent() == [winner]
    assert [e.kind for e in await store.events(winner.id)] == [EventKind.CREATED]


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


# --- settle: first answer wins --------------------------------------------------------------


def answered_by(ask_id: str, who: str) -> tuple[AskRecord, AskEvent]:
    """`ask_id` answered by `who`, and the event that says so."""
    record = ask(
        ask_id,
        state=AskState.ANSWERED,
        verdict=Verdict.ANSWERED,
        answer=AskUserQuestionAnswer(answers=[AskUserQuestionAnswerItem(id="name", custom=who)]),
        decided_by=who,
        decided_at=1010.0,
    )
    return record, event(ask_id, EventKind.ANSWERED, 1010.0, actor=who)


async def test_settling_a_pending_ask_stores_it_with_its_event_and_wins(store: AskStore) -> None:
    await store.add(ask("a1"))
    record, done = answered_by("a1", "U_ALICE")
    assert await store.settle(record, done) is True
    assert await store.get("a1") == record
    assert await store.events("a1") == [event("a1", EventKind.CREATED, 1000.0), done]
    assert await store.pending() == []


async def test_settling_an_ended_ask_loses_and_writes_nothing(store: AskStore) -> None:
    await store.add(ask("a1"))
    alice, alice_done = answered_by("a1", "U_ALICE")
    bob, bob_done = answered_by("a1", "U_BOB")
    await store.settle(alice, alice_done)
    assert await store.settle(bob, bob_done) is False
    assert await store.get("a1") == alice
    assert await store.events("a1") == [event("a1", EventKind.CREATED, 1000.0), alice_done]


async def test_concurrent_settles_of_one_ask_have_exactly_one_winner(store: AskStore) -> None:
    await store.add(ask("a1"))
    tries = [answered_by("a1", f"U_{n}") for n in range(8)]
    won = await asyncio.gather(*(store.settle(record, done) for record, done in tries))
    assert sorted(won) == [False] * 7 + [True]
    winner, winner_done = tries[won.index(True)]
    assert await store.get("a1") == winner
    assert (await store.events("a1"))[1:] == [winner_done]


async def test_settling_an_unknown_ask_is_a_key_error(store: AskStore) -> None:
    with pytest.raises(KeyError, match="missing"):
        await store.settle(*answered_by("missing", "U_ALICE"))


async def test_settle_refuses_a_record_that_is_still_pending(store: AskStore) -> None:
    await store.add(ask("a1"))
    with pytest.raises(ValueError, match="ask 'a1' is still pending: settle takes a settled"):
        await store.settle(ask("a1", message_ts=["1.0"]), event("a1", EventKind.POSTED, 1.0))
    assert await store.get("a1") == ask("a1")


async def test_settle_refuses_an_event_of_another_ask(store: AskStore) -> None:
    await store.add(ask("a1"))
    record, _ = answered_by("a1", "U_ALICE")
    with pytest.raises(ValueError, match="event of ask 'a2' settled with ask 'a1'"):
        await store.settle(record, event("a2", EventKind.ANSWERED, 1.0))
    assert await store.get("a1") == ask("a1")


# --- claim_thread: one thread per session ---------------------------------------------------


async def test_claiming_a_new_sessions_thread_stores_and_returns_it(store: AskStore) -> None:
    ref = ThreadRef(channel="C1", thread_ts="1.000100")
    assert await store.claim_thread("planner-7", ref) == ref
    assert await store.thread("planner-7") == ref


async def test_a_later_claim_gets_the_first_thread_and_replaces_nothing(store: AskStore) -> None:
    first = ThreadRef(channel="C1", thread_ts="1.000100")
    await store.claim_thread("planner-7", first)
    assert await store.claim_thread("planner-7", ThreadRef(channel="C1", thread_ts="2.0")) == first
    assert await store.thread("planner-7") == first


async def test_a_claim_gets_a_thread_that_was_set_before(store: AskStore) -> None:
    routed = ThreadRef(channel="C9", thread_ts="9.000900")
    await store.set_thread("planner-7", routed)
    assert await store.claim_thread("planner-7", ThreadRef(channel="C1", thread_ts="1.0")) == routed


async def test_concurrent_claims_of_one_session_all_get_one_thread(store: AskStore) -> None:
    refs = [ThreadRef(channel="C1", thread_ts=f"{n}.000100") for n in range(8)]
    got = await asyncio.gather(*(store.claim_thread("planner-7", ref) for ref in refs))
    assert got[0] in refs
    assert got == [got[0]] * 8
    assert await store.thread("planner-7") == got[0]


# --- the inbox ---------------------------------------------------------------------------


def inbox_item(item_id: str, at: float, kind: InboxKind = InboxKind.BLOCK_ACTIONS) -> InboxItem:
    # A signed body holds anything Slack sends: emoji, quotes, percent-escapes, newlines.
    body = 'payload=%7B%22type%22%3A%22block_actions%22%7D&x="é 🚀"\n'
    return InboxItem(id=item_id, received_at=at, kind=kind, body=body)


async def test_an_added_inbox_item_is_pending_exactly_as_stored(store: AskStore) -> None:
    item = inbox_item("i1", 1000.25, InboxKind.VIEW_SUBMISSION)
    await store.inbox_add(item)
    assert await store.inbox_pending() == [item]


async def test_the_inbox_is_pending_oldest_first_and_in_arrival_order_at_one_time(
    store: AskStore,
) -> None:
    items = [inbox_item("late", 2000.0), inbox_item("b", 1000.0), inbox_item("a", 1000.0)]
    for item in items:
        await store.inbox_add(item)
    assert [i.id for i in await store.inbox_pending()] == ["b", "a", "late"]


async def test_a_done_inbox_item_is_no_longer_pending(store: AskStore) -> None:
    await store.inbox_add(inbox_item("i1", 1000.0))
    await store.inbox_add(inbox_item("i2", 1001.0, InboxKind.MESSAGE))
    await store.inbox_done("i1")
    await store.inbox_done("unknown")
    assert [i.id for i in await store.inbox_pending()] == ["i2"]


async def test_an_inbox_item_id_is_stored_once(store: AskStore) -> None:
    await store.inbox_add(inbox_item("i1", 1000.0))
    with pytest.raises(ValueError, match="inbox item i1 is already stored"):
        await store.inbox_add(inbox_item("i1", 1001.0))
    assert [i.received_at for i in await store.inbox_pending()] == [1000.0]


# --- advance: progress saves never overwrite a newer write -----------------------------------


def posted(ask_id: str, version: int, ts: str) -> tuple[AskRecord, AskEvent]:
    """`ask_id` with one more part posted, one version past `version - 1`."""
    record = ask(ask_id, message_ts=[ts], version=version)
    return record, event(ask_id, EventKind.POSTED, 1001.0, detail=f"part 0 at {ts}")


async def test_advancing_from_the_stored_version_saves_the_record_and_its_event(
    store: AskStore,
) -> None:
    await store.add(ask("a1"))
    record, done = posted("a1", 1, "1.000100")
    assert await store.advance(record, done) is True
    assert await store.get("a1") == record
    assert await store.events("a1") == [event("a1", EventKind.CREATED, 1000.0), done]


async def test_advancing_a_stale_copy_writes_nothing(store: AskStore) -> None:
    await store.add(ask("a1"))
    first, first_done = posted("a1", 1, "1.000100")
    await store.advance(first, first_done)
    assert await store.advance(*posted("a1", 1, "2.000200")) is False
    assert await store.get("a1") == first
    assert await store.events("a1") == [event("a1", EventKind.CREATED, 1000.0), first_done]


async def test_two_part_answers_from_one_version_save_exactly_one(store: AskStore) -> None:
    await store.add(ask("a1"))
    parts = [
        ask("a1", version=1, parts_done={n: PartAnswer(by=f"U{n}", at=1.0, answers=[])})
        for n in range(2)
    ]
    saved = await asyncio.gather(
        *(store.advance(p, event("a1", EventKind.PART_ANSWERED, 1.0)) for p in parts)
    )
    assert sorted(saved) == [False, True]
    assert await store.get("a1") == parts[saved.index(True)]


async def test_advancing_a_settled_ask_loses_and_writes_nothing(store: AskStore) -> None:
    await store.add(ask("a1"))
    record, done = answered_by("a1", "U_ALICE")
    await store.settle(record, done)
    assert await store.advance(*posted("a1", 1, "1.000100")) is False
    assert await store.get("a1") == record


async def test_advancing_an_unknown_ask_is_a_key_error(store: AskStore) -> None:
    with pytest.raises(KeyError, match="missing"):
        await store.advance(*posted("missing", 1, "1.000100"))


async def test_advance_refuses_a_settled_record(store: AskStore) -> None:
    await store.add(ask("a1"))
    with pytest.raises(ValueError, match="ask 'a1' is settled: advance saves progress"):
        await store.advance(*answered_by("a1", "U_ALICE"))


# --- lease: work done once across replicas --------------------------------------------------


async def test_a_free_lease_is_granted_with_nothing_lapsed(store: AskStore) -> None:
    assert await store.lease("post:a1", "replica-a", now=10.0, until=20.0) == Lease()


async def test_a_held_lease_is_refused_to_another_owner(store: AskStore) -> None:
    await store.lease("post:a1", "replica-a", now=10.0, until=20.0)
    assert await store.lease("post:a1", "replica-b", now=19.0, until=29.0) is None


async def test_its_holder_takes_a_lease_again(store: AskStore) -> None:
    await store.lease("post:a1", "replica-a", now=10.0, until=20.0)
    assert await store.lease("post:a1", "replica-a", now=15.0, until=25.0) == Lease()
    assert await store.lease("post:a1", "replica-b", now=21.0, until=31.0) is None


async def test_a_lapsed_lease_goes_to_another_owner_naming_the_one_it_lapsed_from(
    store: AskStore,
) -> None:
    await store.lease("post:a1", "replica-a", now=10.0, until=20.0)
    assert await store.lease("post:a1", "replica-b", now=20.5, until=30.0) == Lease(
        lapsed="replica-a"
    )
    assert await store.lease("post:a1", "replica-a", now=21.0, until=31.0) is None


async def test_a_restarted_replica_takes_its_predecessors_lease_at_once_as_lapsed(
    store: AskStore,
) -> None:
    await store.lease("post:a1", "host-1:3000#old", now=10.0, until=20.0)
    assert await store.lease("post:a1", "host-2:3000#other", now=11.0, until=21.0) is None
    assert await store.lease("post:a1", "host-1:3000#new", now=11.0, until=21.0) == Lease(
        lapsed="host-1:3000#old"
    )


async def test_a_released_lease_is_free_for_anyone_with_nothing_lapsed(store: AskStore) -> None:
    await store.lease("post:a1", "replica-a", now=10.0, until=20.0)
    await store.release("post:a1", "replica-a")
    assert await store.lease("post:a1", "replica-b", now=11.0, until=21.0) == Lease()


async def test_releasing_a_lease_held_by_another_owner_changes_nothing(store: AskStore) -> None:
    await store.lease("post:a1", "replica-a", now=10.0, until=20.0)
    await store.release("post:a1", "replica-b")
    assert await store.lease("post:a1", "replica-b", now=11.0, until=21.0) is None


async def test_concurrent_takers_of_a_free_lease_get_exactly_one_grant(store: AskStore) -> None:
    grants = await asyncio.gather(
        *(store.lease("post:a1", f"replica-{n}", now=10.0, until=20.0) for n in range(8))
    )
    assert sorted(g is not None for g in grants) == [False] * 7 + [True]


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


# --- rules saved with "Always allow" ------------------------------------------------------


def saved_rule(name: str = "bash-git-status", *, at: float = 1000.0) -> StoredRule:
    return StoredRule(
        name=name,
        tool="Bash",
        args={"command": "re:git status( .*)?"},
        scope="agent",
        subject="claude-code/s1",
        created_by="U0ALICE",
        created_at=at,
        ask_id="a1",
        expires_at=at + 86400,
    )


async def test_a_stored_rule_is_read_back_as_it_was_saved(store: AskStore) -> None:
    await store.add_rule(saved_rule())
    assert await store.rules() == [saved_rule()]


async def test_stored_rules_are_read_oldest_first(store: AskStore) -> None:
    await store.add_rule(saved_rule("later", at=2000.0))
    await store.add_rule(saved_rule("earlier", at=1000.0))
    assert [r.name for r in await store.rules()] == ["earlier", "later"]


async def test_a_second_rule_of_the_same_name_is_refused_and_the_first_kept(
    store: AskStore,
) -> None:
    await store.add_rule(saved_rule())
    other = saved_rule().model_copy(update={"args": {"command": "*"}, "created_by": "U0BOB"})
    with pytest.raises(ValueError, match="a rule named bash-git-status is already stored"):
        await store.add_rule(other)
    assert await store.rules() == [saved_rule()]


async def test_revoking_a_rule_stores_who_revoked_it_when(store: AskStore) -> None:
    await store.add_rule(saved_rule())
    at = 1796284306.1234567  # a clock's reading, every digit of it kept
    revoked = saved_rule().model_copy(update={"revoked_at": at, "revoked_by": "U0BOB"})
    assert await store.revoke_rule("bash-git-status", "U0BOB", at) == revoked
    assert await store.rules() == [revoked]


async def test_a_second_revoke_of_a_rule_keeps_the_first(store: AskStore) -> None:
    await store.add_rule(saved_rule())
    first = await store.revoke_rule("bash-git-status", "U0BOB", 1500.0)
    assert await store.revoke_rule("bash-git-status", "U0ALICE", 1600.0) == first
    assert await store.rules() == [first]


async def test_revoking_a_rule_no_one_saved_finds_none(store: AskStore) -> None:
    await store.add_rule(saved_rule())
    assert await store.revoke_rule("other", "U0BOB", 1500.0) is None
    assert await store.rules() == [saved_rule()]
