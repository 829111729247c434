"""Fixtures for the service: an emulator with start-up-valid credentials, an HTTP session."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from bot.service.server import Server
from slack_emulator import SlackEmulator

from .harness import in_process, service_emulator


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
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session
