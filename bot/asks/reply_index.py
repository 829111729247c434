"""Which open question a thread reply answers, found by its thread: never a scan of every ask.

A reply in a thread answers the newest open lone text question there (an ask posted in the
thread, or a top-level ask whose own thread it is). Asks are filed under each thread a reply
to them may come in, when they get there, and taken out when they settle, so a reply looks at
the asks of its own thread and nothing else.
"""

from __future__ import annotations

from bot.store import ThreadKey

# The asks filed under one thread: the one ask alone (every top-level ask's own thread), as
# (ask id, created_at), 0.13 KiB less per pending ask than a dict; a dict once there are more.
_Filed = tuple[str, float] | dict[str, float]


class ReplyIndex:
    """Open lone text questions by the threads a reply to them may come in."""

    def __init__(self) -> None:
        # thread → the asks filed there; an ask → the threads it is filed under (one or
        # two: a tuple, 40 bytes less per pending ask than a list).
        self._by_thread: dict[ThreadKey, _Filed] = {}
        self._threads_of: dict[str, tuple[ThreadKey, ...]] = {}

    def file(self, ask_id: str, created_at: float, channel: str, thread_ts: str) -> None:
        """Let a reply in `channel`'s thread `thread_ts` answer the ask (idempotent)."""
        key = (channel, thread_ts)
        threads = self._threads_of.get(ask_id, ())
        if key in threads:
            return
        self._threads_of[ask_id] = (*threads, key)
        filed = self._by_thread.get(key)
        if filed is None:
            self._by_thread[key] = (ask_id, created_at)
        elif isinstance(filed, tuple):
            self._by_thread[key] = {filed[0]: filed[1], ask_id: created_at}
        else:
            filed[ask_id] = created_at

    def remove(self, ask_id: str) -> None:
        """The ask settled: no reply answers it any more."""
        for key in self._threads_of.pop(ask_id, ()):
            filed = self._by_thread[key]
            if isinstance(filed, tuple):
                del self._by_thread[key]
                continue
            del filed[ask_id]
            if len(filed) == 1:
                self._by_thread[key] = next(iter(filed.items()))

    def candidates(self, channel: str, thread_ts: str) -> dict[str, float]:
        """The asks a reply in this thread may answer (ask id → created_at); a copy."""
        filed = self._by_thread.get((channel, thread_ts))
        if isinstance(filed, tuple):
            return {filed[0]: filed[1]}
        return dict(filed or {})

    def newest(self, channel: str, thread_ts: str) -> str | None:
        """The ask a reply in this thread answers: the newest filed there."""
        filed = self._by_thread.get((channel, thread_ts))
        if isinstance(filed, tuple):
            return filed[0]
        return max(filed, key=filed.__getitem__) if filed else None
