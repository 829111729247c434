"""`python -m bench.hook_start` runs end to end and prints its rows, so the bench cannot
rot unnoticed (its figures at this size mean nothing and are not judged)."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

# Real hook processes: .ci/run runs it, the default suite leaves it out.
pytestmark = pytest.mark.bench

ROOT = Path(__file__).resolve().parents[2]


async def test_the_hook_start_bench_reports_the_hook_against_python_c_pass() -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bench.hook_start",
        "--runs",
        "2",
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await proc.communicate()
    assert proc.returncode == 0
    rows = [" ".join(line.split()[:4]) for line in out.decode().splitlines()]
    assert rows == [
        "hook start to first",
        "python -c pass start",
        "hook over python -c",
        "hook CPU time, whole",
        "hook CPU time to",
        "python -c pass CPU",
    ]
