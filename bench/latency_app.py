"""The app side of the click benches, each kind run as its own process like a real Slack app.

    python -m bench.latency_app bare|provider --api-url URL --port PORT [--db PATH]
    python -m bench.latency_app service|relay-service     (configured like `python -m bot`)
    python -m bench.latency_app relay-agent --relay-url URL
    python -m bench.latency_app peer --api-url URL --port PORT
    python -m bench.latency_app peer-agent --relay-url URL

The driver (bench.click_latency, bench.inbox_latency) steers every kind with lines on stdin,
so nothing an app does lands in another app's round:
- "go": ask one question and wait for its answer (an asker), then print a JSON line
  `{"answered_at": <time.time()>}` stamped in the coroutine that waited;
- "idle": print "idle" once the app's work after the answer (showing the decision) is done;
- end of input: print "done" and exit.
An app that posts a question prints "posted" once its post is saved, so the driver clicks a
question that is waiting for a person, as Slack would.

Kinds:
- `bare`: a Bolt app whose one listener acks and resolves a future a waiting coroutine awaits
  (the driver posts its message); it prints "posted" once the future exists;
- `provider`: the full SlackQuestionProvider in process, on the memory store, or with `--db`
  on the SQLite store (every click's inbox row a durable commit before the ack);
- `service`: what `python -m bot` runs (`bot.service.server.Server.start`, configured from the
  environment: SQLite store, its observers, relay and all), with the agent in its process;
- `relay-service`: the same service with no agent in it: agents come through the relay;
- `relay-agent`: an agent process whose `RelayProvider` creates the ask on the relay and
  holds `GET /v1/asks/{id}?wait=` until it is answered;
- `peer`: the fastest peer's design, our own baseline — everything in memory, nothing
  durable: `POST /ask` posts the question, waits on a future in a dict and answers the held
  request when the click resolves it; the click listener acks, resolves, then shows the
  decision with `chat.update` (which "idle" waits for). No store, no checks, no relay API;
- `peer-agent`: an agent process holding `POST /ask` on a `peer` until it answers.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
from aiohttp import web
from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

import bot.service.server
from bot import SlackQuestionProvider, SlackSettings
from bot.config import load_config, parse_args
from bot.slack.responders import ANYONE
from bot.store import AskEvent, AskRecord, EventKind, MemoryStore
from bot.store.sqlite import SqliteStore
from provider import AskUserQuestionRequest, RelayProvider, UserQuestionService

SECRET = "0123456789abcdef0123456789abcdef"
TOKEN = "xoxb-bench"
RELAY_TOKEN = "bench-relay-token-0001"
CHANNEL = "C0BENCH000"
REQUEST = AskUserQuestionRequest.model_validate(
    {
        "questions": [
            {"id": "go", "question": "Go ahead?", "options": [{"label": "Yes"}, {"label": "No"}]}
        ]
    }
)


# The peer's message once decided: the question and the answer, no buttons.
DECIDED = [{"type": "section", "text": {"type": "mrkdwn", "text": "*Go ahead?* Yes"}}]


def report(line: object) -> None:
    """One line to the bench driver."""
    print(json.dumps(line) if not isinstance(line, str) else line, flush=True)


def answered() -> None:
    report({"answered_at": time.time()})  # stamped where the asker wakes, on every path


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
        advanced = await super().advance(record, event)
        if advanced and event.kind is EventKind.POSTED:
            report("posted")
        return advanced


async def commands(go: Callable[[], Awaitable[None]], idle: Callable[[], Awaitable[None]]) -> None:
    """Obey the driver's lines on stdin until it closes them."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    report("ready")
    while line := (await reader.readline()).strip():
        if line == b"go":
            await go()
        elif line == b"idle":
            await idle()
            report("idle")
        else:
            raise SystemExit(f"unknown command {line!r}")


async def run_provider(api_url: str, port: int, db: str | None) -> None:
    """The full provider in process: ask, wait for the click, report."""
    settings = SlackSettings(
        bot_token=TOKEN, signing_secret=SECRET, channel=CHANNEL, api_url=api_url, responders=ANYONE
    )
    store = _SaysPosted(db) if db is not None else _MemorySaysPosted()
    if isinstance(store, SqliteStore):
        await store.start()
    async with await SlackQuestionProvider.start(settings, store=store) as provider:
        service = UserQuestionService()
        provider.register(service)

        async def go() -> None:
            await service.ask(REQUEST)
            answered()

        runner = await serve(provider.app, port)
        try:
            await commands(go, provider.idle)
        finally:
            await runner.cleanup()
    await store.close()


async def run_service(with_agent: bool) -> None:
    """`python -m bot`'s service as it composes itself; its store also says "posted"."""
    # Only the store's class is swapped (for a subclass that reports), so the service's
    # composition — observers, metrics, relay — is whatever `Server.start` builds today.
    bot.service.server.SqliteStore = _SaysPosted  # type: ignore[attr-defined]
    server = await bot.service.server.Server.start(load_config(dict(os.environ), parse_args([])))
    service = UserQuestionService()
    server.provider.register(service)

    async def go() -> None:
        if not with_agent:
            raise SystemExit("a relay-service has no agent: send go to the relay-agent")
        await service.ask(REQUEST)
        answered()

    try:
        report(f"url {server.url}")
        await commands(go, server.provider.idle)
    finally:
        await server.close()


async def run_relay_agent(relay_url: str) -> None:
    """An agent in its own process, asking through the relay and long-polling for the answer."""
    async with RelayProvider(relay_url, RELAY_TOKEN) as relay:
        service = UserQuestionService()
        service.register_provider(relay)

        async def go() -> None:
            await service.ask(REQUEST)
            answered()

        async def idle() -> None:
            return None

        await commands(go, idle)


async def run_bare(api_url: str, port: int) -> None:
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

    async def go() -> None:
        answer = loop.create_future()
        waiting.append(answer)
        report("posted")  # the driver posts bare's message itself
        await answer
        answered()

    async def idle() -> None:
        return None

    runner = await serve(app, port)
    try:
        await commands(go, idle)
    finally:
        await runner.cleanup()


async def run_peer(api_url: str, port: int) -> None:
    """The in-memory peer: post, wait on a future, answer the held request."""
    # One session for every Web API call, as our provider has: slack_sdk's default opens a
    # session (and a connection) per call.
    session = aiohttp.ClientSession()
    client = AsyncWebClient(token=TOKEN, base_url=api_url, session=session)
    app = AsyncApp(client=client, signing_secret=SECRET, process_before_response=True)
    waiting: dict[str, asyncio.Future[str]] = {}  # message ts → the clicked button's label
    updates: set[asyncio.Task[object]] = set()

    @app.action("yes")
    async def on_yes(ack: AsyncAck, body: dict[str, Any]) -> None:
        await ack()
        ts = str(body["message"]["ts"])
        waiting.pop(ts).set_result("Yes")
        update = asyncio.ensure_future(
            client.chat_update(channel=CHANNEL, ts=ts, text="Go ahead? Yes", blocks=DECIDED)
        )
        updates.add(update)
        update.add_done_callback(updates.discard)

    async def ask(request: web.Request) -> web.Response:
        question = str((await request.json())["question"])
        blocks: list[dict[str, object]] = [
            {"type": "section", "text": {"type": "mrkdwn", "text": f"*{question}*"}},
            {
                "type": "actions",
                "block_id": "go",
                "elements": [
                    {"type": "button", "action_id": a, "text": {"type": "plain_text", "text": t}}
                    for a, t in (("yes", "Yes"), ("no", "No"), ("other", "Other…"))
                ],
            },
        ]
        posted = await client.chat_postMessage(channel=CHANNEL, text=question, blocks=blocks)
        answer = asyncio.get_running_loop().create_future()
        waiting[str(posted["ts"])] = answer
        report("posted")
        return web.json_response({"answer": await answer})

    async def idle() -> None:
        while updates:
            await asyncio.gather(*updates)

    async def go() -> None:
        raise SystemExit("a peer has no agent in it: send go to the peer-agent")

    web_app = app.web_app(path="/slack/events")
    web_app.router.add_post("/ask", ask)
    runner = web.AppRunner(web_app, shutdown_timeout=1.0)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    try:
        report(f"url http://127.0.0.1:{port}")
        await commands(go, idle)
    finally:
        await runner.cleanup()
        await session.close()


async def run_peer_agent(peer_url: str) -> None:
    """An agent in its own process, holding `POST /ask` on the peer until it answers."""
    async with aiohttp.ClientSession() as http:

        async def go() -> None:
            async with http.post(f"{peer_url}/ask", json={"question": "Go ahead?"}) as response:
                assert (await response.json())["answer"] == "Yes"
            answered()

        async def idle() -> None:
            return None

        await commands(go, idle)


async def main(args: argparse.Namespace) -> None:
    """Run the app of `args.kind` until the driver closes stdin."""
    if args.kind == "bare":
        await run_bare(args.api_url, args.port)
    elif args.kind == "provider":
        await run_provider(args.api_url, args.port, args.db)
    elif args.kind in ("service", "relay-service"):
        await run_service(with_agent=args.kind == "service")
    elif args.kind == "peer":
        await run_peer(args.api_url, args.port)
    elif args.kind == "peer-agent":
        await run_peer_agent(args.relay_url)
    else:
        await run_relay_agent(args.relay_url)
    report("done")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "kind",
        choices=(
            "bare",
            "provider",
            "service",
            "relay-service",
            "relay-agent",
            "peer",
            "peer-agent",
        ),
    )
    parser.add_argument("--api-url")
    parser.add_argument("--port", type=int)
    parser.add_argument("--db", default=None)
    parser.add_argument("--relay-url")
    asyncio.run(main(parser.parse_args()))
