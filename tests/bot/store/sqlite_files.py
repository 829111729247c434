"""What the SQLite store's tests share: an ask to store, and a plain connection to the file as
another process would see it (the `db` and `store` fixtures are in conftest.py)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

from bot.store import AskRecord
from provider import AskUserQuestionItem

NAME = AskUserQuestionItem(id="name", question="Name the service")


def ask(ask_id: str, *, at: float = 1000.0, key: str | None = None, **fields: object) -> AskRecord:
    """An ask of one text question, created at `at`."""
    return AskRecord.model_validate(
        {"id": ask_id, "questions": [NAME], "created_at": at, "idempotency_key": key, **fields}
    )


@contextmanager
def raw(db: Path) -> Iterator[sqlite3.Connection]:
    """A plain connection to the file, as another process would see it."""
    with closing(sqlite3.connect(db, isolation_level=None)) as conn:
        yield conn


def scalar(db: Path, query: str) -> object:
    """The one value `query` reads from the file."""
    with raw(db) as conn:
        return conn.execute(query).fetchone()[0]
