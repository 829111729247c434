"""Event-loop time of one thread reply, with many asks pending beside it and with few.

Two services run in this process as `python -m bot` composes them (`Server.start`: SQLite
store, relay, observers), each on its own emulator: one with 10 asks pending, one with 10,000
(created through the relay, posted, nobody answering). Each round, on each service in turn
(interleaved): an agent in the service's process asks an optionless question, and once it is
posted and waited on, a person replies in its thread; the reply answers it. Timed: the
service's time on the event loop from the reply leaving the emulator until the agent has its
answer and the service is idle — every loop callback that runs in the service's context
(its HTTP server, Bolt, the provider, its Slack calls), not the emulator's.

    python -m bench.reply_cost [--pending 10000] [--rounds 100]
"""

from __future__ import annotations

import argparse
import asyncio
import contextvars
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import AsyncExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp

from bot.config import load_config, parse_args
from bot.service.server import Server
from bot.slack.messages import METADATA_EVENT
from provider import AskUserQuestionRequest, UserQuestionService
from slack_emulator import SlackEmulator

from .click_latency import PERSON, bench_emulator
from .latency_app import CHANNEL
from .pending_memory import create_pending
from .relay_latency import service_env
from .stats import Summary, summarise

NAME = AskUserQuestionRequest.model_validate(
    {"questions": [{"id": "name", "question": "Name the service"}]}
)
# Which service a loop callback works for: set in the context each service was started in,
# so its server, tasks and connections carry it; the emulators' callbacks carry none.
ROLE: contextvars.ContextVar[str | None] = contextvars.ContextVar("bench_role", default=None)


class LoopTime:
    """Seconds of event-loop callbacks run per role (`ROLE` in the callback's context)."""

    def __init__(self) -> None:
        self.busy: defaultdict[str, float] = defaultdict(float)

    @contextmanager
    def counting(self) -> Iterator[None]:
        """Time every loop callback while inside."""
        original: Callable[[asyncio.Handle], None] = asyncio.Handle._run
        busy = self.busy

        def timed(handle: asyncio.Handle) -> None:
            role = handle._context.get(ROLE)  # type: ignore[attr-defined]
            if role is None:
                return original(handle)
            started = time.perf_counter()
            try:
                return original(handle)
            finally:
                busy[role] += time.perf_counter() - started

        asyncio.Handle._run = timed  # type: ignore[method-assign,assignment]
        try:
            yield
        finally:
            asyncio.Handle._run = original  # type: ignore[method-assign,assignment]


@dataclass
class Service:
    """One service, its emulator, its in-process agent and the loop time of its replies."""

    role: str
    emu: SlackEmulator
    server: Server
    context: contextvars.Context
    agent: UserQuestionService
    samples: list[float] = field(default_factory=list)

    def ts_of(self, ask_id: str) -> str | None:
        """The ts of `ask_id`'s message, once Slack has it."""
        for call in self.emu.calls_to("chat.postMessage"):
            metadata = call.params.get("metadata") or {}
            if (
                call.ok
                and metadata.get("event_type") == METADATA_EVENT
                and metadata["event_payload"]["ask_id"] == ask_id
            ):
                return str(call.response["ts"])
        return None

    async def round(self, clock: LoopTime, keep: bool) -> None:
        """Ask, wait until it is posted and waited on, reply, time the reply's handling."""
        asks = self.server.provider.asks
        before = len(self.emu.calls_to("chat.postMessage"))
        asking = asyncio.create_task(self.agent.ask(NAME), context=self.context)
        await self.emu.wait_for(
            lambda: len(self.emu.calls_to("chat.postMessage")) > before, what="the ask posted"
        )
        call = self.emu.calls_to("chat.postMessage")[before]
        ask_id = str(call.params["metadata"]["event_payload"]["ask_id"])
        # Polled: nothing outside the service tells when the post is saved.
        while (record := await asks.stored(ask_id)) is None or record.queued:  # noqa: ASYNC110
            await asyncio.sleep(0.001)
        # Saved as posted; a few ms more for the agent to be waiting (nothing tells when).
        await asyncio.sleep(0.01)
        await self.server.provider.idle()
        clock.busy[self.role] = 0.0
        await self.emu.person(PERSON).reply(CHANNEL, str(call.response["ts"]), "billing")
        answer = await asking
        assert answer.answers[0].custom == "billing", answer
        await self.server.provider.idle()
        if keep:
            self.samples.append(clock.busy[self.role])


async def start_service(stack: AsyncExitStack, role: str, db: Path, pending: int) -> Service:
    """A service in its own context, with `pending` asks pending (created through the relay)."""
    emu = bench_emulator()
    await stack.enter_async_context(emu)
    env = {**service_env(db), "SLACK_API_URL": emu.api_url}
    context = contextvars.copy_context()
    context.run(ROLE.set, role)
    config = load_config(env, parse_args([]))
    server = await asyncio.create_task(Server.start(config), context=context)
    stack.push_async_callback(server.close)
    emu.request_url = f"{server.url}/slack/events"
    agent = UserQuestionService()
    server.provider.register(agent)
    async with aiohttp.ClientSession() as http:
        await create_pending(http, server.url, pending)
    await emu.wait_for(
        lambda: len(emu.calls_to("chat.postMessage")) >= pending, within=900, what="posts"
    )
    await server.provider.idle()
    return Service(role, emu, server, context, agent)


@dataclass(frozen=True)
class ReplyCost:
    """Loop time of one reply with few asks pending and with many."""

    few: int
    many: int
    with_few: Summary
    with_many: Summary

    @property
    def ratio(self) -> float:
        """Median with many over median with few."""
        return self.with_many.median_ms / self.with_few.median_ms

    def __str__(self) -> str:
        return (
            f"loop time of one thread reply, {self.few} pending:  {self.with_few}\n"
            f"loop time of one thread reply, {self.many} pending: {self.with_many}\n"
            f"ratio (many/few): median {self.ratio:.2f}x, "
            f"p95 {self.with_many.p95_ms / self.with_few.p95_ms:.2f}x"
        )


async def measure(many: int, rounds: int, few: int = 10, warm_up: int = 5) -> ReplyCost:
    """Both services, replies interleaved round by round, warm-up rounds dropped."""
    clock = LoopTime()
    with tempfile.TemporaryDirectory() as tmp, clock.counting():
        async with AsyncExitStack() as stack:
            small = await start_service(stack, "few", Path(tmp) / "few.db", few)
            large = await start_service(stack, "many", Path(tmp) / "many.db", many)
            for n in range(warm_up + rounds):
                for service in (small, large):
                    await service.round(clock, keep=n >= warm_up)
            for service in (small, large):
                assert service.emu.violations == [], service.emu.violations
    return ReplyCost(few, many, summarise(small.samples), summarise(large.samples))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--pending", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=100)
    args = parser.parse_args()
    print(asyncio.run(measure(args.pending, args.rounds)))
