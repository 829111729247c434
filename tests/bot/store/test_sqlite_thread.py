"""The store's own thread: jobs in order, one at a time, results and errors handed back."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from functools import partial

import pytest

from bot.store.sqlite_thread import StoreThread


@pytest.fixture
async def worker() -> AsyncIterator[StoreThread]:
    thread = StoreThread("test-store")
    yield thread
    thread.stop()


async def test_jobs_run_on_the_thread_in_the_order_they_were_submitted(
    worker: StoreThread,
) -> None:
    ran: list[tuple[int, str]] = []

    def job(n: int) -> int:
        ran.append((n, threading.current_thread().name))
        return n * 10

    results = await asyncio.gather(*(worker.submit(partial(job, n)) for n in range(5)))
    assert results == [0, 10, 20, 30, 40]
    assert ran == [(n, "test-store") for n in range(5)]


async def test_a_jobs_exception_reaches_its_caller(worker: StoreThread) -> None:
    def broken() -> None:
        raise ValueError("no such ask")

    with pytest.raises(ValueError, match="no such ask"):
        await worker.submit(broken)


async def test_a_job_whose_caller_was_cancelled_still_runs_to_the_end(
    worker: StoreThread,
) -> None:
    started, release = threading.Event(), threading.Event()
    finished: list[str] = []

    def slow() -> None:
        started.set()
        release.wait(5)
        finished.append("committed")

    waiting = worker.submit(slow)
    await asyncio.to_thread(started.wait, 5)
    waiting.cancel()
    release.set()
    assert await worker.submit(lambda: list(finished)) == ["committed"]


async def test_stopping_lets_the_jobs_already_submitted_finish(worker: StoreThread) -> None:
    last = worker.submit(lambda: "last")
    worker.stop()
    assert await last == "last"
    with pytest.raises(RuntimeError, match="stopped"):
        worker.submit(lambda: None)
