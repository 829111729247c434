"""Ack round trip and click-to-answer latency: the full provider beside a bare Bolt handler.

Both run in one process against the same emulator over loopback HTTP, signed as Slack signs.
The bare app has one listener that acks and resolves a future: the floor any Bolt app pays.

    python -m bench.provider_latency [--rounds 200]
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from aiohttp import web
from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from bot import SlackQuestionProvider, SlackSettings
from bot.emulator import Message, SlackEmulator
from provider import AskUserQuestionRequest, UserQuestionService

from .stats import summarise

SECRET = "bench-secret"
TOKEN = "xoxb-bench"
CHANNEL = "C0BENCH000"
PERSON = "U0BENCHER1"
REQUEST = AskUserQuestionRequest.model_validate(
    {
        "questions": [
            {"id": "go", "question": "Go ahead?", "options": [{"label": "Yes"}, {"label": "No"}]}
        ]
    }
)


def emulator() -> SlackEmulator:
    """An emulator with one channel holding the bot and one person."""
    emu = SlackEmulator(signing_secret=SECRET, bot_token=TOKEN)
    emu.workspace.add_user(PERSON, name="bencher")
    emu.workspace.add_channel(CHANNEL, name="bench", members=[PERSON, emu.bot_user_id])
    return emu


@asynccontextmanager
async def served(app: AsyncApp, emu: SlackEmulator) -> AsyncIterator[None]:
    """Serve `app` on 127.0.0.1 and point the emulator's deliveries at it."""
    runner = web.AppRunner(app.web_app(path="/slack/events"), shutdown_timeout=1.0)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    emu.request_url = f"http://{host}:{port}/slack/events"
    try:
        yield
    finally:
        await runner.cleanup()


async def ask_and_time(service: UserQuestionService) -> float:
    """Ask, and return the moment the answer reached the asker."""
    await service.ask(REQUEST)
    return time.perf_counter()


async def bench_provider(emu: SlackEmulator, rounds: int) -> tuple[list[float], list[float]]:
    """(ack seconds, click-to-answer seconds) for the full provider."""
    settings = SlackSettings(
        bot_token=TOKEN, signing_secret=SECRET, channel=CHANNEL, api_url=emu.api_url
    )
    acks: list[float] = []
    answers: list[float] = []
    async with await SlackQuestionProvider.start(settings) as provider:
        service = UserQuestionService()
        provider.register(service)
        person = emu.person(PERSON)
        async with served(provider.app, emu):
            for _ in range(rounds):
                posted = len(emu.calls_to("chat.postMessage"))
                asking = asyncio.create_task(ask_and_time(service))
                call = await emu.wait_for_call("chat.postMessage", count=posted + 1)
                message = emu.message(CHANNEL, str(call.response["ts"]))
                start = time.perf_counter()
                delivery = await person.click(message, text="Yes")
                answered_at = await asking
                assert delivery.ack_seconds is not None
                acks.append(delivery.ack_seconds)
                answers.append(answered_at - start)
                await provider.idle()
    return acks, answers


async def bench_bare(emu: SlackEmulator, rounds: int) -> tuple[list[float], list[float]]:
    """The same measures for a Bolt app whose handler only resolves a future."""
    client = AsyncWebClient(token=TOKEN, base_url=emu.api_url)
    app = AsyncApp(client=client, signing_secret=SECRET, process_before_response=True)
    waiting: list[asyncio.Future[float]] = []

    @app.action("yes")
    async def on_yes(ack: AsyncAck) -> None:
        await ack()
        waiting[-1].set_result(time.perf_counter())

    blocks = [
        {
            "type": "actions",
            "block_id": "go",
            "elements": [
                {
                    "type": "button",
                    "action_id": "yes",
                    "text": {"type": "plain_text", "text": "Yes"},
                }
            ],
        }
    ]
    acks: list[float] = []
    answers: list[float] = []
    person = emu.person(PERSON)
    async with served(app, emu):
        for _ in range(rounds):
            response = await client.chat_postMessage(channel=CHANNEL, text="Go?", blocks=blocks)
            message: Message = emu.message(CHANNEL, str(response["ts"]))
            waiting.append(asyncio.get_running_loop().create_future())
            start = time.perf_counter()
            delivery = await person.click(message, text="Yes")
            answered = await waiting[-1]
            assert delivery.ack_seconds is not None
            acks.append(delivery.ack_seconds)
            answers.append(answered - start)
    return acks, answers


async def main(rounds: int) -> None:
    """Run both, warm-up rounds first, and print the figures side by side."""
    async with emulator() as emu:
        await bench_bare(emu, 20)
        bare_acks, bare_answers = await bench_bare(emu, rounds)
    async with emulator() as emu:
        await bench_provider(emu, 20)
        full_acks, full_answers = await bench_provider(emu, rounds)
        assert emu.violations == [], emu.violations
    rows = [
        ("ack round trip", summarise(bare_acks), summarise(full_acks)),
        ("click to answer", summarise(bare_answers), summarise(full_answers)),
    ]
    print(f"{rounds} rounds each, emulator and app in one process, loopback HTTP")
    for name, bare, full in rows:
        print(f"{name:16} bare Bolt:  {bare}")
        print(f"{'':16} provider:   {full}")
        print(
            f"{'':16} ratio (provider/bare): median {full.median_ms / bare.median_ms:.2f}x, "
            f"p95 {full.p95_ms / bare.p95_ms:.2f}x"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=200)
    asyncio.run(main(parser.parse_args().rounds))
