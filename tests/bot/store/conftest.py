"""Fixtures of the store tests: a database path, and the SQLite store opened on it (a test
module that needs another store defines its own `store`)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.store.sqlite import SqliteStore


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """Where the test's database file goes."""
    return tmp_path / "asks.db"


@pytest.fixture
async def store(db: Path) -> AsyncIterator[SqliteStore]:
    """A store opened on `db`, closed after the test."""
    async with SqliteStore(db) as opened:
        yield opened
