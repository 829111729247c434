"""Click → waiting agent answered, and ask → posted, on five paths beside a bare Bolt baseline,
interleaved.

The paths (each app its own process, reached over loopback HTTP with Slack's signed requests,
each with its own emulator in this process):
- `bare`: Bolt, one listener that acks and resolves a future a waiting coroutine awaits;
- `in-process`: the full provider in process, memory store;
- `python -m bot`: the service as `Server.start` composes it (SQLite store, its observers),
  the agent in the service's process;
- `relay`: the same service, the agent in a third process asking through `RelayProvider`,
  which holds `GET /v1/asks/{id}?wait=` until the answer;
- `in-memory peer`: our own baseline of the fastest peer's design (bench.latency_app `peer`):
  the agent in its own process holds `POST /ask` while the peer posts and waits on a future
  in a dict; nothing is stored, nothing checked. The relay's figures are read against it.

Ask → posted (every path but bare, whose message the driver posts): from the driver telling
the asker "go" to the emulator recording the `chat.postMessage`, stamped in this process.

Fairness: rounds are interleaved (bare, in-process, python -m bot, relay, bare…); every
message has the same shape (a section and three buttons); every path stamps the time in the
coroutine that waits for the answer; a provider is clicked only once it has saved its post,
and the next round starts only once it is idle again (its follow-up Slack calls done); an app
asks only when told, so its post never lands in another path's round.

    python -m bench.click_latency [--rounds 300] [--repeats 3] [--against DIR]

`--against DIR` adds the three provider paths again as another checkout at DIR runs them
(its `bench.latency_app` and `bot/`, started with DIR as their working directory), interleaved
in the same rounds: a change measured beside the code it replaces, on the same machine state.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp
from slack_sdk.web.async_client import AsyncWebClient

from slack_emulator import SlackEmulator

from .latency_app import CHANNEL, SECRET, TOKEN
from .relay_latency import service_env
from .stats import Summary, summarise

PERSON = "U0BENCHER1"
WARM_UP = 20
ROOT = Path(__file__).resolve().parents[1]
WAITERS_GAUGE = "slack_questions_relay_waiters "
BARE = "bare"
PEER = "in-memory peer"
PATHS = (BARE, "in-process", "python -m bot", "relay", PEER)
PROVIDER_PATHS = PATHS[1:4]  # what `--against` runs again as the other checkout
AGAINST = " @ baseline"  # the suffix of a path run by the `--against` checkout
# The shape of the provider's one-click question: a section, then three buttons.
MESSAGE: list[dict[str, object]] = [
    {"type": "section", "text": {"type": "mrkdwn", "text": "*Go ahead?*"}},
    {
        "type": "actions",
        "block_id": "go",
        "elements": [
            {"type": "button", "action_id": action, "text": {"type": "plain_text", "text": label}}
            for action, label in (("yes", "Yes"), ("no", "No"), ("other", "Other…"))
        ],
    },
]


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def held(http: aiohttp.ClientSession, url: str) -> int:
    """How many relay long-polls the service at `url` holds now, from its /metrics."""
    async with http.get(f"{url}/metrics") as response:
        for line in (await response.text()).splitlines():
            if line.startswith(WAITERS_GAUGE):
                return int(float(line.removeprefix(WAITERS_GAUGE)))
    raise RuntimeError("no relay waiters gauge in /metrics (SLACK_QUESTIONS_METRICS=1?)")


def bench_emulator() -> SlackEmulator:
    """One person and one channel the bot is in."""
    emu = SlackEmulator(signing_secret=SECRET, bot_token=TOKEN)
    emu.workspace.add_user(PERSON, name="bencher")
    emu.workspace.add_channel(CHANNEL, name="bench", members=[PERSON, emu.bot_user_id])
    return emu


class AppProcess:
    """A `bench.latency_app` process, steered by lines on its stdin."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc

    @classmethod
    async def start(
        cls, *args: str, env: dict[str, str] | None = None, root: Path = ROOT
    ) -> AppProcess:
        """Start `python -m bench.latency_app ARGS` from the checkout at `root`."""
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bench.latency_app",
            *args,
            cwd=root,
            env={**os.environ, "PYTHONPATH": str(root), "LOG_LEVEL": "WARNING", **(env or {})},
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        return cls(proc)

    async def line(self) -> str:
        assert self.proc.stdout is not None
        return (await self.proc.stdout.readline()).decode().strip()

    async def expect(self, what: str) -> None:
        line = await self.line()
        assert line == what, f"expected {what!r} from the app, got {line!r}"

    def send(self, command: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(command.encode() + b"\n")

    async def answered_at(self) -> float:
        return float(json.loads(await self.line())["answered_at"])

    async def stop(self) -> None:
        """Close its stdin and wait for it to say "done"."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        await self.expect("done")
        await self.proc.wait()


@dataclass
class Path_:
    """One path: the process that asks, the one that posts and settles, and its emulator."""

    name: str
    emu: SlackEmulator
    asker: AppProcess
    service: AppProcess
    relay_url: str | None = None
    answers: list[float] = field(default_factory=list)
    acks: list[float] = field(default_factory=list)
    posts: list[float] = field(default_factory=list)

    async def round(self, client: AsyncWebClient, http: aiohttp.ClientSession, keep: bool) -> None:
        """Ask, time ask → posted, wait for the saved post, click "Yes", time click →
        answer, wait for idle."""
        seen = len(self.emu.calls_to("chat.postMessage"))
        posting = asyncio.ensure_future(self.emu.wait_for_call("chat.postMessage", count=seen + 1))
        asked = time.time()
        self.asker.send("go")
        if self.name == BARE:
            posting.cancel()  # the driver posts bare's message itself, below
        else:
            await posting
            posted = time.time()
            if keep:
                self.posts.append(posted - asked)
        await self.service.expect("posted")
        if self.relay_url is not None:
            # The agent's long-poll may reach the service after the post is saved: click
            # once it is held, as a person would click a question some time after it came.
            while await held(http, self.relay_url) < 1:  # noqa: ASYNC110 (only /metrics tells)
                await asyncio.sleep(0.001)
        if self.name == BARE:
            response = await client.chat_postMessage(
                channel=CHANNEL, text="Go ahead?", blocks=MESSAGE
            )
            ts = str(response["ts"])
        else:
            ts = str(self.emu.calls_to("chat.postMessage")[-1].response["ts"])
        started = time.time()
        delivery = await self.emu.person(PERSON).click(self.emu.message(CHANNEL, ts), text="Yes")
        answered = await self.asker.answered_at()
        self.service.send("idle")
        await self.service.expect("idle")
        assert delivery.ack_seconds is not None
        if keep:
            self.answers.append(answered - started)
            self.acks.append(delivery.ack_seconds)


async def start_path(stack: AsyncExitStack, name: str, tmp: Path, against: Path | None) -> Path_:
    """The emulator and app process(es) of path `name`, ready for rounds."""
    root = against if name.endswith(AGAINST) and against is not None else ROOT
    kind_of = name.removesuffix(AGAINST)
    emu = bench_emulator()
    await stack.enter_async_context(emu)
    port = free_port()
    emu.request_url = f"http://127.0.0.1:{port}/slack/events"
    app_args = ["--api-url", emu.api_url, "--port", str(port)]
    if kind_of == PEER:
        peer = await AppProcess.start("peer", *app_args, root=root)
        stack.push_async_callback(peer.stop)
        url = (await peer.line()).removeprefix("url ")
        await peer.expect("ready")
        agent = await AppProcess.start("peer-agent", "--relay-url", url, root=root)
        stack.push_async_callback(agent.stop)
        await agent.expect("ready")
        return Path_(name, emu, agent, peer)
    if kind_of in (BARE, "in-process"):
        app = await AppProcess.start(
            "bare" if kind_of == BARE else "provider", *app_args, root=root
        )
        stack.push_async_callback(app.stop)
        await app.expect("ready")
        return Path_(name, emu, app, app)
    env = service_env(tmp / f"{name.replace(' ', '-').replace('@', 'at')}.db")
    # /metrics on for both service paths: it says when the relay holds the agent's long-poll.
    env.update(SLACK_API_URL=emu.api_url, PORT=str(port), SLACK_QUESTIONS_METRICS="1")
    kind = "service" if kind_of == "python -m bot" else "relay-service"
    service = await AppProcess.start(kind, env=env, root=root)
    stack.push_async_callback(service.stop)
    url = (await service.line()).removeprefix("url ")
    await service.expect("ready")
    if kind_of == "python -m bot":
        return Path_(name, emu, service, service)
    agent = await AppProcess.start("relay-agent", "--relay-url", url, root=root)
    stack.push_async_callback(agent.stop)
    await agent.expect("ready")
    return Path_(name, emu, agent, service, relay_url=url)


def path_names(against: Path | None) -> list[str]:
    """Every path of a run; with `against`, each provider path again as that checkout runs it."""
    if against is None:
        return list(PATHS)
    return [BARE] + [n for p in PROVIDER_PATHS for n in (p, p + AGAINST)] + [PEER]


@dataclass(frozen=True)
class Samples:
    """One run's seconds per path: click → answer, and ask → posted (bare has none)."""

    answers: dict[str, list[float]]
    posts: dict[str, list[float]]


async def measure(rounds: int, warm_up: int = WARM_UP, against: Path | None = None) -> Samples:
    """One interleaved run of every path, warm-up rounds dropped."""
    with tempfile.TemporaryDirectory() as tmp:
        async with AsyncExitStack() as stack:
            paths = [await start_path(stack, n, Path(tmp), against) for n in path_names(against)]
            client = AsyncWebClient(token=TOKEN, base_url=paths[0].emu.api_url)
            http = await stack.enter_async_context(aiohttp.ClientSession())
            for n in range(warm_up + rounds):
                for path in paths:
                    await path.round(client, http, keep=n >= warm_up)
        for path in paths:
            assert path.emu.violations == [], path.emu.violations
    return Samples(
        answers={path.name: path.answers for path in paths},
        posts={path.name: path.posts for path in paths if path.name != BARE},
    )


def ratios(
    samples: dict[str, list[float]], base: str = BARE
) -> dict[str, tuple[Summary, float, float]]:
    """Each path's summary and its median and p95 ratios to `base`'s."""
    against = summarise(samples[base])
    out = {}
    for name, seconds in samples.items():
        summary = summarise(seconds)
        out[name] = (
            summary,
            summary.median_ms / against.median_ms,
            summary.p95_ms / against.p95_ms,
        )
    return out


async def main(rounds: int, repeats: int, against: Path | None = None) -> None:
    """Measure every path, interleaved, `repeats` times, and print each run's ratios."""
    print(f"{rounds} interleaved rounds (after {WARM_UP} warm-up) x {repeats}")
    for run in range(1, repeats + 1):
        print(f"run {run}: click → answer")
        samples = await measure(rounds, against=against)
        for name, (summary, median, p95) in ratios(samples.answers).items():
            print(f"  {name:26} {summary}   /bare: median {median:.2f}x  p95 {p95:.2f}x")
        print(f"run {run}: ask → posted")
        for name, (summary, median, p95) in ratios(samples.posts, PEER).items():
            print(f"  {name:26} {summary}   /peer: median {median:.2f}x  p95 {p95:.2f}x")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--against", type=Path, help="another checkout whose provider paths run beside ours"
    )
    args = parser.parse_args()
    asyncio.run(main(args.rounds, args.repeats, args.against))
