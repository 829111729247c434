"""Where the store is: `SLACK_QUESTIONS_DB` read by one set of rules, for the service and for
the commands that open the store without it (`credentials`, `erase`).

A `postgresql://` (or `postgres://`) URL selects PostgreSQL; a path, or `sqlite:` and a path,
keeps SQLite; nothing is `slack-questions.db`. Light on purpose: no backend is imported here.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from pydantic import SecretStr

from bot.store.protocol import AskStore

DEFAULT_DB: Final = Path("slack-questions.db")
POSTGRES_SCHEMES: Final = ("postgresql://", "postgres://")


class LocationError(ValueError):
    """`SLACK_QUESTIONS_DB` names no store; the message says what it should be."""


@dataclass(frozen=True)
class StoreLocation:
    """A SQLite file, or a PostgreSQL database shared by replicas (then `path` is unused)."""

    path: Path = DEFAULT_DB
    postgres_url: SecretStr | None = None


def store_location(value: str | None) -> StoreLocation:
    """The store `value` (SLACK_QUESTIONS_DB or --db) names; `LocationError` if none."""
    if value is None or not value.strip():
        return StoreLocation()
    value = value.strip()
    if value.startswith(POSTGRES_SCHEMES):
        return StoreLocation(postgres_url=SecretStr(value))
    if value.startswith("sqlite:"):
        value = value.removeprefix("sqlite:").removeprefix("//")
        if not value:
            raise LocationError(
                "SLACK_QUESTIONS_DB=sqlite: needs a file after it, e.g. sqlite:asks.db"
            )
    elif "://" in value:
        scheme = value.split("://", 1)[0]
        raise LocationError(
            f"SLACK_QUESTIONS_DB must be a SQLite file or a postgresql:// URL, not a {scheme}:// URL"
        )
    return StoreLocation(path=Path(value))


async def open_store_at(location: StoreLocation, *, create: bool = True) -> AskStore:
    """A started store at `location`, for a command that opens it without the service (one
    PostgreSQL connection is enough); `create=False` refuses a SQLite file that is not there
    rather than make an empty one. `LocationError` says why it cannot be opened."""
    if location.postgres_url is not None:
        try:  # the optional `postgres` extra
            from bot.store.postgres import PostgresStore
            from bot.store.postgres_connect import PostgresStoreError
        except ImportError as error:
            raise LocationError(f"the PostgreSQL driver is missing ({error})") from error
        try:
            return await PostgresStore.open(
                location.postgres_url.get_secret_value(), max_connections=1
            )
        except PostgresStoreError as error:
            raise LocationError(str(error)) from error
    from bot.store.sqlite import SqliteStore, StoreError

    if not create and not await asyncio.to_thread(location.path.is_file):
        raise LocationError(
            f"there is no store at {location.path}: name it with --db or SLACK_QUESTIONS_DB"
        )
    try:
        return await SqliteStore.open(location.path)
    except StoreError as error:
        raise LocationError(str(error)) from error
