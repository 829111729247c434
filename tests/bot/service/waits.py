"""How many waits the service holds in `Waiters.wait`, awaited as they come and go."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from bot.service.server import Server
from bot.store import AskRecord


class WaitsHeld:
    """Counts the waits inside the service's `Waiters.wait` (patched in by `watch_waits`)."""

    def __init__(self) -> None:
        self.now = 0
        self._checks: list[tuple[Callable[[int], bool], asyncio.Future[None]]] = []

    async def until(self, holds: Callable[[int], bool], *, within: float = 10.0) -> None:
        """Return once `holds(self.now)`: re-checked each time a wait enters or leaves."""
        if holds(self.now):
            return
        reached: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._checks.append((holds, reached))
        try:
            async with asyncio.timeout(within):
                await reached
        finally:
            self._checks.remove((holds, reached))

    def changed(self, by: int) -> None:
        """A wait entered (+1) or left (-1)."""
        self.now += by
        for holds, reached in self._checks:
            if holds(self.now) and not reached.done():
                reached.set_result(None)


def watch_waits(server: Server, monkeypatch: pytest.MonkeyPatch) -> WaitsHeld:
    """From now on, every wait the service holds is counted."""
    counted = WaitsHeld()
    waiters = server.provider.asks.waiters
    wait_on = waiters.wait

    async def wait_counted(key: str, *, held: bool = False) -> AskRecord:
        counted.changed(+1)
        try:
            return await wait_on(key, held=held)
        finally:
            counted.changed(-1)

    monkeypatch.setattr(waiters, "wait", wait_counted)
    return counted
