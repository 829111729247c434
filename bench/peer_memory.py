"""Resident memory of the in-memory peer (bench.latency_app `peer`) per pending ask, for the
service's figures to be read against.

The peer's design keeps a pending ask as the agent's held `POST /ask` and a future in a dict,
so its figure is per pending ask *and* its held wait: compare it with `python -m bot`'s
per pending ask plus per held wait (bench.pending_memory). The emulator runs in this
process, the peer as a child; N agents post at once (16 connecting at a time), and the RSS is
read once the emulator has all N posts. Per ask = (pending - idle) / N.

    python -m bench.peer_memory [--asks 10000]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
from dataclasses import dataclass
from functools import partial

import aiohttp

from slack_emulator import SlackEmulator

from .click_latency import AppProcess, free_port
from .latency_app import CHANNEL, SECRET, TOKEN
from .pending_memory import enough_files, rss_mib

IN_FLIGHT = 16


def posted(emu: SlackEmulator, count: int) -> bool:
    """Whether the peer has posted `count` questions."""
    return len(emu.calls_to("chat.postMessage")) >= count


@dataclass(frozen=True)
class PeerMemory:
    """The peer's RSS idle and with `asks` pending, in MiB."""

    asks: int
    idle_mib: float
    pending_mib: float

    @property
    def per_ask_kib(self) -> float:
        """RSS added per pending ask, its held request included."""
        return (self.pending_mib - self.idle_mib) * 1024 / self.asks

    def __str__(self) -> str:
        return (
            f"in-memory peer RSS idle: {self.idle_mib:.1f} MiB\n"
            f"with {self.asks} pending asks, each its agent's held POST /ask: "
            f"{self.pending_mib:.1f} MiB ({self.per_ask_kib:.2f} KiB per pending ask)"
        )


async def _ask(http: aiohttp.ClientSession, url: str, n: int) -> None:
    """One agent holding its ask until it is cancelled."""
    async with http.post(f"{url}/ask", json={"question": f"Shall task {n} go ahead?"}) as reply:
        await reply.read()


async def _drain(peer: AppProcess) -> None:
    """Read the peer's lines until it exits."""
    while await peer.line():
        pass


async def measure(count: int) -> PeerMemory:
    """Start the peer, read its RSS idle, then with `count` pending asks."""
    enough_files(count)
    emu = SlackEmulator(signing_secret=SECRET, bot_token=TOKEN)
    emu.workspace.add_channel(CHANNEL, name="bench", members=[emu.bot_user_id])
    async with emu:
        port = free_port()
        peer = await AppProcess.start("peer", "--api-url", emu.api_url, "--port", str(port))
        url = (await peer.line()).removeprefix("url ")
        await peer.expect("ready")
        idle = rss_mib(peer.proc.pid)
        # It says "posted" for every ask: read, so a full pipe never stalls it.
        drain = asyncio.create_task(_drain(peer))
        connector = aiohttp.TCPConnector(limit=0)
        async with aiohttp.ClientSession(
            connector=connector, timeout=aiohttp.ClientTimeout(total=None)
        ) as http:
            agents = []
            for n in range(count):
                # At most 16 asks on their way at a time, as the service's bench creates them
                # (a held ask answers only when clicked, so nothing else says it arrived).
                await emu.wait_for(partial(posted, emu, n - IN_FLIGHT), within=60)
                agents.append(asyncio.create_task(_ask(http, url, n)))
            await emu.wait_for(partial(posted, emu, count), within=600, what="posts")
            pending = rss_mib(peer.proc.pid)
            for agent in agents:
                agent.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.gather(*agents, return_exceptions=True)
        peer.proc.kill()  # its held requests would keep a graceful stop waiting
        await peer.proc.wait()
        await drain
        assert emu.violations == []
    return PeerMemory(count, idle, pending)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--asks", type=int, default=10_000)
    print(asyncio.run(measure(parser.parse_args().asks)))
