"""Replicas of the Slack provider sharing one SQLite file, each with its Bolt app served, for
the tests of claims across replicas."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from aiohttp import web

from bot import SlackQuestionProvider, SlackSettings
from bot.review import ReviewPolicies, ReviewPolicy
from bot.store.sqlite import SqliteStore
from slack_emulator import ManualClock, Message, SlackEmulator

from .harness import CHANNEL, REVIEWERS, SECRET, TOKEN

LAPSE = 1800.0
POLICIES = ReviewPolicies(default=ReviewPolicy(reviewers=(REVIEWERS,), claim_lapse=LAPSE))


def thread_lines(emu: SlackEmulator, message: Message) -> list[str]:
    """The bot's replies under the ask, oldest first."""
    root = message.thread_ts or message.ts
    return [m.text for m in emu.thread(message.channel, root) if m.ts not in (message.ts, root)]


@asynccontextmanager
async def replica(
    emu: SlackEmulator, db: Path, name: str, clock: ManualClock
) -> AsyncIterator[tuple[SlackQuestionProvider, str]]:
    """A provider sharing the SQLite file `db` with the other replicas, and the URL its Bolt
    app is served at on 127.0.0.1 (clicks go where `emu.request_url` points)."""
    settings = SlackSettings(
        bot_token=TOKEN,
        signing_secret=SECRET,
        channel=CHANNEL,
        api_url=emu.api_url,
        review=POLICIES,
    )
    async with SqliteStore(db) as store:
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
