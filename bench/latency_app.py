"""The app side of bench.provider_latency, run as its own process like a real Slack app.

    python -m bench.latency_app provider|bare --api-url URL --port PORT --rounds N [--db PATH]

`provider`: the full SlackQuestionProvider with an agent that asks N one-click questions in a
row; with `--db` on the SQLite store `python -m bot` runs (every click's inbox row a durable
commit before the ack), else the memory store. It prints
"posted" once it has finished handling each post (the ask is saved as posted), so the driver
clicks a provider that is waiting, as a person would, and "idle" once its work after each
answer (showing the decision) is done, so that work does not land in the next round. `bare`: a Bolt app whose one listener
acks and resolves a future a waiting coroutine awaits. Both stamp the time in the waiting
coroutine, and print a JSON line `{"answered_at": <time.time()>}`, then "done" at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time

from aiohttp import web
from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from bot import SlackQuestionProvider, SlackSettings
from bot.sqlite_store import SqliteStore
from bot.store import AskEvent, AskRecord, AskStore, EventKind, MemoryStore
from provider import AskUserQuestionRequest, UserQuestionService

SECRET = "0123456789abcdef0123456789abcdef"
TOKEN = "xoxb-bench"
CHANNEL = "C0BENCH000"
REQUEST = AskUserQuestionRequest.model_validate(
    {
        "questions": [
            {"id": "go", "question": "Go ahead?", "options": [{"label": "Yes"}, {"label": "No"}]}
        ]
    }
)


def report(line: object) -> None:
    """One line to the bench driver."""
    print(json.dumps(line) if not isinstance(line, str) else line, flush=True)


async def serve(app: AsyncApp, port: int) -> web.AppRunner:
    """Serve `app` at /slack/events on 127.0.0.1:`port`."""
    runner = web.AppRunner(app.web_app(path="/slack/events"), shutdown_timeout=1.0)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    return runner


class _SaysPosted(SqliteStore):
    """The service's SQLite store, telling the driver when an ask is saved as posted."""

    async def save(self, record: AskRecord, event: AskEvent) -> None:
        await super().save(record, event)
        if event.kind is EventKind.POSTED:
            report("posted")

    async def advance(self, record: AskRecord, event: AskEvent) -> bool:
        # Posting saves its progress compare-and-set (`advance`), not with `save`.
        advanced = await super().advance(record, event)
        if advanced and event.kind is EventKind.POSTED:
            report("posted")
        return advanced


class _MemorySaysPosted(MemoryStore):
    """The memory store, telling the driver when an ask is saved as posted."""

    async def save(self, record: AskRecord, event: AskEvent) -> None:
        await super().save(record, event)
        if event.kind is EventKind.POSTED:
            report("posted")

    async def advance(self, record: AskRecord, event: AskEvent) -> bool:
        # Posting saves its progress compare-and-set (`advance`), not with `save`.
        advanced = await super().advance(record, event)
        if advanced and event.kind is EventKind.POSTED:
            report("posted")
        return advanced


async def run_provider(api_url: str, port: int, rounds: int, db: str | None) -> None:
    """The full provider: ask, wait for the click, report, again."""
    settings = SlackSettings(
        bot_token=TOKEN, signing_secret=SECRET, channel=CHANNEL, api_url=api_url
    )
    store: AskStore
    if db is not None:
        store = _SaysPosted(db)
        await store.start()
    else:
        store = _MemorySaysPosted()
    async with await SlackQuestionProvider.start(settings, store=store) as provider:
        service = UserQuestionService()
        provider.register(service)
        runner = await serve(provider.app, port)
        try:
            report("ready")
            for _ in range(rounds):
                await service.ask(REQUEST)
                report({"answered_at": time.time()})
                await provider.idle()
                report("idle")  # its follow-up work done: the next round starts on a quiet app
        finally:
            await runner.cleanup()
    await store.close()
    report("done")


async def run_bare(api_url: str, port: int, rounds: int, db: str | None = None) -> None:
    """A Bolt app with one listener that acks and resolves a future."""
    app = AsyncApp(
        client=AsyncWebClient(token=TOKEN, base_url=api_url),
        signing_secret=SECRET,
        process_before_response=True,
    )
    loop = asyncio.get_running_loop()
    waiting: list[asyncio.Future[None]] = []

    @app.action("yes")
    async def on_yes(ack: AsyncAck) -> None:
        await ack()
        waiting.pop().set_result(None)

    runner = await serve(app, port)
    try:
        report("ready")
        for _ in range(rounds):
            answer = loop.create_future()
            waiting.append(answer)
            await answer
            report({"answered_at": time.time()})  # stamped where the asker wakes, as for ours
    finally:
        await runner.cleanup()
    report("done")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("kind", choices=("provider", "bare"))
    parser.add_argument("--api-url", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--rounds", type=int, required=True)
    parser.add_argument("--db", default=None)
    args = parser.parse_args()
    if args.kind == "provider":
        asyncio.run(run_provider(args.api_url, args.port, args.rounds, args.db))
    else:
        asyncio.run(run_bare(args.api_url, args.port, args.rounds))
