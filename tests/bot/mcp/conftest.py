"""Fixtures for the MCP server: the service on the emulator, and a desk asking through its relay."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.mcp.desk import DeskOptions, QuestionDesk
from bot.service.server import Server
from provider import RelayProvider
from slack_emulator import SlackEmulator

from ..service.harness import RELAY_TOKEN, in_process, service_emulator

# Short enough that a test sees progress without waiting for the real 15 s.
PROGRESS_EVERY = 0.05


@pytest.fixture
async def emu() -> AsyncIterator[SlackEmulator]:
    async with service_emulator() as emulator:
        yield emulator
    assert emulator.violations == []


@pytest.fixture
async def server(emu: SlackEmulator, tmp_path: Path) -> AsyncIterator[Server]:
    async with in_process(emu, tmp_path / "asks.db") as running:
        yield running


@pytest.fixture
async def desk(server: Server) -> AsyncIterator[QuestionDesk]:
    async with (
        RelayProvider(server.url, RELAY_TOKEN) as relay,
        QuestionDesk(
            relay, DeskOptions(where="#agent-questions", progress_every=PROGRESS_EVERY)
        ) as running,
    ):
        yield running


@pytest.fixture(params=["legacy", "2026-07-28"])
def era(request: pytest.FixtureRequest) -> str:
    """The protocol era the SDK's client speaks: the 2025 handshake, or 2026 envelopes."""
    return str(request.param)
