"""The export's rows: times, permalinks, answers, and reading a store page by page."""

from __future__ import annotations

import pytest

from bot.asks.audit_export import iso, parse_time, permalink, records_in, row_of
from bot.store import AskRecord, MemoryStore
from bot.store.queries import AskQuery
from provider import AskUserQuestionAnswer, AskUserQuestionAnswerItem, AskUserQuestionItem

WORKSPACE = "https://acme.slack.com/"
NAME = AskUserQuestionItem(id="name", question="Name it")
OTHER = AskUserQuestionItem(id="other", question="And?")


def ask(**fields: object) -> AskRecord:
    return AskRecord.model_validate({"id": "a", "questions": [NAME], "created_at": 0.0, **fields})


def test_times_are_iso_utc_to_the_millisecond() -> None:
    assert iso(1796115600.0125) == "2026-12-01T09:00:00.012Z"


def test_a_time_with_an_offset_is_that_instant_and_one_without_is_utc() -> None:
    assert parse_time("2026-12-01T10:00:00+01:00", "x") == parse_time("2026-12-01T09:00", "x")
    assert parse_time("2026-12-01t09:00:00z", "x") == 1796115600.0


def test_a_time_that_is_no_iso_date_names_the_argument() -> None:
    with pytest.raises(ValueError, match="is not an ISO-8601") as raised:
        parse_time("noon", "--since")
    assert str(raised.value) == (
        "--since 'noon' is not an ISO-8601 date or time (e.g. 2026-12-01 or 2026-12-01T09:30:00Z)"
    )


def test_an_ask_never_posted_has_no_permalink() -> None:
    assert permalink(WORKSPACE, ask(channel="C1")) == ""


def test_without_a_workspace_url_there_is_no_permalink() -> None:
    assert permalink(None, ask(channel="C1", message_ts=["1.000200"])) == ""


def test_a_thread_root_links_without_a_thread() -> None:
    record = ask(channel="C1", thread_ts="1.000200", message_ts=["1.000200", "1.000300"])
    assert permalink(WORKSPACE, record) == "https://acme.slack.com/archives/C1/p1000200"


def test_a_reply_links_into_its_thread() -> None:
    record = ask(channel="C1", thread_ts="1.000100", message_ts=["1.000200"])
    assert permalink("https://acme.slack.com", record) == (
        "https://acme.slack.com/archives/C1/p1000200?thread_ts=1.000100&cid=C1"
    )


def test_a_skipped_question_in_a_batch_reads_empty_after_its_id() -> None:
    answer = AskUserQuestionAnswer(
        answers=[
            AskUserQuestionAnswerItem(id="name", custom="api"),
            AskUserQuestionAnswerItem(id="other", selected=[]),
        ]
    )
    row = row_of(ask(questions=[NAME, OTHER], answer=answer))
    assert (row.question, row.answer) == ("name: Name it\nother: And?", "name: api\nother: ")


async def test_every_ask_is_read_across_pages_in_order() -> None:
    store = MemoryStore()
    for n in range(1203):
        await store.add(ask(id=f"a{n:05d}", created_at=float(n)))
    ids = [r.id async for r in records_in(store, AskQuery(since=0, until=5000))]
    assert ids == [f"a{n:05d}" for n in range(1203)]
