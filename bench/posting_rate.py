"""A burst of asks into one channel at Slack's posting rate, through the relay: how many fail,
in what order they are posted, and how long it takes against the time the rate allows.

The emulator enforces the rate (`SlackEmulator.limit_posting`); the service (`python -m bot`
in this process, SQLite store) paces its posts per channel. By default the rate is Slack's
shape at 20 posts a second so a run takes seconds; `--per-second 1` is Slack's own
(1,000 asks then take about 17 minutes in one channel).

    python -m bench.posting_rate [--asks 100] [--per-second 20] [--burst 3] [--sessions 1]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

import aiohttp

from bot.ask_messages import METADATA_EVENT
from bot.config import load_config, parse_args
from bot.server import Server
from slack_emulator import PostingRate, SlackEmulator

SECRET = "0123456789abcdef0123456789abcdef"
TOKEN = "xoxb-bench"
RELAY_TOKEN = "bench-relay-token-0001"
CHANNEL = "C0BENCH000"
QUESTION = {"id": "go", "question": "Go ahead?", "options": [{"label": "Yes"}, {"label": "No"}]}


def posted_asks(emu: SlackEmulator) -> list[str]:
    """The ask ids of the ask messages Slack accepted, in the order it accepted them."""
    return [
        str(call.params["metadata"]["event_payload"]["ask_id"])
        for call in emu.calls_to("chat.postMessage")
        if call.ok and call.params.get("metadata", {}).get("event_type") == METADATA_EVENT
    ]


async def create(http: aiohttp.ClientSession, url: str, session: int) -> str:
    body = {"questions": [QUESTION], "agent": {"id": f"session-{session}"}}
    headers = {"Authorization": f"Bearer {RELAY_TOKEN}"}
    async with http.post(f"{url}/v1/asks", json=body, headers=headers) as response:
        assert response.status == 201, await response.text()
        return str((await response.json())["id"])


async def failed(http: aiohttp.ClientSession, url: str, ids: list[str]) -> int:
    headers = {"Authorization": f"Bearer {RELAY_TOKEN}"}
    count = 0
    for ask_id in ids:
        async with http.get(f"{url}/v1/asks/{ask_id}", headers=headers) as response:
            count += (await response.json())["state"] == "failed"
    return count


async def main(asks: int, rate: PostingRate, sessions: int) -> None:
    """Post `asks` asks over `sessions` agent sessions into one channel; print the figures."""
    emu = SlackEmulator(signing_secret=SECRET, bot_token=TOKEN)
    emu.workspace.add_channel(CHANNEL, name="bench", members=[emu.bot_user_id])
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            "SLACK_BOT_TOKEN": TOKEN,
            "SLACK_SIGNING_SECRET": SECRET,
            "SLACK_QUESTIONS_CHANNEL": CHANNEL,
            "SLACK_QUESTIONS_DB": str(Path(tmp) / "asks.db"),
            "SLACK_QUESTIONS_RELAY_TOKEN": RELAY_TOKEN,
            "PORT": "0",
        }
        async with emu, aiohttp.ClientSession() as http:
            env["SLACK_API_URL"] = emu.api_url
            server = await Server.start(load_config(env, parse_args([])))
            try:
                emu.limit_posting(rate)
                started = time.monotonic()
                ids = [await create(http, server.url, n % sessions) for n in range(asks)]
                await emu.wait_for(
                    lambda: len(posted_asks(emu)) == asks,
                    within=10 * asks / rate.per_second + 30,
                    what="every ask posted",
                )
                elapsed = time.monotonic() - started
                failures = await failed(http, server.url, ids)
            finally:
                await server.close()
            in_order = posted_asks(emu) == ids
            refused = sum(c.status == 429 for c in emu.calls_to("chat.postMessage"))
    posts = asks + sessions  # every session's thread root counts against the channel too
    allowed = max(posts - rate.burst, 0) / rate.per_second
    print(
        f"{asks} asks, {sessions} session(s), one channel at {rate.per_second:g}/s "
        f"(burst {rate.burst}); SQLite store"
    )
    print(f"failed: {failures}   posted in order: {in_order}   429s answered by Slack: {refused}")
    print(
        f"took {elapsed:.2f} s; the rate allows {allowed:.2f} s for {posts} posts "
        f"({elapsed / allowed:.3f}x); N / rate = {posts / rate.per_second:.2f} s"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--asks", type=int, default=100)
    parser.add_argument("--per-second", type=float, default=20.0)
    parser.add_argument("--burst", type=int, default=3)
    parser.add_argument("--sessions", type=int, default=1)
    args = parser.parse_args()
    rate = PostingRate(per_second=args.per_second, burst=args.burst)
    asyncio.run(main(args.asks, rate, args.sessions))
