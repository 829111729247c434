"""Issue 13's table in one run: every row measured against its baseline, with its goal.

- posting: a burst of asks through the relay into one channel, the emulator enforcing Slack's
  posting rate (bench.posting_rate); baseline: N ÷ the rate allowed.
- click → waiting agent answered on three paths, each beside bare Bolt resolving a future a
  coroutine awaits, and beside our in-memory baseline of the fastest peer's design (post,
  wait on a future, answer: nothing stored), all five interleaved round by round; ask →
  posted on the same rounds, against the peer (bench.click_latency).
- memory per pending ask, per held wait (an ask watched over the one WebSocket a
  `RelayProvider` holds) and per held `GET ?wait=` long-poll of `python -m bot`; baselines:
  the idle service, and the service with the asks pending but nobody waiting
  (bench.watch_memory);
  the two together beside the in-memory peer's pending ask, a held request and a future
  (bench.peer_memory).
- event-loop time of one thread reply with many asks pending beside the same with 10
  (bench.reply_cost).

    python -m bench.keep_up [--quick] [--rounds 300] [--repeats 3] [--asks 10000]

It prints a Markdown table (the README's figures are this output; click rows give each
repeat's figures) and how long each part took. `--quick` is a smoke test: a few rounds and small counts, figures
meaningless.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import statistics
import time
from dataclasses import dataclass

from slack_emulator import PostingRate

from . import click_latency, peer_memory, posting_rate, reply_cost, watch_memory
from .stats import Summary

# Slack's shape, sped up so the burst takes seconds: Slack's real rate is ~1 per second per
# channel (then N asks take about N seconds).
RATE = PostingRate(per_second=20.0, burst=3)
CLICK_GOALS = {"in-process": 1.1, "python -m bot": 1.3, "relay": 1.5}
PEER = click_latency.PEER
# The relay as fast as the fastest in-memory peer (issue 28): its time over the peer's.
PEER_GOAL = 1.0
PER_ASK_GOAL_KIB = 3.0
PER_POLL_GOAL_KIB = 8.0
REPLY_GOAL_MS = 0.2


@dataclass(frozen=True)
class Sizes:
    """How much to measure."""

    posting_asks: int
    rounds: int
    warm_up: int
    repeats: int
    pending: int
    reply_rounds: int


FULL = Sizes(posting_asks=100, rounds=300, warm_up=20, repeats=3, pending=10_000, reply_rounds=100)
QUICK = Sizes(posting_asks=20, rounds=5, warm_up=2, repeats=1, pending=200, reply_rounds=5)


@dataclass(frozen=True)
class Row:
    """One line of the table."""

    what: str
    measured: str
    baseline: str
    ratio: str
    goal: str
    met: bool | None = None  # None: a figure beside the others, with no goal of its own

    def __str__(self) -> str:
        met = "—" if self.met is None else "yes" if self.met else "**no**"
        return (
            f"| {self.what} | {self.measured} | {self.baseline} | {self.ratio} | {self.goal} "
            f"| {met} |"
        )


HEADER = "| what | measured | baseline | ratio | goal | met |\n|---|---|---|---|---|---|"


def posting_rows(result: posting_rate.Posting) -> list[Row]:
    """Failures, order, and time against what the rate allows."""
    rate = f"{result.rate.per_second:g}/s, burst {result.rate.burst}"
    return [
        Row(
            f"{result.asks} asks at once, one channel ({rate}): failed",
            str(result.failed),
            "—",
            "—",
            "0",
            result.failed == 0,
        ),
        Row("same: posted in order", str(result.in_order), "—", "—", "True", result.in_order),
        Row(
            "same: time to post all",
            f"{result.seconds:.2f} s",
            f"{result.allowed_seconds:.2f} s allowed",
            f"{result.ratio:.3f}x",
            "≤ 1.10x",
            result.ratio <= 1.10,
        ),
    ]


def _per_run(
    per_run: list[dict[str, tuple[Summary, float, float]]], path: str, base: str
) -> tuple[str, str, str, list[float]]:
    """A path's figures per repeat, its base's, the ratios, and the median ratios."""
    measured = ", ".join(
        f"{figures[path][0].median_ms:.2f} ({figures[path][0].p95_ms:.2f}) ms"
        for figures in per_run
    )
    baseline = ", ".join(
        f"{figures[base][0].median_ms:.2f} ({figures[base][0].p95_ms:.2f}) ms"
        for figures in per_run
    )
    ratio = ", ".join(f"{figures[path][1]:.2f}x ({figures[path][2]:.2f}x)" for figures in per_run)
    return measured, baseline, ratio, [figures[path][1] for figures in per_run]


def click_rows(runs: list[click_latency.Samples]) -> list[Row]:
    """Each path's median (p95) over bare's, then over the in-memory peer's, per repeat; a
    goal is met if the middle repeat meets it."""
    rows = []
    per_run = [click_latency.ratios(run.answers) for run in runs]
    for path, goal in CLICK_GOALS.items():
        measured, baseline, ratio, medians = _per_run(per_run, path, click_latency.BARE)
        rows.append(
            Row(
                f"click → waiting agent answered, {path}",
                measured,
                f"bare Bolt {baseline}",
                ratio,
                f"≤ {goal}x",
                statistics.median(medians) <= goal,
            )
        )
    measured, baseline, ratio, _ = _per_run(per_run, PEER, click_latency.BARE)
    rows.append(
        Row(f"click → answered, {PEER} (baseline)", measured, f"bare Bolt {baseline}", ratio, "—")
    )
    per_peer = [click_latency.ratios(run.answers, PEER) for run in runs]
    measured, baseline, ratio, medians = _per_run(per_peer, "relay", PEER)
    rows.append(
        Row(
            "click → answered, relay against the peer",
            measured,
            f"{PEER} {baseline}",
            ratio,
            f"≤ {PEER_GOAL}x",
            statistics.median(medians) <= PEER_GOAL,
        )
    )
    posts = [click_latency.ratios(run.posts, PEER) for run in runs]
    for path in CLICK_GOALS:
        measured, baseline, ratio, medians = _per_run(posts, path, PEER)
        wanted = f"≤ {PEER_GOAL}x" if path == "relay" else "—"
        met = statistics.median(medians) <= PEER_GOAL if path == "relay" else None
        rows.append(
            Row(f"ask → posted, {path}", measured, f"{PEER} {baseline}", ratio, wanted, met)
        )
    return rows


def memory_rows(memory: watch_memory.Memory, peer: peer_memory.PeerMemory) -> list[Row]:
    """Per pending ask over idle; per held wait (an ask watched over the one socket a
    `RelayProvider` holds) and per held GET long-poll, each over the asks pending with nobody
    waiting; ask and wait together against the in-memory peer's pending ask, which is its
    held wait too."""
    ours = memory.per_ask_kib + memory.per_watch_kib
    return [
        Row(
            f"memory per pending ask (python -m bot, {memory.asks} pending)",
            f"{memory.pending_mib:.1f} MiB: {memory.per_ask_kib:.2f} KiB/ask",
            f"idle {memory.idle_mib:.1f} MiB",
            "—",
            f"≤ {PER_ASK_GOAL_KIB:g} KiB",
            memory.per_ask_kib <= PER_ASK_GOAL_KIB,
        ),
        Row(
            f"memory per held wait ({memory.asks} asks watched over one WebSocket)",
            f"{memory.watched_mib:.1f} MiB: {memory.per_watch_kib:.2f} KiB/wait",
            f"asks pending, nobody waiting {memory.pending_mib:.1f} MiB",
            "—",
            f"≤ {PER_POLL_GOAL_KIB:g} KiB",
            memory.per_watch_kib <= PER_POLL_GOAL_KIB,
        ),
        Row(
            f"memory per held relay long-poll ({memory.polls} GET ?wait=60)",
            f"{memory.held_mib:.1f} MiB: {memory.per_poll_kib:.2f} KiB/poll",
            f"asks pending, nobody waiting {memory.pending_mib:.1f} MiB",
            "—",
            "—",
        ),
        Row(
            "pending ask with its held wait, memory against the peer",
            f"{ours:.2f} KiB",
            f"{PEER} {peer.per_ask_kib:.2f} KiB/ask ({peer.asks} held POST /ask)",
            f"{ours / peer.per_ask_kib:.2f}x",
            "—",
        ),
    ]


def reply_rows(cost: reply_cost.ReplyCost) -> list[Row]:
    """What the pending asks add to one reply's loop time."""
    added = cost.with_many.median_ms - cost.with_few.median_ms
    return [
        Row(
            f"event-loop time of one thread reply, {cost.many} pending",
            f"{cost.with_many.median_ms:.2f} ({cost.with_many.p95_ms:.2f}) ms",
            f"{cost.few} pending {cost.with_few.median_ms:.2f} ({cost.with_few.p95_ms:.2f}) ms",
            f"{cost.ratio:.2f}x, {added:+.3f} ms",
            f"added < {REPLY_GOAL_MS} ms",
            added < REPLY_GOAL_MS,
        )
    ]


async def main(sizes: Sizes) -> None:
    """Measure every row and print the table, and how long each part took."""
    started = last = time.monotonic()
    took: list[str] = []

    def lap(what: str) -> None:
        nonlocal last
        now = time.monotonic()
        took.append(f"{what} {now - last:.0f} s")
        last = now

    posting = await posting_rate.measure(sizes.posting_asks, RATE)
    lap("posting")
    runs = [await click_latency.measure(sizes.rounds, sizes.warm_up) for _ in range(sizes.repeats)]
    lap("click")
    memory = await watch_memory.measure(sizes.pending)
    peer = await peer_memory.measure(sizes.pending)
    lap("memory")
    reply = await reply_cost.measure(sizes.pending, sizes.reply_rounds)
    lap("reply")
    rows = posting_rows(posting) + click_rows(runs) + memory_rows(memory, peer) + reply_rows(reply)
    print(
        f"click: {sizes.rounds} interleaved rounds (after {sizes.warm_up} warm-up) x "
        f"{sizes.repeats} repeats, median (p95), ratios per repeat; posting at "
        f"{RATE.per_second:g}/s (Slack's real rate is ~1/s per channel: N asks take about "
        f"N seconds); reply: {sizes.reply_rounds} rounds"
    )
    print(HEADER)
    for row in rows:
        print(row)
    print(f"wall time: {time.monotonic() - started:.0f} s ({', '.join(took)})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="a smoke test: small and fast")
    parser.add_argument("--rounds", type=int, help="click rounds per repeat (default 300)")
    parser.add_argument("--repeats", type=int, help="click repeats (default 3)")
    parser.add_argument("--asks", type=int, help="pending asks for memory and reply rows")
    args = parser.parse_args()
    sizes = QUICK if args.quick else FULL
    sizes = Sizes(
        posting_asks=sizes.posting_asks,
        rounds=args.rounds or sizes.rounds,
        warm_up=sizes.warm_up,
        repeats=args.repeats or sizes.repeats,
        pending=args.asks or sizes.pending,
        reply_rounds=sizes.reply_rounds,
    )
    # The paced posts' 429s are logged as warnings: expected here, not news.
    logging.basicConfig(level=logging.ERROR)
    asyncio.run(main(sizes))
