"""Ask → posted through the relay: the agent's POST to Slack's chat.postMessage, interleaved.

Each path is `python -m bot` as `bench.latency_app relay-service` runs it (SQLite store, its
observers, relay and all), in its own process, with its own emulator in this process. The
agent is a third process (`--agent URL`, this checkout's for every path: the client is not
what is measured), a `RelayProvider` whose `start` sends `POST /v1/asks` as `ask()` does.
Per round, from the moment the agent sends the POST:
- `201`: the agent has read the POST's response (the ask is stored: stored before shown);
- `postMessage`: the emulator has recorded the ask's chat.postMessage (seen where this
  process wakes on the emulator's change, one loop turn after the record, alike on every
  path; this process is idle meanwhile, so the emulator's work never delays the agent's 201);
then the driver waits for the service to say it saved the ask as posted, withdraws it
(`DELETE`), and starts the next round once the service is idle (the withdrawal shown).

    python -m bench.post_latency [--rounds 300] [--repeats 1] [--against DIR] [--session]

`--against DIR` runs the same path again as the checkout at DIR runs it (its
`bench.latency_app` and `bot/`), interleaved in the same rounds: a change measured beside
the code it replaces, on the same machine state. `--session`: every ask is of one agent
session (`agent.id`), so it is posted in the session's thread, found by the session's
thread row (its root is posted in the first warm-up round).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
import uuid
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path

from provider import Agent as Agent_
from provider import RelayProvider
from slack_emulator import SlackEmulator

from .click_latency import AGAINST, ROOT, AppProcess, bench_emulator, free_port
from .latency_app import RELAY_TOKEN, REQUEST, report
from .relay_latency import service_env
from .stats import summarise

WARM_UP = 20
PATH = "relay"
SESSION = "bench-session"


def posts(emu: SlackEmulator) -> int:
    """How many chat.postMessage calls the emulator has recorded."""
    return len(emu.calls_to("chat.postMessage"))


class Agent(AppProcess):
    """`python -m bench.post_latency --agent URL`: creates and withdraws asks when told."""

    @classmethod
    async def launch(cls, relay_url: str, session: str | None) -> Agent:
        """Start an agent of the relay at `relay_url`, this checkout's, and wait till ready."""
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bench.post_latency",
            "--agent",
            relay_url,
            *(("--session-id", session) if session else ()),
            cwd=ROOT,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        agent = cls(proc)
        await agent.expect("ready")
        return agent


@dataclass
class PostPath:
    """One service process, its emulator, and the agent asking through its relay."""

    name: str
    emu: SlackEmulator
    service: AppProcess
    agent: Agent
    responses: list[float] = field(default_factory=list)
    posted: list[float] = field(default_factory=list)

    async def round(self, keep: bool) -> None:
        """Have the agent POST an ask; time its 201 and its chat.postMessage; withdraw it;
        wait till the service is idle."""
        seen = posts(self.emu)
        self.agent.send("go")
        await self.emu.wait_for(lambda: posts(self.emu) > seen, within=10, what="the post")
        posted = time.time()
        created = json.loads(await self.agent.line())
        await self.service.expect("posted")
        self.agent.send(f"withdraw {created['id']}")
        await self.agent.expect("withdrawn")
        self.service.send("idle")
        await self.service.expect("idle")
        if keep:
            self.responses.append(created["answered_at"] - created["sent_at"])
            self.posted.append(posted - created["sent_at"])


async def start_path(
    stack: AsyncExitStack, name: str, tmp: Path, against: Path | None, session: str | None
) -> PostPath:
    """The emulator, service and agent processes of path `name`, ready for rounds."""
    root = against if name.endswith(AGAINST) and against is not None else ROOT
    emu = bench_emulator()
    await stack.enter_async_context(emu)
    port = free_port()
    emu.request_url = f"http://127.0.0.1:{port}/slack/events"
    env = service_env(tmp / f"{name.replace(' ', '-').replace('@', 'at')}.db")
    env.update(SLACK_API_URL=emu.api_url, PORT=str(port))
    service = await AppProcess.start("relay-service", env=env, root=root)
    stack.push_async_callback(service.stop)
    url = (await service.line()).removeprefix("url ")
    await service.expect("ready")
    agent = await Agent.launch(url, session)
    stack.push_async_callback(agent.stop)
    return PostPath(name, emu, service, agent)


async def measure(
    rounds: int, warm_up: int = WARM_UP, against: Path | None = None, session: str | None = None
) -> list[PostPath]:
    """One interleaved run of every path, warm-up rounds dropped."""
    names = [PATH] if against is None else [PATH, PATH + AGAINST]
    with tempfile.TemporaryDirectory() as tmp:
        async with AsyncExitStack() as stack:
            paths = [await start_path(stack, n, Path(tmp), against, session) for n in names]
            for n in range(warm_up + rounds):
                for path in paths:
                    await path.round(keep=n >= warm_up)
        for path in paths:
            assert path.emu.violations == [], path.emu.violations
    return paths


async def run_agent(relay_url: str, session: str | None) -> None:
    """The agent process: "go" creates an ask and prints its id, when the POST was sent and
    when its response was read; "withdraw ID" withdraws it; end of input: "done"."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    request = REQUEST
    if session is not None:
        request = REQUEST.model_copy(update={"agent": Agent_(id=session, name="bench agent")})
    async with RelayProvider(relay_url, RELAY_TOKEN) as relay:
        report("ready")
        while line := (await reader.readline()).decode().strip():
            if line == "go":
                key = uuid.uuid4().hex
                sent_at = time.time()
                view = await relay.start(request, idempotency_key=key)
                report({"id": view.id, "sent_at": sent_at, "answered_at": time.time()})
            elif line.startswith("withdraw "):
                await relay.withdraw(line.removeprefix("withdraw "))
                report("withdrawn")
            else:
                raise SystemExit(f"unknown command {line!r}")
    report("done")


async def main(
    rounds: int, repeats: int, against: Path | None = None, session: str | None = None
) -> None:
    """Measure every path, interleaved, `repeats` times, and print each run's figures."""
    where = f" in session {session}'s thread" if session else ""
    print(f"ask → posted through the relay{where}, {rounds} interleaved rounds x {repeats}")
    for run in range(1, repeats + 1):
        print(f"run {run}")
        for path in await measure(rounds, against=against, session=session):
            print(f"  {path.name:18} POST → 201         {summarise(path.responses)}")
            print(f"  {path.name:18} POST → postMessage {summarise(path.posted)}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument(
        "--against", type=Path, help="another checkout whose service runs beside ours"
    )
    parser.add_argument(
        "--session", action="store_true", help="every ask of one agent session, in its thread"
    )
    parser.add_argument("--agent", metavar="URL", help=argparse.SUPPRESS)
    parser.add_argument("--session-id", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.agent is not None:
        asyncio.run(run_agent(args.agent, args.session_id))
    else:
        asyncio.run(
            main(args.rounds, args.repeats, args.against, SESSION if args.session else None)
        )
