"""Stop in Slack across replicas: two `python -m bot` replicas of an app declared as an agent
(SLACK_QUESTIONS_AGENT_SESSIONS=1) on one PostgreSQL database; Slack sends
`agent_session_stopped` to replica B, and the agent waiting on replica A is told its ask was
stopped in Slack."""

from __future__ import annotations

import asyncio
from pathlib import Path

import aiohttp

from bot.store import EventKind
from bot.store.postgres import PostgresStore
from slack_emulator import RateLimited, SlackEmulator

from ..harness import ALICE, CHANNEL
from .harness import Process, free_port, relay, service_env
from .test_relay import DB, posted

AGENT = {"id": "deployer", "name": "Deploy agent"}


def agent_replica(emu: SlackEmulator, postgres_url: str, name: str) -> Process:
    env = service_env(
        emu,
        Path("unused.db"),
        free_port(),
        SLACK_QUESTIONS_REPLICA=name,
        SLACK_QUESTIONS_AGENT_SESSIONS="1",
    )
    return Process({**env, "SLACK_QUESTIONS_DB": postgres_url})


def status_of(emu: SlackEmulator, thread_ts: str) -> str | None:
    session = emu.agent_session(CHANNEL, thread_ts)
    return session.status if session is not None else None


async def test_stop_delivered_to_b_ends_the_ask_a_agent_waits_on_as_stopped_in_slack(
    emu: SlackEmulator, postgres_url: str
) -> None:
    emu.declare_agent()
    a, b = agent_replica(emu, postgres_url, "a"), agent_replica(emu, postgres_url, "b")
    await asyncio.gather(a.start(), b.start())
    emu.request_url = f"{a.url}/slack/events"
    try:
        async with aiohttp.ClientSession() as http:
            ask = {"questions": [DB], "agent": AGENT}
            _, first = await relay(http, "POST", f"{a.url}/v1/asks", json=ask)
            message = await posted(emu)
            # Answered on B, which did not post it: B moves the session on all the same.
            with emu.delivering_to(f"{b.url}/slack/events"):
                await emu.person(ALICE).click(message, text="SQLite")
            await emu.wait_for(
                lambda: status_of(emu, str(message.thread_ts)) == "processing",
                within=10,
                what="the session processing",
            )
            # Slack holds the next post back: the ask is stored and pending, not yet shown.
            emu.inject("chat.postMessage", RateLimited(retry_after=60), times=None)
            _, second = await relay(http, "POST", f"{a.url}/v1/asks", json=ask)
            waiting = asyncio.create_task(
                relay(http, "GET", f"{a.url}/v1/asks/{second['id']}?wait=30")
            )
            with emu.delivering_to(f"{b.url}/slack/events"):
                delivery = await emu.person(ALICE).stop_agent_session(
                    CHANNEL, str(message.thread_ts)
                )
            assert delivery.acked
            status, view = await asyncio.wait_for(waiting, 20)
            emu.clear_faults()
        assert (status, view["state"], view["error"]) == (
            200,
            "failed",
            {
                "name": "UserQuestionError",
                "code": "ASK_ABORTED",
                "message": "ask_user_question was aborted before the user answered: "
                "stopped in Slack",
            },
        )
        assert view["decided_by"] == ALICE
        async with PostgresStore(postgres_url) as store:
            kinds = [event.kind for event in await store.events(second["id"])]
        assert EventKind.STOPPED in kinds
        assert first["id"] != second["id"]
    finally:
        for process in (a, b):
            if process.proc is not None and process.proc.returncode is None:
                assert await process.stop() == 0, "".join(process.output)
