"""`python -m bench.credential_check` runs end to end and prints every row, so the bench
cannot rot unnoticed (its figures at this size mean nothing and are not judged)."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

# Real service processes: .ci/run runs it, the default suite leaves it out.
pytestmark = pytest.mark.bench

ROOT = Path(__file__).resolve().parents[2]


async def test_the_credential_check_bench_reports_create_and_get_for_both_tokens() -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bench.credential_check",
        "--rounds",
        "3",
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await proc.communicate()
    assert proc.returncode == 0
    rows = [" ".join(line.split()[:3]) for line in out.decode().splitlines()]
    assert rows == [
        "create admin token",
        "get admin token",
        "create agent credential",
        "get agent credential",
    ]
