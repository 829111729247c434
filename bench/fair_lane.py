"""The fair channel lane's cost: queueing, dropping and taking turns, and create → posted.

The lane takes asks round-robin across agents (bot/slack/pacing.py, round_robin.py). What
that costs is measured by `bench/fair_lane_worker.py`, run in this checkout and, with
`--against DIR`, in another (the code before the change), interleaved run by run so both
see the same machine state:
- per queued ask, with `--queued` (10,000) asks waiting in one channel over 1 and 50 agents:
  the cost to queue it, to drop it (an ask withdrawn while queued), and to take its turn
  (grant, start its task, its call on the turn: a call that does nothing, so the lane's own
  cost is what is timed);
- create → posted: a relay create until the emulator took the ask's post, one ask at a time
  (`python -m bot` in process, SQLite store), the lane idle.
The click path's share of the lane (closing a decided ask's buttons, `Turn.CLOSE`) is in
`python -m bench.click_latency --against DIR`.

    python -m bench.fair_lane [--repeats 5] [--queued 10000] [--asks 200] [--against DIR]
    [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
from pathlib import Path
from typing import Any

from .stats import summarise

ROOT = Path(__file__).resolve().parents[1]
WORKER = Path(__file__).with_name("fair_lane_worker.py")
HERE = "this checkout"
AGENTS = (1, 50)
LANE_FIGURES = (("queue_us", "queue"), ("drop_us", "drop"), ("turn_us", "turn"))


async def run_worker(checkout: Path, queued: int, asks: int) -> dict[str, Any]:
    """One worker run with `checkout`'s `bot` (its own figures, as JSON)."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        str(WORKER),
        "--queued",
        str(queued),
        "--agents",
        *map(str, AGENTS),
        "--asks",
        str(asks),
        cwd=checkout,
        env={**os.environ, "PYTHONPATH": str(checkout)},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await proc.communicate()
    if proc.returncode != 0:
        raise RuntimeError(f"the worker in {checkout} failed:\n{err.decode()}")
    figures: dict[str, Any] = json.loads(out.decode().splitlines()[-1])
    return figures


async def main(repeats: int, queued: int, asks: int, against: Path | None) -> None:
    """Run the worker `repeats` times per checkout, interleaved, and print the figures."""
    checkouts = {HERE: ROOT, **({f"baseline ({against})": against} if against else {})}
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in checkouts}
    for _ in range(repeats):
        for name, checkout in checkouts.items():
            runs[name].append(await run_worker(checkout, queued, asks))
    print(f"{queued} asks queued in one channel; medians of {repeats} run(s) per checkout")
    print("| checkout | agents | queue (µs/ask) | drop (µs/ask) | turn (µs/ask) |")
    print("|---|---|---|---|---|")
    for name, results in runs.items():
        for agents in AGENTS:
            lane = [result[f"lane, {agents} agent(s)"] for result in results]
            cells = [f"{statistics.median(r[key] for r in lane):.2f}" for key, _ in LANE_FIGURES]
            print(f"| {name} | {agents} | " + " | ".join(cells) + " |")
    print(f"\ncreate → posted, one ask at a time ({asks} asks per run, every run pooled):")
    for name, results in runs.items():
        samples = [s for result in results for s in result["create_to_posted_s"]]
        print(f"  {name:<40} {summarise(samples)}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--queued", type=int, default=10_000)
    parser.add_argument("--asks", type=int, default=200)
    parser.add_argument("--against", type=Path, help="another checkout, run beside this one")
    parser.add_argument("--quick", action="store_true", help="a smoke run: small sizes, once")
    args = parser.parse_args()
    if args.quick:
        args.repeats, args.queued, args.asks = 1, 2_000, 10
    asyncio.run(main(args.repeats, args.queued, args.asks, args.against))
