"""Resident memory of the service (`python -m bot`, its own process) per ask watched over one
`GET /v1/asks/watch` WebSocket, beside the same asks each held by a `GET ?wait=60` (issue 28:
at most 8 KiB per held wait).

One service, one run, as bench/pending_memory.py reads it: RSS idle; with N pending asks
(made through the relay, posted, nobody answering); with all N watched over ONE socket
(`WatchAsks` frames of 1,000 ids; read once `/metrics` says N waits are held); then the socket
closed and, on the same asks, N agents each holding `GET /v1/asks/{id}?wait=60` (read at 99 %
of N, as re-polls leave gaps). Per watched ask = (watched - pending) / N; per held GET =
(held - pending) / the polls held then. RSS keeps its high-water mark, and the GETs come
second: the memory the watches freed is theirs to reuse, so their figure is not inflated.

    python -m bench.watch_memory [--asks 10000]
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import aiohttp

from provider.relay_wire import WatchAsks
from slack_emulator import SlackEmulator

from .click_latency import free_port, held
from .latency_app import CHANNEL, SECRET, TOKEN
from .pending_memory import HEADERS, child_env, create_pending, enough_files, hold, rss_mib

IDS_PER_FRAME = 1000


@dataclass(frozen=True)
class Memory:
    """The service's RSS at each step, in MiB."""

    asks: int
    idle_mib: float
    pending_mib: float
    watched_mib: float
    unwatched_mib: float  # the socket closed again
    held_mib: float
    polls: int  # GET long-polls held when `held_mib` was read

    @property
    def per_ask_kib(self) -> float:
        """RSS added per pending ask, nobody waiting."""
        return (self.pending_mib - self.idle_mib) * 1024 / self.asks

    @property
    def per_watch_kib(self) -> float:
        """RSS added per ask watched over the one socket."""
        return (self.watched_mib - self.pending_mib) * 1024 / self.asks

    @property
    def per_poll_kib(self) -> float:
        """RSS added per held GET long-poll, over the asks pending with nobody waiting."""
        return (self.held_mib - self.pending_mib) * 1024 / self.polls

    def __str__(self) -> str:
        return (
            f"service RSS idle: {self.idle_mib:.1f} MiB\n"
            f"with {self.asks} pending asks: {self.pending_mib:.1f} MiB "
            f"({self.per_ask_kib:.2f} KiB per pending ask)\n"
            f"and all {self.asks} watched over one WebSocket: {self.watched_mib:.1f} MiB "
            f"({self.per_watch_kib:.2f} KiB per watched ask)\n"
            f"socket closed: {self.unwatched_mib:.1f} MiB\n"
            f"then {self.polls} held GET ?wait=60: {self.held_mib:.1f} MiB "
            f"({self.per_poll_kib:.2f} KiB per held long-poll)"
        )


async def until_held(http: aiohttp.ClientSession, url: str, enough: float) -> int:
    """Polled: the service tells how many waits it holds only in its /metrics."""
    while (now := await held(http, url)) < enough:  # noqa: ASYNC110
        await asyncio.sleep(0.2)
    return now


async def until_released(http: aiohttp.ClientSession, url: str) -> None:
    while await held(http, url) > 0:  # noqa: ASYNC110 (only /metrics tells)
        await asyncio.sleep(0.1)


async def watch_all(http: aiohttp.ClientSession, url: str, ids: list[str], pid: int) -> float:
    """Every ask of `ids` watched over one socket: the service's RSS then (MiB)."""
    async with http.ws_connect(f"{url}/v1/asks/watch", headers=HEADERS) as socket:
        for start in range(0, len(ids), IDS_PER_FRAME):
            frame = WatchAsks(watch=ids[start : start + IDS_PER_FRAME])
            await socket.send_str(frame.model_dump_json(exclude_defaults=True))
        await until_held(http, url, len(ids))
        return rss_mib(pid)


async def measure(count: int) -> Memory:
    """Start the service and read its RSS idle, pending, watched, then with held GETs."""
    enough_files(count)
    emu = SlackEmulator(signing_secret=SECRET, bot_token=TOKEN)
    emu.workspace.add_channel(CHANNEL, name="bench", members=[emu.bot_user_id])
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        async with emu:
            env = child_env(
                Path(tmp) / "asks.db", emu, port, SLACK_QUESTIONS_MAX_WAITS=str(2 * count)
            )
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot", env=env, stdout=asyncio.subprocess.PIPE
            )
            try:
                assert proc.stdout is not None
                await proc.stdout.readline()  # "listening on …"
                idle = rss_mib(proc.pid)
                connector = aiohttp.TCPConnector(limit=0)
                timeout = aiohttp.ClientTimeout(total=None)
                async with aiohttp.ClientSession(connector=connector, timeout=timeout) as http:
                    ids = await create_pending(http, url, count)
                    await emu.wait_for(
                        lambda: len(emu.calls_to("chat.postMessage")) >= count,
                        within=600,
                        what="posts",
                    )
                    pending = rss_mib(proc.pid)
                    watched = await watch_all(http, url, ids, proc.pid)
                    await until_released(http, url)
                    unwatched = rss_mib(proc.pid)
                    agents = [asyncio.create_task(hold(http, url, ask_id)) for ask_id in ids]
                    await until_held(http, url, 0.99 * count)
                    holding = rss_mib(proc.pid)
                    polls = await held(http, url)
                    for agent in agents:
                        agent.cancel()
                    await asyncio.gather(*agents, return_exceptions=True)
                    await until_released(http, url)
            finally:
                proc.send_signal(signal.SIGTERM)
                await proc.wait()
            assert emu.violations == []
    return Memory(count, idle, pending, watched, unwatched, holding, polls)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--asks", type=int, default=10_000)
    print(asyncio.run(measure(parser.parse_args().asks)))
