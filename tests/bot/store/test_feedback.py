"""Feedback on decided asks, on every store (memory, SQLite, PostgreSQL): one row per ask and
person, a second click changes the verdict, a note keeps it, and the rows go with their ask."""

from __future__ import annotations

from bot.store import AskStore, Feedback, FeedbackVerdict
from tests.bot.store.test_contract import answered_by, ask, store

__all__ = ["store"]

RIGHT, WRONG = FeedbackVerdict.RIGHT, FeedbackVerdict.WRONG


async def decided(store: AskStore, ask_id: str) -> None:
    await store.add(ask(ask_id))
    await store.settle(*answered_by(ask_id, "U_ALICE"))


async def test_feedback_is_kept_with_who_gave_it_and_when(store: AskStore) -> None:
    await decided(store, "a1")
    await store.give_feedback(Feedback(ask_id="a1", person="U_BOB", verdict=RIGHT, at=1100.0))
    assert await store.feedback(["a1"]) == [
        Feedback(ask_id="a1", person="U_BOB", verdict=RIGHT, note=None, at=1100.0)
    ]


async def test_a_second_click_changes_the_persons_verdict_and_adds_no_row(store: AskStore) -> None:
    await decided(store, "a1")
    await store.give_feedback(Feedback(ask_id="a1", person="U_BOB", verdict=RIGHT, at=1100.0))
    await store.give_feedback(Feedback(ask_id="a1", person="U_BOB", verdict=WRONG, at=1200.0))
    assert await store.feedback(["a1"]) == [
        Feedback(ask_id="a1", person="U_BOB", verdict=WRONG, at=1200.0)
    ]


async def test_a_note_keeps_the_verdict_and_a_verdict_keeps_the_note(store: AskStore) -> None:
    await decided(store, "a1")
    await store.give_feedback(Feedback(ask_id="a1", person="U_BOB", verdict=WRONG, at=1100.0))
    await store.give_feedback(
        Feedback(ask_id="a1", person="U_BOB", note="should have asked security", at=1200.0)
    )
    await store.give_feedback(Feedback(ask_id="a1", person="U_BOB", verdict=WRONG, at=1300.0))
    assert await store.feedback(["a1"]) == [
        Feedback(
            ask_id="a1", person="U_BOB", verdict=WRONG, note="should have asked security", at=1300.0
        )
    ]


async def test_feedback_is_read_for_the_asks_named_oldest_first(store: AskStore) -> None:
    for ask_id in ("a1", "a2", "a3"):
        await decided(store, ask_id)
    await store.give_feedback(Feedback(ask_id="a2", person="U_CAROL", verdict=WRONG, at=1300.0))
    await store.give_feedback(Feedback(ask_id="a1", person="U_BOB", verdict=RIGHT, at=1200.0))
    await store.give_feedback(Feedback(ask_id="a3", person="U_BOB", verdict=RIGHT, at=1100.0))
    assert [(f.ask_id, f.person) for f in await store.feedback(["a1", "a2"])] == [
        ("a1", "U_BOB"),
        ("a2", "U_CAROL"),
    ]
    assert await store.feedback([]) == []


async def test_erasing_an_ask_erases_its_feedback(store: AskStore) -> None:
    await decided(store, "a1")
    await store.give_feedback(Feedback(ask_id="a1", person="U_BOB", note="typed", at=1100.0))
    assert await store.erase("a1") is True
    assert await store.feedback(["a1"]) == []


async def test_purging_an_ask_purges_its_feedback(store: AskStore) -> None:
    await decided(store, "a1")
    await store.give_feedback(Feedback(ask_id="a1", person="U_BOB", verdict=RIGHT, at=1100.0))
    assert await store.purge(5000.0) == 1
    assert await store.feedback(["a1"]) == []
