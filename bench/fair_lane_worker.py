"""One run of `bench.fair_lane` in one checkout: prints its figures as one JSON line.

Run as a script with that checkout on `PYTHONPATH` (and as the working directory), so `bot`
is that checkout's: `bench.fair_lane` runs it here and in `--against DIR` in turn. The lane
is driven as the relay drives it (`ChannelPacing.queue`, work that sends on its turn), with
a call that does nothing, so what is timed is the lane itself; then the service end to end.

    python bench/fair_lane_worker.py --queued 10000 --agents 1 50 --asks 200
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import json
import tempfile
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import aiohttp

from bench.latency_app import CHANNEL, RELAY_TOKEN, SECRET, TOKEN
from bench.relay_latency import service_env
from bot.config import load_config, parse_args
from bot.service.server import Server
from bot.slack.messages import METADATA_EVENT
from bot.slack.pacing import ChannelPacing, QueuedTurn, Turn
from slack_emulator import SlackEmulator

QUESTION = {"id": "go", "question": "Go ahead?", "options": [{"label": "Yes"}, {"label": "No"}]}
DROPS = 1000


async def nothing() -> None:
    """The call a queued work makes on its turn: free, so the lane's own cost is timed."""


async def lane_costs(queued: int, agents: int) -> dict[str, float]:
    """Microseconds per queue, per drop and per turn taken, `queued` works over `agents`."""
    pacing = ChannelPacing()
    drops = min(DROPS, queued // 2)
    # The code before the fair lane takes no agent: it is measured as it is called.
    fair = "agent" in inspect.signature(pacing.queue).parameters
    tasks: set[asyncio.Task[None]] = set()
    done = asyncio.Event()
    ran = 0

    def spawn(work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(work)
        tasks.add(task)
        task.add_done_callback(tasks.discard)
        return task

    async def work(turn: QueuedTurn) -> None:
        nonlocal ran
        await pacing.send(CHANNEL, Turn.POST, nothing, key=turn.key, order=turn.order, on=turn)
        ran += 1
        if ran == queued - drops:
            done.set()

    free = asyncio.Event()
    holding = asyncio.Event()

    async def hold() -> None:
        holding.set()
        await free.wait()

    holder = asyncio.create_task(pacing.send(CHANNEL, Turn.POST, hold))
    await holding.wait()
    extra: dict[str, Any] = {}
    started = time.perf_counter()
    for n in range(queued):
        if fair:
            extra["agent"] = f"session-{n % agents}"
        pacing.queue(CHANNEL, Turn.POST, work, spawn=spawn, key=f"ask-{n}", order=float(n), **extra)
    pushed = time.perf_counter()
    for n in range(0, queued, queued // drops)[:drops]:  # settled while queued (withdrawn)
        pacing.drop(CHANNEL, f"ask-{n}")
    dropped = time.perf_counter()
    free.set()
    await holder
    await done.wait()
    while tasks:
        await asyncio.gather(*tasks)
    taken = time.perf_counter()
    return {
        "queue_us": (pushed - started) / queued * 1e6,
        "drop_us": (dropped - pushed) / drops * 1e6,
        "turn_us": (taken - dropped) / (queued - drops) * 1e6,
    }


def posted(emu: SlackEmulator) -> set[str]:
    return {
        str(call.params["metadata"]["event_payload"]["ask_id"])
        for call in emu.calls_to("chat.postMessage")
        if call.ok and call.params.get("metadata", {}).get("event_type") == METADATA_EVENT
    }


def is_posted(emu: SlackEmulator, ask_id: str) -> Callable[[], bool]:
    """Whether Slack took the post of `ask_id` yet."""
    return lambda: ask_id in posted(emu)


async def create_to_posted(asks: int) -> list[float]:
    """Seconds from a relay create to Slack taking the ask's post, one ask at a time."""
    emu = SlackEmulator(signing_secret=SECRET, bot_token=TOKEN)
    emu.workspace.add_channel(CHANNEL, name="bench", members=[emu.bot_user_id])
    headers = {"Authorization": f"Bearer {RELAY_TOKEN}"}
    body = {"questions": [QUESTION], "agent": {"id": "session-bench", "name": "bench"}}
    samples = []
    with tempfile.TemporaryDirectory() as tmp:
        env = service_env(Path(tmp) / "asks.db")
        async with emu, aiohttp.ClientSession() as http:
            env["SLACK_API_URL"] = emu.api_url
            server = await Server.start(load_config(env, parse_args([])))
            try:
                for n in range(asks + 1):  # the first opens the thread: not counted
                    started = time.perf_counter()
                    async with http.post(
                        f"{server.url}/v1/asks", json=body, headers=headers
                    ) as response:
                        ask_id = str((await response.json())["id"])
                    await emu.wait_for(is_posted(emu, ask_id), what="the ask posted")
                    if n:
                        samples.append(time.perf_counter() - started)
            finally:
                await server.close()
    return samples


async def main(queued: int, agents: list[int], asks: int) -> None:
    figures: dict[str, Any] = {f"lane, {n} agent(s)": await lane_costs(queued, n) for n in agents}
    figures["create_to_posted_s"] = await create_to_posted(asks)
    print(json.dumps(figures))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--queued", type=int, default=10_000)
    parser.add_argument("--agents", type=int, nargs="+", default=[1, 50])
    parser.add_argument("--asks", type=int, default=200)
    args = parser.parse_args()
    asyncio.run(main(args.queued, args.agents, args.asks))
