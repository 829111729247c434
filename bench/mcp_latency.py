"""MCP call to answer over the relay, beside `RelayProvider` asking the same relay directly.

A person (the emulator) clicks as soon as each question is posted, so the figures are the
machinery's own time. The service (SQLite store) and the emulator run here; the MCP server
runs in this process with the SDK's in-memory client (both protocol eras), and as a real
`python -m bot mcp` child on stdio, the way Claude Code or Cursor runs it.

    python -m bench.mcp_latency [--rounds 200]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp_types import Implementation

from bot.config import load_config, parse_args
from bot.mcp.desk import QuestionDesk
from bot.service.server import Server
from provider import RelayProvider, UserQuestionService

from .relay_latency import RELAY_TOKEN, REQUEST, bench_emulator, clicker, service_env
from .stats import Summary, summarise

WARM_UP = 20
ROOT = Path(__file__).resolve().parents[1]
ARGUMENTS = {"questions": REQUEST.to_wire()["questions"]}
CLIENT = Implementation(name="bench", version="1")
DIRECT = "RelayProvider, direct:              "


async def mcp_ask(client: Client) -> None:
    """One `ask_user_question` call that must come back answered."""
    result = await client.call_tool("ask_user_question", ARGUMENTS)
    assert not result.is_error, result


async def interleaved(
    paths: dict[str, Callable[[], Awaitable[object]]], rounds: int
) -> dict[str, Summary]:
    """Each round asks once on every path in turn, so a busy machine slows all of them alike."""
    samples: dict[str, list[float]] = {name: [] for name in paths}
    for n in range(WARM_UP + rounds):
        for name, ask in paths.items():
            start = time.perf_counter()
            await ask()
            if n >= WARM_UP:
                samples[name].append(time.perf_counter() - start)
    return {name: summarise(seconds) for name, seconds in samples.items()}


async def main(rounds: int) -> None:
    """Measure every path on one service, warm-up first, and print the overheads."""
    emu = bench_emulator()
    with tempfile.TemporaryDirectory() as tmp:
        env = service_env(Path(tmp) / "asks.db")
        async with emu:
            env["SLACK_API_URL"] = emu.api_url
            server = await Server.start(load_config(env, parse_args([])))
            emu.request_url = f"{server.url}/slack/events"
            stop = asyncio.Event()
            clicking = asyncio.create_task(clicker(emu, stop))
            try:
                stdio_env = {
                    "PATH": os.environ.get("PATH", ""),
                    "PYTHONPATH": str(ROOT),
                    "SLACK_QUESTIONS_RELAY_URL": server.url,
                    "SLACK_QUESTIONS_RELAY_TOKEN": RELAY_TOKEN,
                }
                params = StdioServerParameters(
                    command=sys.executable, args=["-m", "bot", "mcp"], env=stdio_env, cwd=ROOT
                )
                async with (
                    RelayProvider(server.url, RELAY_TOKEN) as relay,
                    QuestionDesk(relay) as desk,
                    Client(desk.server, mode="legacy", client_info=CLIENT) as legacy,
                    Client(desk.server, mode="2026-07-28", client_info=CLIENT) as modern,
                    Client(stdio_client(params), client_info=CLIENT) as stdio,
                ):
                    service = UserQuestionService()
                    service.register_provider(relay)
                    results = await interleaved(
                        {
                            DIRECT: lambda: service.ask(REQUEST),
                            "MCP in-process, 2025 handshake era:": lambda: mcp_ask(legacy),
                            "MCP in-process, 2026 envelope era: ": lambda: mcp_ask(modern),
                            "MCP over stdio (python -m bot mcp):": lambda: mcp_ask(stdio),
                        },
                        rounds,
                    )
            finally:
                stop.set()
                await clicking
                await server.close()
            assert emu.violations == [], emu.violations
    print(f"{rounds} rounds, SQLite store, emulator and service in one process, loopback HTTP")
    direct = results[DIRECT]
    for label, summary in results.items():
        line = f"{label} {summary}"
        if label != DIRECT:
            line += (
                f"   overhead: median {summary.median_ms - direct.median_ms:+.2f} ms,"
                f" p95 {summary.p95_ms - direct.p95_ms:+.2f} ms"
            )
        print(line)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=200)
    asyncio.run(main(parser.parse_args().rounds))
