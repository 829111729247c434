"""The cost of the relay's credential check on the create and get paths, interleaved.

Each path is a `python -m bot` process (SQLite store, HTTP mode) against an emulator of its
own in this process, reached over loopback:
- `admin token`: this checkout, called with SLACK_QUESTIONS_RELAY_TOKEN (a compare, no read);
- `agent credential`: the same service, called with an agent credential (a cached store
  read, the ownership check, the routing rule, the pending cap's count and the rate bucket);
- with `--against DIR`, `admin token @ baseline`: the checkout at DIR (e.g. the code before
  credentials) called with its shared token.

Each round times one `POST /v1/asks` and one `GET /v1/asks/{id}` on every path in turn, then
withdraws the ask (untimed), so pending asks do not pile up.

    python -m bench.credential_check [--rounds 300] [--against DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp

from slack_emulator import SlackEmulator

from .click_latency import bench_emulator, free_port
from .relay_latency import RELAY_TOKEN, service_env
from .stats import summarise

ROOT = Path(__file__).resolve().parents[1]
WARM_UP = 20
AGENT = "bench-agent"
BODY = {
    "questions": [
        {"id": "go", "question": "Go ahead?", "options": [{"label": "Yes"}, {"label": "No"}]}
    ],
    "agent": {"id": AGENT},
}


@dataclass
class Path_:
    """One path: where its service listens and the bearer token it is called with."""

    name: str
    url: str
    token: str
    creates: list[float] = field(default_factory=list)
    gets: list[float] = field(default_factory=list)

    async def round(self, http: aiohttp.ClientSession, keep: bool) -> None:
        """Time one create and one get; withdraw the ask."""
        headers = {"Authorization": f"Bearer {self.token}"}
        started = time.perf_counter()
        async with http.post(f"{self.url}/v1/asks", json=BODY, headers=headers) as response:
            created = await response.json()
            assert response.status == 201, created
        made = time.perf_counter()
        ask = f"{self.url}/v1/asks/{created['id']}"
        async with http.get(ask, headers=headers) as response:
            await response.read()
            assert response.status == 200
        got = time.perf_counter()
        async with http.delete(ask, headers=headers) as response:
            await response.read()
        if keep:
            self.creates.append(made - started)
            self.gets.append(got - made)


async def run(
    *argv: str, root: Path, env: dict[str, str], quiet: bool = False
) -> asyncio.subprocess.Process:
    """`python -m bot ARGV` from the checkout at `root`."""
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        *argv,
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root), "LOG_LEVEL": "ERROR", **env},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL if quiet else None,
        stdin=asyncio.subprocess.DEVNULL,
    )


async def mint_credential(db: Path) -> str:
    """An agent credential with no effective caps (the bench measures the check, not a 429)."""
    proc = await run(
        "credentials",
        "create",
        "--agent",
        AGENT,
        "--max-pending",
        "100000",
        "--creates-per-minute",
        "100000",
        "--db",
        str(db),
        root=ROOT,
        env={},
        quiet=True,  # its "shown once" note
    )
    out, _ = await proc.communicate()
    assert proc.returncode == 0
    return out.decode().strip()


async def start_service(stack: AsyncExitStack, root: Path, db: Path) -> str:
    """`python -m bot` from `root` on its own emulator; its URL."""
    emu: SlackEmulator = await stack.enter_async_context(bench_emulator())
    port = free_port()
    env = {**service_env(db), "SLACK_API_URL": emu.api_url, "PORT": str(port)}
    if root != ROOT:
        # A checkout from before `*` read no responders as anyone, and refuses `*`.
        env.pop("SLACK_QUESTIONS_RESPONDERS", None)
    proc = await run(root=root, env=env)

    async def stop() -> None:
        proc.terminate()
        await proc.wait()

    stack.push_async_callback(stop)
    assert proc.stdout is not None
    while b"listening on" not in (line := await proc.stdout.readline()):
        assert line, "the service exited before it listened"
    url = f"http://127.0.0.1:{port}"
    emu.request_url = f"{url}/slack/events"
    return url


async def measure(rounds: int, against: Path | None) -> list[Path_]:
    """Interleaved rounds over every path; the paths with their samples."""
    with tempfile.TemporaryDirectory() as tmp:
        async with AsyncExitStack() as stack, aiohttp.ClientSession() as http:
            ours = Path(tmp) / "ours.db"
            token = await mint_credential(ours)
            url = await start_service(stack, ROOT, ours)
            paths = [Path_("admin token", url, RELAY_TOKEN), Path_("agent credential", url, token)]
            if against is not None:
                base = await start_service(stack, against, Path(tmp) / "base.db")
                paths.append(Path_("admin token @ baseline", base, RELAY_TOKEN))
            for n in range(WARM_UP + rounds):
                for path in paths:
                    await path.round(http, keep=n >= WARM_UP)
    return paths


async def main(rounds: int, against: Path | None) -> None:
    """Measure and print one line per path and request."""
    for path in await measure(rounds, against):
        print(f"create  {path.name:<24} {summarise(path.creates)}")
        print(f"get     {path.name:<24} {summarise(path.gets)}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--against", type=Path, help="another checkout, run beside ours")
    args = parser.parse_args()
    asyncio.run(main(args.rounds, args.against))
