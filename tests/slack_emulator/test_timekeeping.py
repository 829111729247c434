"""ManualClock: time that moves only when a test moves it, for the emulator and the app alike."""

from __future__ import annotations

import asyncio

import pytest

from slack_emulator import ManualClock


def test_a_manual_clock_moves_only_forward() -> None:
    clock = ManualClock(100.0)
    clock.advance(2.5)
    assert clock.now() == 102.5
    with pytest.raises(ValueError, match="backwards"):
        clock.advance(-1)


async def test_a_sleeper_wakes_only_when_time_reaches_its_moment() -> None:
    clock = ManualClock(100.0)
    sleeper = asyncio.create_task(clock.sleep_until(160.0))
    await clock.sleeping()
    clock.advance(59.0)
    await asyncio.sleep(0)
    assert not sleeper.done()
    clock.advance(1.0)
    await asyncio.wait_for(sleeper, 1.0)
    assert clock.sleepers == 0


async def test_sleeping_until_a_moment_already_past_returns_at_once() -> None:
    clock = ManualClock(100.0)
    await asyncio.wait_for(clock.sleep_until(50.0), 1.0)
    assert clock.sleepers == 0


async def test_sleeping_waits_until_that_many_tasks_sleep_on_the_clock() -> None:
    clock = ManualClock(100.0)
    waiter = asyncio.create_task(clock.sleeping(2))
    first = asyncio.create_task(clock.sleep_until(110.0))
    await asyncio.sleep(0)
    assert not waiter.done()
    second = asyncio.create_task(clock.sleep_until(120.0))
    await asyncio.wait_for(waiter, 1.0)
    assert clock.sleepers == 2
    clock.advance(20.0)
    await asyncio.wait_for(asyncio.gather(first, second), 1.0)
