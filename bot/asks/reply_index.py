"""Which open question a thread reply answers, found by its thread: never a scan of every ask.

A reply in a thread answers the newest open lone text question there (an ask posted in the
thread, or a top-level ask whose own thread it is). Asks are filed under each thread a reply
to them may come in, when they get there, and taken out when they settle, so a reply looks at
the asks of its own thread and nothing else.
"""

from __future__ import annotations

from bot.store import ThreadKey


class ReplyIndex:
    """Open lone text questions by the threads a reply to them may come in."""

    def __init__(self) -> None:
        # thread → {ask id: created_at}; an ask → the threads it is filed under.
        self._by_thread: dict[ThreadKey, dict[str, float]] = {}
        self._threads_of: dict[str, list[ThreadKey]] = {}

    def file(self, ask_id: str, created_at: float, channel: str, thread_ts: str) -> None:
        """Let a reply in `channel`'s thread `thread_ts` answer the ask (idempotent)."""
        key = (channel, thread_ts)
        threads = self._threads_of.setdefault(ask_id, [])
        if key not in threads:
            threads.append(key)
            self._by_thread.setdefault(key, {})[ask_id] = created_at

    def remove(self, ask_id: str) -> None:
        """The ask settled: no reply answers it any more."""
        for key in self._threads_of.pop(ask_id, ()):
            asks = self._by_thread[key]
            del asks[ask_id]
            if not asks:
                del self._by_thread[key]

    def candidates(self, channel: str, thread_ts: str) -> dict[str, float]:
        """The asks a reply in this thread may answer (ask id → created_at); a copy."""
        return dict(self._by_thread.get((channel, thread_ts), {}))

    def newest(self, channel: str, thread_ts: str) -> str | None:
        """The ask a reply in this thread answers: the newest filed there."""
        asks = self._by_thread.get((channel, thread_ts))
        return max(asks, key=asks.__getitem__) if asks else None
