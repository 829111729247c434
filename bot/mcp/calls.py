"""Blocking MCP calls in flight, keyed so a call re-issued after a dropped stream re-attaches.

A call's key is its session's agent id and a digest of its arguments. While an ask with that
key is pending, the same call again (a client that lost the response stream and retries)
joins it instead of posting a second question; once it settles the key is free, so asking
the same thing later asks again. Each ask runs in a task of its own, outside any request's
cancel scope, so withdrawing it finishes even while the request that started it is cancelled.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass

from provider import AbortController, AbortSignal
from provider.tool import ToolResult

log = logging.getLogger(__name__)

Start = Callable[[AbortSignal], Coroutine[object, object, ToolResult]]


def call_key(agent_id: str, arguments: Mapping[str, object]) -> str:
    """`<agent id>/<sha256 of the canonical arguments JSON, 16 hex>`."""
    canonical = json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return f"{agent_id}/{hashlib.sha256(canonical.encode()).hexdigest()[:16]}"


@dataclass(eq=False)
class SharedCall:
    """One pending ask and the abort that withdraws it; every attached request awaits `task`."""

    key: str
    controller: AbortController
    task: asyncio.Task[ToolResult]
    attached: int = 1

    def withdraw(self, reason: str) -> None:
        """Abort the ask: the provider withdraws it and the task ends with `ASK_ABORTED`."""
        self.controller.abort(reason)


class SharedCalls:
    """The calls in flight, by key; drained (withdrawn) at shutdown."""

    def __init__(self) -> None:
        self._calls: dict[str, SharedCall] = {}

    def join(self, key: str, start: Start) -> SharedCall:
        """The pending call under `key`, or a new one running `start(signal)`."""
        call = self._calls.get(key)
        if call is not None and not call.task.done():
            call.attached += 1
            return call
        controller = AbortController()
        task = asyncio.get_running_loop().create_task(start(controller.signal), name=f"ask {key}")
        call = SharedCall(key, controller, task)
        self._calls[key] = call
        task.add_done_callback(lambda _: self._settled(call))
        return call

    def _settled(self, call: SharedCall) -> None:
        if self._calls.get(call.key) is call:
            del self._calls[call.key]
        if not call.task.cancelled() and call.task.exception() is not None:
            log.error("ask %s failed", call.key, exc_info=call.task.exception())

    def __len__(self) -> int:
        return len(self._calls)

    async def close(self, reason: str) -> None:
        """Withdraw every call in flight and wait until each has ended."""
        calls = list(self._calls.values())
        for call in calls:
            call.withdraw(reason)
        await asyncio.gather(*(call.task for call in calls), return_exceptions=True)
