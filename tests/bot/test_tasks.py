"""Shutdown of background work: queued work is left for the next start, retries stop
waiting, and work already running is waited for."""

from __future__ import annotations

import asyncio

from bot.tasks import Tasks
from slack_emulator import ManualClock


async def test_queued_work_starts_until_shutdown_begins_and_running_work_is_waited_for() -> None:
    tasks = Tasks()
    release = asyncio.Event()
    finished: list[str] = []

    async def job(name: str) -> None:
        await release.wait()
        finished.append(name)

    assert tasks.spawn_queued(job("before")) is not None
    draining = asyncio.create_task(tasks.drain())
    await asyncio.sleep(0)  # the drain has begun
    assert tasks.spawn_queued(job("queued")) is None  # left for the next start
    release.set()
    await draining
    assert finished == ["before"]


async def test_a_retry_waits_out_its_backoff_but_not_a_shutdown() -> None:
    tasks = Tasks()
    clock = ManualClock()
    waited = asyncio.create_task(tasks.wait_until(clock, clock.now() + 5))
    await clock.sleeping()
    clock.advance(5)
    assert await waited is True

    retry = tasks.spawn(tasks.wait_until(clock, clock.now() + 120))  # tracked: drain waits
    assert retry is not None
    await clock.sleeping()
    await asyncio.wait_for(tasks.drain(), 1)  # not the retry's 120 s, nor the drain's grace
    assert retry.result() is False
    assert await tasks.wait_until(clock, clock.now() + 1) is False
