"""Resident memory of the service (`python -m bot`, its own process): per pending ask, and per
relay long-poll held open on one.

The emulator runs in this process; the service runs as a child process, so its RSS is its
own. Three readings: idle; with N pending asks that arrived through the relay (16 at a time),
stored in SQLite and posted, nobody answering; then with N agents each holding
`GET /v1/asks/{id}?wait=60` on one of them, polling again when a wait ends (the service's
`/metrics` says how many it holds; read at 99 % of N, as re-polls leave a few gaps). Per
pending ask = (pending - idle) / N; per held long-poll = (held - pending) / the polls held
then. RSS keeps its high-water mark, so the figure is what the service needed to get there.

    python -m bench.pending_memory [--asks 10000] [--no-polls]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import signal
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import aiohttp

from slack_emulator import SlackEmulator

from .click_latency import ROOT, free_port, held
from .latency_app import CHANNEL, RELAY_TOKEN, SECRET, TOKEN
from .relay_latency import service_env

HEADERS = {"Authorization": f"Bearer {RELAY_TOKEN}"}


def rss_mib(pid: int) -> float:
    """Resident set size of `pid`, from /proc."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


async def create_pending(http: aiohttp.ClientSession, url: str, count: int) -> list[str]:
    """`count` asks created through the relay at `url`, 16 at a time; their ids."""
    gate = asyncio.Semaphore(16)

    async def ask(n: int) -> str:
        body = {
            "questions": [
                {
                    "id": f"q{n}",
                    "question": f"Shall agent task {n} go ahead?",
                    "options": [{"label": "Yes"}, {"label": "No"}],
                }
            ]
        }
        async with gate, http.post(f"{url}/v1/asks", json=body, headers=HEADERS) as response:
            assert response.status == 201, await response.text()
            return str((await response.json())["id"])

    return list(await asyncio.gather(*(ask(n) for n in range(count))))


async def hold(http: aiohttp.ClientSession, url: str, ask_id: str) -> None:
    """One agent waiting on `ask_id`, polling again whenever its 60 s wait ends (as
    `RelayProvider` does): 10,000 take longer than 60 s to arrive on a busy machine."""
    params = {"wait": "60"}
    while True:
        async with http.get(f"{url}/v1/asks/{ask_id}", params=params, headers=HEADERS) as response:
            await response.read()


@dataclass(frozen=True)
class Memory:
    """The service's RSS at each step, in MiB."""

    asks: int
    idle_mib: float
    pending_mib: float
    held_mib: float
    polls: int  # long-polls held when `held_mib` was read

    @property
    def per_ask_kib(self) -> float:
        """RSS added per pending ask."""
        return (self.pending_mib - self.idle_mib) * 1024 / self.asks

    @property
    def per_poll_kib(self) -> float:
        """RSS added per held long-poll, over the same asks pending with nobody waiting."""
        return (self.held_mib - self.pending_mib) * 1024 / self.polls

    def __str__(self) -> str:
        lines = [
            f"service RSS idle: {self.idle_mib:.1f} MiB",
            f"with {self.asks} pending asks: {self.pending_mib:.1f} MiB "
            f"({self.per_ask_kib:.2f} KiB per pending ask)",
        ]
        if self.polls:  # (none: measured without them)
            lines.append(
                f"and {self.polls} held GET ?wait=60: {self.held_mib:.1f} MiB "
                f"({self.per_poll_kib:.2f} KiB per held long-poll)"
            )
        return "\n".join(lines)


def child_env(db: Path, emu: SlackEmulator, port: int, **extra: str) -> dict[str, str]:
    """`python -m bot`'s environment as a child of a bench: SQLite at `db`, Slack at `emu`,
    HTTP on `port`, its /metrics on (the relay waiters gauge; it keeps no state per ask)."""
    return {
        **service_env(db),
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(ROOT),
        "SLACK_API_URL": emu.api_url,
        "PORT": str(port),
        "LOG_LEVEL": "WARNING",
        "SLACK_QUESTIONS_METRICS": "1",
        **extra,
    }


def enough_files(count: int) -> None:
    """This process holds `count` sockets at once: raise its soft limit as far as allowed."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = min(hard, max(soft, count + 1000))
    resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


async def measure(count: int, *, with_polls: bool = True) -> Memory:
    """Start the service, read its RSS idle, with `count` pending asks, then (`with_polls`) with
    as many held long-polls."""
    enough_files(count)
    emu = SlackEmulator(signing_secret=SECRET, bot_token=TOKEN)
    emu.workspace.add_channel(CHANNEL, name="bench", members=[emu.bot_user_id])
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        async with emu:
            env = child_env(Path(tmp) / "asks.db", emu, port)
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
                    pending = holding = rss_mib(proc.pid)
                    polls = 0
                    if with_polls:
                        holding, polls = await hold_all(http, url, ids, proc.pid)
            finally:
                proc.send_signal(signal.SIGTERM)
                await proc.wait()
            assert emu.violations == []
    return Memory(count, idle, pending, holding, polls)


async def hold_all(
    http: aiohttp.ClientSession, url: str, ids: list[str], pid: int
) -> tuple[float, int]:
    """One agent waiting on each ask: `pid`'s RSS once the service holds 99 % of them, and
    how many it holds then; every wait is gone when this returns."""
    agents = [asyncio.create_task(hold(http, url, ask_id)) for ask_id in ids]
    # Polled: the service tells how many it holds only in its /metrics.
    # Re-polls leave a few gaps at any instant: 99 % held is all of them.
    while await held(http, url) < 0.99 * len(ids):  # noqa: ASYNC110
        await asyncio.sleep(0.2)
    holding, polls = rss_mib(pid), await held(http, url)
    for agent in agents:
        agent.cancel()
    await asyncio.gather(*agents, return_exceptions=True)
    # Gone before the service stops, so it does not stop with requests in hand.
    while await held(http, url) > 0:  # noqa: ASYNC110 (only /metrics tells)
        await asyncio.sleep(0.1)
    return holding, polls


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--asks", type=int, default=10_000)
    parser.add_argument("--no-polls", action="store_true", help="pending asks only")
    args = parser.parse_args()
    memory = asyncio.run(measure(args.asks, with_polls=not args.no_polls))
    print(memory)
