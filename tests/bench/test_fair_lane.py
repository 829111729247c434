"""`python -m bench.fair_lane --quick` runs end to end, so the bench cannot rot unnoticed
(its figures at these sizes mean nothing and are not judged)."""

from __future__ import annotations

import asyncio
import os
import re
import sys
from pathlib import Path

import pytest

# Real processes and a service: .ci/run runs it, the default suite leaves it out.
pytestmark = pytest.mark.bench

ROOT = Path(__file__).resolve().parents[2]
NUMBER = re.compile(r"\d+\.\d+")


async def test_the_quick_fair_lane_run_reports_the_lane_and_create_to_posted() -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bench.fair_lane",
        "--quick",
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), timeout=120)
    assert proc.returncode == 0, err.decode()
    lines = out.decode().splitlines()
    rows = [line for line in lines if line.startswith("| this checkout |")]
    assert [row.split(" | ")[1] for row in rows] == ["1", "50"]
    assert all(len(NUMBER.findall(row)) == 3 for row in rows), rows
    timed = [line for line in lines if "this checkout" in line and "median" in line]
    assert len(timed) == 1
    assert len(NUMBER.findall(timed[0])) == 2, timed
