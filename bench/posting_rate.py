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
from dataclasses import dataclass
from pathlib import Path

import aiohttp

from bot.config import load_config, parse_args
from bot.service.server import Server
from bot.slack.messages import METADATA_EVENT
from slack_emulator import PostingRate, SlackEmulator

from .latency_app import CHANNEL, RELAY_TOKEN, SECRET, TOKEN
from .relay_latency import service_env

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


@dataclass(frozen=True)
class Posting:
    """What one burst came to."""

    asks: int
    sessions: int
    rate: PostingRate
    failed: int
    in_order: bool
    refused: int  # 429s Slack answered
    seconds: float

    @property
    def posts(self) -> int:
        """Every ask, and every session's thread root: all count against the channel."""
        return self.asks + self.sessions

    @property
    def allowed_seconds(self) -> float:
        """The least time the rate allows for the posts, the burst going at once."""
        return max(self.posts - self.rate.burst, 0) / self.rate.per_second

    @property
    def ratio(self) -> float:
        """Time taken over the time the rate allows."""
        return self.seconds / self.allowed_seconds

    def __str__(self) -> str:
        return (
            f"{self.asks} asks, {self.sessions} session(s), one channel at "
            f"{self.rate.per_second:g}/s (burst {self.rate.burst}); SQLite store\n"
            f"failed: {self.failed}   posted in order: {self.in_order}   "
            f"429s answered by Slack: {self.refused}\n"
            f"took {self.seconds:.2f} s; the rate allows {self.allowed_seconds:.2f} s for "
            f"{self.posts} posts ({self.ratio:.3f}x); N / rate = "
            f"{self.posts / self.rate.per_second:.2f} s"
        )


async def measure(asks: int, rate: PostingRate, sessions: int = 1) -> Posting:
    """Post `asks` asks over `sessions` agent sessions into one channel, through the relay."""
    emu = SlackEmulator(signing_secret=SECRET, bot_token=TOKEN)
    emu.workspace.add_channel(CHANNEL, name="bench", members=[emu.bot_user_id])
    with tempfile.TemporaryDirectory() as tmp:
        env = service_env(Path(tmp) / "asks.db")
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
    return Posting(asks, sessions, rate, failures, in_order, refused, elapsed)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--asks", type=int, default=100)
    parser.add_argument("--per-second", type=float, default=20.0)
    parser.add_argument("--burst", type=int, default=3)
    parser.add_argument("--sessions", type=int, default=1)
    args = parser.parse_args()
    rate = PostingRate(per_second=args.per_second, burst=args.burst)
    print(asyncio.run(measure(args.asks, rate, args.sessions)))
