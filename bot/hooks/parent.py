"""Noticing that Claude Code went away while the hook waits for a person.

Claude Code runs each hook as `sh -c COMMAND` in a process group of its own, and does not
stop it when Claude Code itself dies (SIGKILL, a crash): the hook would keep its question open
in Slack up to `--wait`, and a person's answer would reach nobody. Measured with Claude Code
2.1.332 on Linux: the hook's parent stays the `sh` (so `os.getppid()` does not change), but
the hook's stdout — a socket whose other end only Claude Code holds (a pipe when another
program runs the hook) — reports a hangup (POLLHUP; POLLERR for a pipe) as soon as Claude Code
is gone. The event loop is told when that happens (a hangup wakes a reader): no polling.
"""

from __future__ import annotations

import asyncio
import select
from typing import Final

# What poll() reports for a socket or pipe whose reader is gone (asked for no events:
# these are reported anyway).
HUNG_UP: Final = select.POLLHUP | select.POLLERR


def hung_up(fd: int) -> bool:
    """Whether nobody reads `fd` any more (the other end of its socket or pipe is closed)."""
    poller = select.poll()
    poller.register(fd, 0)
    return any(events & HUNG_UP for _, events in poller.poll(0))


async def gone(stdout_fd: int) -> None:
    """Return once nobody reads the hook's stdout any more: whoever started it is gone.
    Never returns for a stdout that cannot tell (a file, a terminal)."""
    loop = asyncio.get_running_loop()
    hung = asyncio.Event()

    def check() -> None:
        if hung_up(stdout_fd):
            hung.set()
        else:  # readable for another reason (a terminal's input): it cannot tell us
            loop.remove_reader(stdout_fd)

    try:
        loop.add_reader(stdout_fd, check)  # a hangup (or error) wakes readers too
    except (OSError, ValueError):  # a regular file: epoll refuses it
        await asyncio.Future[None]()
    try:
        await hung.wait()
    finally:
        loop.remove_reader(stdout_fd)
