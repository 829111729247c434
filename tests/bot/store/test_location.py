"""SLACK_QUESTIONS_DB read by one set of rules, for the service and the store commands."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.store.location import (
    DEFAULT_DB,
    LocationError,
    StoreLocation,
    open_store_at,
    store_location,
)


def test_nothing_names_the_default_sqlite_file() -> None:
    assert store_location(None) == StoreLocation(path=DEFAULT_DB)
    assert store_location("  ") == StoreLocation(path=DEFAULT_DB)


@pytest.mark.parametrize("value", ["asks.db", "sqlite:asks.db", "sqlite://asks.db"])
def test_a_path_with_or_without_sqlite_before_it_is_a_sqlite_file(value: str) -> None:
    assert store_location(value) == StoreLocation(path=Path("asks.db"))


@pytest.mark.parametrize("url", ["postgresql://u:p@db/asks", "postgres://u:p@db/asks"])
def test_a_postgresql_url_selects_postgresql(url: str) -> None:
    location = store_location(url)
    assert location.postgres_url is not None
    assert location.postgres_url.get_secret_value() == url


def test_sqlite_with_no_file_is_refused_with_an_example() -> None:
    with pytest.raises(LocationError) as refused:
        store_location("sqlite:")
    assert str(refused.value) == (
        "SLACK_QUESTIONS_DB=sqlite: needs a file after it, e.g. sqlite:asks.db"
    )


def test_another_scheme_is_refused_naming_it() -> None:
    with pytest.raises(LocationError) as refused:
        store_location("mysql://db/asks")
    assert str(refused.value) == (
        "SLACK_QUESTIONS_DB must be a SQLite file or a postgresql:// URL, not a mysql:// URL"
    )


async def test_a_missing_file_is_refused_rather_than_made_when_it_must_exist(
    tmp_path: Path,
) -> None:
    missing = tmp_path / "nowhere.db"
    with pytest.raises(LocationError) as refused:
        await open_store_at(StoreLocation(path=missing), create=False)
    assert str(refused.value) == (
        f"there is no store at {missing}: name it with --db or SLACK_QUESTIONS_DB"
    )
    assert not missing.exists()
