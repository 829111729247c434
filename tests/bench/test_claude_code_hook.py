"""`python -m bench.claude_code_hook` runs end to end with the real Claude Code and prints its
rows, so the bench cannot rot unnoticed (its figures at this size mean nothing)."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from ..clients.claude_code import claude_or_skip

# Real Claude Code, hook and service processes: .ci/run runs it, the default suite leaves it out.
pytestmark = pytest.mark.bench

ROOT = Path(__file__).resolve().parents[2]


async def test_the_claude_code_hook_bench_reports_posting_and_continuing() -> None:
    claude_or_skip()
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bench.claude_code_hook",
        "--rounds",
        "2",
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await proc.communicate()
    assert proc.returncode == 0
    rows = [" ".join(line.split()[:4]) for line in out.decode().splitlines()]
    assert rows == ["hook started to question", "click to Claude Code"]
