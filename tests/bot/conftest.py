"""Fixtures for the Slack provider: a running emulator and a provider served to it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from slack_emulator import SlackEmulator

from .harness import Bot, new_emulator, running_bot


@pytest.fixture
async def emu() -> AsyncIterator[SlackEmulator]:
    async with new_emulator() as emulator:
        yield emulator
    # Every Block Kit payload the provider sent in the test was one Slack accepts, and every
    # interaction was acked in time.
    assert emulator.violations == []


@pytest.fixture
async def bot(emu: SlackEmulator) -> AsyncIterator[Bot]:
    async with running_bot(emu) as running:
        yield running
