"""A test still running `REPORT_BEFORE_S` before its time limit prints where each of its
asyncio tasks waits.

Faulthandler (`faulthandler_timeout`) shows the threads, and a hung asyncio test is always
one thread idle in `select`: what is hung is a task, and only the tasks' stacks say which.
pytest-timeout then ends the test at its limit (`timeout` in pyproject.toml), so CI reports
the test by name instead of running out its time. A bench or slow test runs for minutes on
purpose: its limit is `MARKED_TIMEOUT_S`.
"""

from __future__ import annotations

import asyncio
import gc
import io
import os
import threading
from collections.abc import Generator
from typing import TextIO

import pytest

REPORT_BEFORE_S = 60.0
MARKED_TIMEOUT_S = 1200.0


class _HangReport:
    def __init__(self) -> None:
        # The stream as it was before capture: a worker killed by pytest-timeout loses
        # whatever its captured output held.
        self._out: TextIO = os.fdopen(os.dup(2), "w", encoding="utf-8", errors="replace")

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, object, object]:
        limit = _limit(item)
        if not limit:
            return (yield)  # no limit (`timeout = 0`): nothing ends it, nothing to report
        after = max(limit - REPORT_BEFORE_S, 0.0)
        timer = threading.Timer(after, self._report, args=(item.nodeid, after))
        timer.daemon = True
        timer.start()
        try:
            return (yield)
        finally:
            timer.cancel()

    def pytest_unconfigure(self) -> None:
        self._out.close()

    def _report(self, nodeid: str, after: float) -> None:
        # From the timer's thread while the loop's thread sleeps in `select`: the tasks
        # are found by the garbage collector (the loop is the test's, not this thread's).
        text = io.StringIO()
        text.write(f"\n{nodeid} still runs after {after:.0f} s; its asyncio tasks:\n")
        for task in [o for o in gc.get_objects() if isinstance(o, asyncio.Task)]:
            if not task.done():
                task.print_stack(limit=20, file=text)
        self._out.write(text.getvalue())
        self._out.flush()


def _limit(item: pytest.Item) -> float:
    """The test's time limit: its `timeout` mark, else the run's (pytest-timeout's rule)."""
    marked = item.get_closest_marker("timeout")
    if marked is not None and marked.args:
        return float(marked.args[0])
    return float(item.config.getini("timeout") or 0)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Give the bench and slow tests their longer limit (unless they set their own)."""
    for item in items:
        marked = item.get_closest_marker("bench") or item.get_closest_marker("slow")
        if marked and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(MARKED_TIMEOUT_S))


def pytest_configure(config: pytest.Config) -> None:
    """Register the report (as a plugin object: it keeps the stream it writes to)."""
    config.pluginmanager.register(_HangReport(), "hang_report")
