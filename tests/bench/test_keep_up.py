"""`python -m bench.keep_up --quick` runs every row of issue 13's table end to end, so the
bench cannot rot unnoticed (its figures at these sizes mean nothing and are not judged)."""

from __future__ import annotations

import asyncio
import os
import re
import sys
from pathlib import Path

import pytest

# A minute and more of real processes: .ci/run runs it, the default suite leaves it out.
pytestmark = pytest.mark.bench

ROOT = Path(__file__).resolve().parents[2]
ROWS = [
    "asks at once, one channel",
    "same: posted in order",
    "same: time to post all",
    "click → waiting agent answered, in-process",
    "click → waiting agent answered, python -m bot",
    "click → waiting agent answered, relay",
    "click → answered, in-memory peer (baseline)",
    "click → answered, relay against the peer",
    "ask → posted, in-process",
    "ask → posted, python -m bot",
    "ask → posted, relay",
    "memory per pending ask",
    "memory per held wait",
    "memory per held relay long-poll",
    "pending ask with its held wait, memory against the peer",
    "event-loop time of one thread reply",
]
NUMBER = re.compile(r"\d+\.\d+")


async def test_the_quick_keep_up_run_reports_every_row_with_figures() -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bench.keep_up",
        "--quick",
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), timeout=180)
    assert proc.returncode == 0, err.decode()
    table = [line for line in out.decode().splitlines() if line.startswith("| ")][1:]
    assert [next(what for what in ROWS if what in line) for line in table] == ROWS
    cells = [[cell.strip() for cell in line.strip("| ").split(" | ")] for line in table]
    assert all(len(row) == 6 and row[5] in ("yes", "**no**", "—") for row in cells), table
    failed, in_order, *timed = cells
    assert failed[1].isdigit()
    assert in_order[1] in ("True", "False")
    # Every other row: a measured figure, and a ratio or difference beside its baseline.
    assert all(NUMBER.search(row[1]) and NUMBER.search(row[2]) for row in timed), table
    assert all(NUMBER.search(row[3]) for row in timed if row[3] != "—"), table
