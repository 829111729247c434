"""`python -m bot erase ASK_ID`: one settled ask leaves the store now; a pending one and an
unknown id are refused, saying what to do."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.cli import main
from bot.outcomes import Verdict
from bot.store import AskEvent, AskRecord, AskState, AskStore, EventKind, InboxItem, InboxKind
from bot.store.postgres import PostgresStore
from bot.store.sqlite import SqliteStore
from provider import AskUserQuestionItem

NAME = AskUserQuestionItem(id="name", question="Name the service")
ASK_ID = "0123456789abcdef"


async def fill(store: AskStore, *, settled: bool) -> None:
    record = AskRecord(
        id=ASK_ID,
        questions=[NAME],
        created_at=1.0,
        channel="C0QUESTION",
        message_ts=["1.000100"],
    )
    await store.add(record)
    await store.inbox_add(
        InboxItem(
            id="i1",
            received_at=2.0,
            kind=InboxKind.BLOCK_ACTIONS,
            body=f'payload={{"value":"{ASK_ID}/0"}}',
        )
    )
    if settled:
        ended = record.evolve(state=AskState.ANSWERED, verdict=Verdict.ANSWERED, decided_at=2.0)
        await store.settle(ended, AskEvent(ask_id=ASK_ID, at=2.0, kind=EventKind.ANSWERED))
    await store.close()


async def rows(store: AskStore) -> tuple[AskRecord | None, int, int]:
    try:
        return (
            await store.get(ASK_ID),
            len(await store.events(ASK_ID)),
            len(await store.inbox_pending()),
        )
    finally:
        await store.close()


def sqlite_file(tmp_path: Path, *, settled: bool) -> Path:
    db = tmp_path / "asks.db"
    asyncio.run(_filled(db, settled))
    return db


async def _filled(db: Path, settled: bool) -> None:
    await fill(await SqliteStore.open(db), settled=settled)


def test_erase_deletes_a_settled_asks_rows_and_says_what_slack_still_shows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = sqlite_file(tmp_path, settled=True)
    assert main(["erase", ASK_ID, "--db", str(db)]) == 0
    assert capsys.readouterr().out == (
        f"erased ask {ASK_ID}: its questions, answers, events and inbox rows are gone\n"
        "Slack still shows its 1 message(s) in C0QUESTION (ts 1.000100): delete them there, "
        "or let Slack's retention remove them\n"
    )
    assert asyncio.run(_rows_sqlite(db)) == (None, 0, 0)


async def _rows_sqlite(db: Path) -> tuple[AskRecord | None, int, int]:
    return await rows(await SqliteStore.open(db))


def test_erase_refuses_a_pending_ask_saying_to_withdraw_it_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = sqlite_file(tmp_path, settled=False)
    assert main(["erase", ASK_ID, "--db", f"sqlite:{db}"]) == 1
    assert capsys.readouterr().err == (
        f"cannot erase: ask {ASK_ID} is still pending: withdraw it first "
        f"(DELETE /v1/asks/{ASK_ID} on the relay, or withdraw_question over MCP), "
        "so its agent is told, then erase it\n"
    )
    record, events, inbox = asyncio.run(_rows_sqlite(db))
    assert (record is not None, events, inbox) == (True, 1, 1)


def test_erase_of_an_unknown_id_exits_2_naming_the_id_and_the_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = sqlite_file(tmp_path, settled=True)
    assert main(["erase", "nope", "--db", str(db)]) == 2
    assert capsys.readouterr().err == f"cannot erase: no ask 'nope' in the store {db}\n"


def test_erase_without_a_store_file_exits_2_and_creates_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "missing.db"
    monkeypatch.setenv("SLACK_QUESTIONS_DB", str(missing))
    assert main(["erase", ASK_ID]) == 2
    assert capsys.readouterr().err == (
        f"cannot erase: there is no store at {missing}: name it with --db or SLACK_QUESTIONS_DB\n"
    )
    assert not missing.exists()


def test_erase_reaches_a_postgresql_store_by_its_url(
    postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    async def filled() -> None:
        await fill(await PostgresStore.open(postgres_url), settled=True)

    async def left() -> tuple[AskRecord | None, int, int]:
        return await rows(await PostgresStore.open(postgres_url))

    asyncio.run(filled())
    assert main(["erase", ASK_ID, "--db", postgres_url]) == 0
    assert capsys.readouterr().out.startswith(f"erased ask {ASK_ID}:")
    assert asyncio.run(left()) == (None, 0, 0)
