"""How soon the Claude Code hook reaches the relay: process start → first byte received.

Claude Code runs `python -m bot hook claude-code` before every gated tool call, with a person
waiting, so everything the hook does before its first request is on their path. A tiny TCP
server on loopback stands in for the relay: it timestamps the first byte of each connection
and answers 401, so the hook ends at once (denied; nobody is asked). Each round starts the real
hook with a Bash PreToolUse event on stdin, then `python -c pass` (the interpreter's own start
and exit, the floor), interleaved so both see the same machine. The CPU time each process used
(user + system, its whole run) is printed too, and the hook's CPU time up to the moment its
first byte arrived (Linux: read from /proc/<pid>/schedstat then): on a busy machine these move
far less than the wall-clock figures, which wait for a core.

    python -m bench.hook_start [--runs 20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from .stats import percentile

ROOT = Path(__file__).resolve().parents[1]
EVENT = {
    "session_id": "bench-session",
    "cwd": str(ROOT),
    "hook_event_name": "PreToolUse",
    "tool_name": "Bash",
    "tool_input": {"command": "git push", "description": "Push the branch"},
}
UNAUTHORIZED = json.dumps(
    {"error": {"name": "RelayError", "code": "UNAUTHORIZED", "message": "bench"}}
).encode()
RESPONSE = (
    b"HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\n"
    b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(UNAUTHORIZED), UNAUTHORIZED)
)


@dataclass(frozen=True)
class Arrival:
    """A connection's first byte: when (perf_counter), and the CPU seconds the sending hook
    had used by then (None where /proc/<pid>/schedstat cannot be read)."""

    at: float
    cpu: float | None


@dataclass
class FirstBytes:
    """The stand-in relay: when each connection's first byte arrived, and how much CPU the
    hook (`sender`, the process id of the hook running now) had used by then."""

    arrivals: asyncio.Queue[Arrival] = field(default_factory=asyncio.Queue)
    sender: int | None = None

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Timestamp the first byte, read the request's head, answer 401 and close."""
        first = await reader.read(1)
        if first:
            at = time.perf_counter()
            self.arrivals.put_nowait(Arrival(at, cpu_of(self.sender)))
            await reader.readuntil(b"\r\n\r\n")  # the body, if any, is left unread
            writer.write(RESPONSE)
            await writer.drain()
        writer.close()


@dataclass(frozen=True)
class Spread:
    """Median and 90th percentile of a sample, in milliseconds."""

    n: int
    median_ms: float
    p90_ms: float

    def __str__(self) -> str:
        return f"median {self.median_ms:7.1f} ms   p90 {self.p90_ms:7.1f} ms   (n={self.n})"


def spread(seconds: list[float]) -> Spread:
    """Summarise samples given in seconds (p90: twenty runs make p95 their slowest)."""
    median = statistics.median(seconds)
    return Spread(len(seconds), median * 1000, percentile(seconds, 0.9) * 1000)


def environment(url: str) -> dict[str, str]:
    """What Claude Code's environment gives the hook: its relay settings, little else."""
    return {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(ROOT),
        "SLACK_QUESTIONS_RELAY_URL": url,
        "SLACK_QUESTIONS_RELAY_TOKEN": "bench-token-0000000000",
    }


def cpu_of(pid: int | None) -> float | None:
    """CPU seconds process `pid` has run so far (Linux: the first field of its schedstat,
    in nanoseconds; the hook runs one thread), or None."""
    if pid is None:
        return None
    try:
        return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0]) / 1e9
    except (OSError, ValueError, IndexError):
        return None


def cpu_of_children() -> float:
    """CPU seconds (user + system) used so far by this process's waited-for children."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


async def hook_once(url: str, relay: FirstBytes) -> tuple[float, float, float | None]:
    """Seconds from starting the hook to the relay's first byte (the hook must then deny),
    the CPU seconds its whole run used, and the CPU seconds it had used by that byte."""
    cpu = cpu_of_children()
    started = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "hook",
        "claude-code",
        cwd=ROOT,
        env=environment(url),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    relay.sender = proc.pid
    out, err = await proc.communicate(json.dumps(EVENT).encode())
    decision = json.loads(out)["hookSpecificOutput"]["permissionDecision"]
    assert (proc.returncode, decision) == (0, "deny"), err.decode()
    arrived = relay.arrivals.get_nowait()  # the hook answered: its request came first
    return arrived.at - started, cpu_of_children() - cpu, arrived.cpu


async def pass_once() -> tuple[float, float]:
    """Seconds from starting `python -c pass` to its exit, and the CPU seconds it used."""
    cpu = cpu_of_children()
    started = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(sys.executable, "-c", "pass", cwd=ROOT)
    await proc.wait()
    return time.perf_counter() - started, cpu_of_children() - cpu


async def main(runs: int) -> None:
    """Interleave `runs` hook starts with `runs` bare interpreter starts; print both."""
    relay = FirstBytes()
    server = await asyncio.start_server(relay.serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    hook: list[tuple[float, float, float | None]] = []
    bare: list[tuple[float, float]] = []
    try:
        await hook_once(url, relay)  # warm the file cache (.pyc files written once)
        await pass_once()
        for _ in range(runs):
            hook.append(await hook_once(url, relay))
            bare.append(await pass_once())
    finally:
        server.close()
        await server.wait_closed()
    hook_s, bare_s = spread([w for w, _, _ in hook]), spread([w for w, _ in bare])
    print(f"hook start to first relay byte   {hook_s}")
    print(f"python -c pass start to exit     {bare_s}")
    print(f"hook over python -c pass         {hook_s.median_ms - bare_s.median_ms:+7.1f} ms median")
    print(f"hook CPU time, whole run         {spread([c for _, c, _ in hook])}")
    to_first = [c for _, _, c in hook if c is not None]
    if to_first:
        print(f"hook CPU time to first byte      {spread(to_first)}")
    print(f"python -c pass CPU time          {spread([c for _, c in bare])}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    asyncio.run(main(parser.parse_args().runs))
