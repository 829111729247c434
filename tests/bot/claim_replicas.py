"""Replicas of the Slack provider sharing one store (a SQLite file, or a PostgreSQL schema),
each with its Bolt app served, for the tests of claims across replicas."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from aiohttp import web

from bot import SlackQuestionProvider, SlackSettings
from bot.review import ReviewPolicies, ReviewPolicy
from bot.store.postgres import PostgresStore
from bot.store.sqlite import SqliteStore
from slack_emulator import ManualClock, Message, SlackEmulator

from .harness import CHANNEL, REVIEWERS, SECRET, TOKEN

LAPSE = 1800.0
POLICIES = ReviewPolicies(default=ReviewPolicy(reviewers=(REVIEWERS,), claim_lapse=LAPSE))


def thread_lines(emu: SlackEmulator, message: Message) -> list[str]:
    """The bot's replies under the ask, oldest first."""
    root = message.thread_ts or message.ts
    return [m.text for m in emu.thread(message.channel, root) if m.ts not in (message.ts, root)]


def shared_store(db: Path | str) -> SqliteStore | PostgresStore:
    """A store on `db`: a SQLite file's path, or a PostgreSQL URL."""
    return SqliteStore(db) if isinstance(db, Path) else PostgresStore(db)


BACKENDS = ["sqlite", "postgres"]


def shared_location(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    """Where the replicas keep their asks, by the fixture's param (`BACKENDS`): a SQLite
    file, or a PostgreSQL schema of the test's own."""
    if request.param == "sqlite":
        return tmp_path / "asks.db"
    return str(request.getfixturevalue("postgres_url"))


@asynccontextmanager
async def replica(
    emu: SlackEmulator, db: Path | str, name: str, clock: ManualClock
) -> AsyncIterator[tuple[SlackQuestionProvider, str]]:
    """A provider sharing the store at `db` with the other replicas, and the URL its Bolt
    app is served at on 127.0.0.1 (clicks go where `emu.request_url` points)."""
    settings = SlackSettings(
        bot_token=TOKEN,
        signing_secret=SECRET,
        channel=CHANNEL,
        api_url=emu.api_url,
        review=POLICIES,
    )
    async with shared_store(db) as store:
        provider = await SlackQuestionProvider.start(
            settings, store=store, clock=clock, shared=True, replica=name
        )
        runner = web.AppRunner(provider.app.web_app(path="/slack/events"), shutdown_timeout=1.0)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        host, port = runner.addresses[0][:2]
        try:
            yield provider, f"http://{host}:{port}/slack/events"
        finally:
            await runner.cleanup()
            await provider.close()
