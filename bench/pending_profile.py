"""What a pending ask keeps in the service's memory, by traceback (tracemalloc).

`python -m bot` runs as a child process under tracemalloc, as `bench.pending_memory` runs it
(SQLite store, the relay, posted into one channel of the emulator, nobody answering). A
warm-up of asks is created first, so imports and caches filled once are in the first
snapshot; then N more, and the second snapshot is diffed against the first. Each snapshot is
taken after a full collection, on SIGUSR1. What is printed is live memory per pending ask
(bytes the N asks left allocated, divided by N), grouped by the allocation's traceback, each
shown by its frames in `bot/` and `provider/` and the allocating line. RSS also counts what
the allocator keeps after a burst; this counts only objects still alive.

    python -m bench.pending_profile [--asks 2000] [--warm 200] [--frames 40] [--top 30] [--depth 4] [--keep DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import aiohttp

from slack_emulator import SlackEmulator

from .click_latency import ROOT, free_port
from .latency_app import CHANNEL, SECRET, TOKEN
from .pending_memory import child_env, create_pending, rss_mib

# Runs the service under tracemalloc; SIGUSR1 collects and dumps a snapshot to the path in
# PROFILE_SNAPSHOT (written under a temporary name, then renamed: whole once it is there).
CHILD = """
import gc, os, signal, sys, tracemalloc
tracemalloc.start(int(os.environ["PROFILE_FRAMES"]))
def dump(*_):
    gc.collect()
    path = os.environ["PROFILE_SNAPSHOT"]
    tracemalloc.take_snapshot().dump(path + ".part")
    os.rename(path + ".part", path)
signal.signal(signal.SIGUSR1, dump)
from bot.cli import main
sys.exit(main([]))
"""

OURS = (f"{ROOT}/bot/", f"{ROOT}/provider/")


async def snapshot(pid: int, path: Path) -> tracemalloc.Snapshot:
    """Ask the child for a snapshot and load it once it is whole (in a thread: the
    emulator in this loop keeps answering meanwhile)."""
    os.kill(pid, signal.SIGUSR1)
    return await asyncio.to_thread(_load_when_written, path)


def _load_when_written(path: Path) -> tracemalloc.Snapshot:
    while not path.exists():  # the child says it is done only by renaming the file
        time.sleep(0.1)
    taken = tracemalloc.Snapshot.load(str(path))
    path.unlink()
    return taken


def where(trace: tracemalloc.Traceback, depth: int) -> str:
    """The allocating line and the `depth` frames above it, then the innermost frames of
    ours above those (innermost first)."""
    frames = list(reversed(trace))  # tracemalloc lists the oldest call first
    inner = frames[:depth]
    ours = [f for f in frames[depth:] if f.filename.startswith(OURS)][:4]
    root = str(ROOT) + "/"
    lines = [f"    at {f.filename.removeprefix(root)}:{f.lineno}" for f in inner]
    lines += [f"    in {f.filename.removeprefix(root)}:{f.lineno}" for f in ours]
    return "\n".join(lines)


async def profile(
    count: int, warm: int, frames: int, top: int, depth: int, keep: Path | None
) -> None:
    """Start the service under tracemalloc, diff its live memory over `count` pending asks."""
    emu = SlackEmulator(signing_secret=SECRET, bot_token=TOKEN)
    emu.workspace.add_channel(CHANNEL, name="bench", members=[emu.bot_user_id])
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        dump = Path(tmp) / "snapshot"
        async with emu:
            env = child_env(
                Path(tmp) / "asks.db",
                emu,
                port,
                PROFILE_FRAMES=str(frames),
                PROFILE_SNAPSHOT=str(dump),
            )
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-c", CHILD, env=env, stdout=asyncio.subprocess.PIPE
            )
            try:
                assert proc.stdout is not None
                await proc.stdout.readline()  # "listening on …"
                timeout = aiohttp.ClientTimeout(total=None)
                async with aiohttp.ClientSession(timeout=timeout) as http:
                    await create_pending(http, url, warm)
                    await emu.wait_for(
                        lambda: len(emu.calls_to("chat.postMessage")) >= warm,
                        within=600,
                        what="warm-up posts",
                    )
                    before, rss_before = await snapshot(proc.pid, dump), rss_mib(proc.pid)
                    await create_pending(http, url, count)
                    await emu.wait_for(
                        lambda: len(emu.calls_to("chat.postMessage")) >= warm + count,
                        within=600,
                        what="posts",
                    )
                    after, rss_after = await snapshot(proc.pid, dump), rss_mib(proc.pid)
            finally:
                proc.send_signal(signal.SIGTERM)
                await proc.wait()
    if keep is not None:  # for another look without another run
        before.dump(str(keep / "before.snapshot"))
        after.dump(str(keep / "after.snapshot"))
    stats = after.compare_to(before, "traceback")
    total = sum(s.size_diff for s in stats)
    print(
        f"{count} pending asks over {warm} warm: {total / count:.0f} B live per ask "
        f"(RSS under tracemalloc: {(rss_after - rss_before) * 1024 / count:.2f} KiB per ask)"
    )
    for stat in sorted(stats, key=lambda s: -s.size_diff)[:top]:
        print(
            f"{stat.size_diff / count:8.1f} B  {stat.count_diff / count:5.2f} blocks/ask\n"
            f"{where(stat.traceback, depth)}"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--asks", type=int, default=2000)
    parser.add_argument("--warm", type=int, default=200)
    parser.add_argument("--frames", type=int, default=40)
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--keep", type=Path, help="a folder to dump both snapshots in")
    args = parser.parse_args()
    asyncio.run(profile(args.asks, args.warm, args.frames, args.top, args.depth, args.keep))
