"""Issue 28: one `RelayProvider` holds as many waits as its agent has asks. Against a real
`python -m bot` on the emulator, 1,000 concurrent asks from one provider are all posted and
all held open on the relay at once (aiohttp's default pool of 100 connections capped them
at 100, queueing the rest inside the client), and every one gets its own answer."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import aiohttp

from provider import AskUserQuestionRequest, RelayProvider
from slack_emulator import SlackEmulator

from ..harness import ALICE
from .harness import RELAY_TOKEN, Process, free_port, service_env
from .test_operations import samples
from .test_relay import ask_posts

ASKS = 1000
CLICKS_AT_ONCE = 50  # people clicking at once: enough to keep the service busy


def question(n: int) -> AskUserQuestionRequest:
    return AskUserQuestionRequest.model_validate(
        {
            "questions": [
                {
                    "id": f"q{n}",
                    "question": f"Ship build {n}?",
                    "options": [{"label": "Ship"}, {"label": "Hold"}],
                }
            ]
        }
    )


async def relay_waiters(http: aiohttp.ClientSession, service: Process) -> float:
    async with http.get(f"{service.url}/metrics") as response:
        return samples(await response.text())[("slack_questions_relay_waiters", ())]


async def test_a_thousand_concurrent_asks_through_one_provider_all_wait_and_are_answered(
    emu: SlackEmulator, tmp_path: Path
) -> None:
    # Above the service's default cap of 1,000 held waits: a poll renewed while its last one
    # is still being released must not be told to retry.
    env = service_env(
        emu,
        tmp_path / "asks.db",
        free_port(),
        SLACK_QUESTIONS_METRICS="1",
        SLACK_QUESTIONS_MAX_WAITS="2000",
    )
    service = Process(env)
    await service.start()
    emu.request_url = f"{service.url}/slack/events"  # clicks go to this service
    try:
        async with (
            RelayProvider(service.url, RELAY_TOKEN, wait_seconds=55) as provider,
            aiohttp.ClientSession() as http,
        ):
            asking = [asyncio.create_task(provider.ask(question(n))) for n in range(ASKS)]
            # Well inside one long-poll (55 s): no ask may queue behind another's wait.
            await emu.wait_for(lambda: len(ask_posts(emu)) == ASKS, within=45, what="every ask")
            held = await relay_waiters(http, service)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(20):  # the last polls may still be on their way
                    while held < ASKS:
                        held = await relay_waiters(http, service)
            assert held == ASKS
            messages = ask_posts(emu)
            alice = emu.person(ALICE)
            for start in range(0, ASKS, CLICKS_AT_ONCE):
                batch = messages[start : start + CLICKS_AT_ONCE]
                clicked = await asyncio.gather(*(alice.click(m, text="Ship") for m in batch))
                # A click lost in transit would leave its ask waiting: said here, not hung on.
                assert [d.error for d in clicked if not d.acked] == []
            answers = await asyncio.gather(*asking)
    finally:
        assert await service.stop() == 0
    assert [a.to_wire() for a in answers] == [
        {"answers": [{"id": f"q{n}", "selected": ["Ship"]}]} for n in range(ASKS)
    ]
