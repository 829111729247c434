"""`/metrics`' per-agent counters, over HTTP, for asks made through the relay and answered in
Slack (the figures of the Home tab, `bot/render/figures.py`)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from bot.service.server import Server
from slack_emulator import SlackEmulator

from ..harness import ALICE
from .harness import in_process, relay
from .test_relay import DB, posted


@pytest.fixture
async def metered(emu: SlackEmulator, tmp_path: Path) -> AsyncIterator[Server]:
    async with in_process(emu, tmp_path / "asks.db", SLACK_QUESTIONS_METRICS="1") as server:
        yield server


async def test_metrics_count_each_agents_asks_and_how_they_ended(
    metered: Server, http: aiohttp.ClientSession, emu: SlackEmulator
) -> None:
    url = f"{metered.url}/v1/asks"
    ci = {"id": "s1", "name": "CI bot"}
    await relay(http, "POST", url, json={"questions": [DB], "agent": ci})
    await emu.person(ALICE).click(await posted(emu, 1), text="SQLite")
    _, withdrawn = await relay(http, "POST", url, json={"questions": [DB], "agent": ci})
    await posted(emu, 2)
    await relay(http, "DELETE", f"{url}/{withdrawn['id']}")
    await relay(
        http, "POST", url, json={"questions": [DB], "agent": {"id": "s2", "name": "Planner"}}
    )
    await posted(emu, 3)
    async with http.get(f"{metered.url}/metrics") as response:
        assert response.status == 200
        text = await response.text()
    lines = [
        line
        for line in text.splitlines()
        if line.startswith(
            (
                "slack_questions_agent_asks_created_total",
                "slack_questions_agent_asks_settled_total",
                "slack_questions_agent_answer_seconds_count",
                "slack_questions_agent_auto_decided_total",
            )
        )
    ]
    assert lines == [
        'slack_questions_agent_asks_created_total{agent="CI bot"} 2.0',
        'slack_questions_agent_asks_created_total{agent="Planner"} 1.0',
        'slack_questions_agent_asks_settled_total{agent="CI bot",outcome="answered"} 1.0',
        'slack_questions_agent_asks_settled_total{agent="CI bot",outcome="withdrawn"} 1.0',
        'slack_questions_agent_answer_seconds_count{agent="CI bot"} 1.0',
    ]
