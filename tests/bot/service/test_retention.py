"""The service purges settled asks past SLACK_QUESTIONS_RETENTION on its timer."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from bot.outcomes import Verdict
from bot.service.server import Timings
from bot.store import AskEvent, AskRecord, AskState, EventKind
from bot.store.sqlite import SqliteStore
from provider import AskUserQuestionItem
from slack_emulator import SlackEmulator

from .harness import in_process

NAME = AskUserQuestionItem(id="name", question="Name the service")
DAY = 86400.0
AT_ONCE = Timings(purge_first_after=0.0)


async def keep(db: Path, ask_id: str, *, decided: float | None) -> None:
    """An ask in the file before the service starts: settled at `decided`, else pending."""
    async with SqliteStore(db) as store:
        record = AskRecord(id=ask_id, questions=[NAME], created_at=decided or 1.0)
        await store.add(record)
        if decided is not None:
            ended = record.evolve(
                state=AskState.ANSWERED, verdict=Verdict.ANSWERED, decided_at=decided
            )
            await store.settle(ended, AskEvent(ask_id=ask_id, at=decided, kind=EventKind.ANSWERED))


async def test_the_service_purges_asks_settled_before_the_retention_soon_after_start(
    emu: SlackEmulator, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db = tmp_path / "asks.db"
    await keep(db, "expired", decided=1.0)
    await keep(db, "old-but-pending", decided=None)
    caplog.set_level(logging.INFO, logger="bot.asks.retention")
    async with in_process(emu, db, timings=AT_ONCE, SLACK_QUESTIONS_RETENTION="30d") as server:
        assert server.retention is not None
        await server.retention.ran()
        assert await server.store.get("expired") is None
        assert await server.store.events("expired") == []
        assert [r.id for r in await server.store.recent()] == ["old-but-pending"]
    assert "retention: purged 1 settled ask(s) older than 30d" in caplog.messages


async def test_a_retention_of_forever_runs_no_timer(emu: SlackEmulator, tmp_path: Path) -> None:
    db = tmp_path / "asks.db"
    await keep(db, "expired", decided=1.0)
    async with in_process(emu, db, timings=AT_ONCE, SLACK_QUESTIONS_RETENTION="forever") as server:
        assert server.retention is None
        assert await server.store.get("expired") is not None
