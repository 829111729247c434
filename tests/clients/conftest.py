"""Fixtures for the real-client tests: the service on the emulator, as `python -m bot` runs it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.service.server import Server
from slack_emulator import SlackEmulator

from ..bot.service.harness import in_process, service_emulator


@pytest.fixture
async def emu() -> AsyncIterator[SlackEmulator]:
    async with service_emulator() as emulator:
        yield emulator
    assert emulator.violations == []


@pytest.fixture
async def server(emu: SlackEmulator, tmp_path: Path) -> AsyncIterator[Server]:
    async with in_process(emu, tmp_path / "asks.db") as running:
        yield running
