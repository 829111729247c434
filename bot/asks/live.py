"""The asks this process holds while they are open, found by id or by a reply's thread.

An ask is held from its creation (or from being taken in hand from the store: after a
restart, or made by another replica) until it ends, here or elsewhere; then its waiters get
the ended record and nothing here keeps it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Collection
from dataclasses import dataclass

from bot.asks.reply_index import ReplyIndex
from bot.asks.waiters import Waiters
from bot.render import AskLayout, lay_out
from bot.render.layout import takes_replies
from bot.store import AskRecord


@dataclass(eq=False, slots=True)
class LiveAsk:
    """A pending ask in memory: its record and its layout (who waits for it waits in
    `Waiters`, made only then). Slotted: thousands may be pending at once."""

    record: AskRecord
    layout: AskLayout
    # Claimed (`Asks.claim`): one handler has the right to settle it; nothing else saves it.
    claimed: bool = False
    # Taken back from the store after a restart: a part may be posted but not recorded.
    recovering: bool = False
    # Its post waits in its channel's lane (`Posting.post_soon`), holding no task.
    in_lane: bool = False
    _posting: asyncio.Lock | None = None
    _posting_users: int = 0  # holding or awaiting `_posting`

    @contextlib.asynccontextmanager
    async def posting(self) -> AsyncIterator[None]:
        """Held while parts are posted, so a settlement waits for every message it must
        update. Its lock exists only while someone holds or awaits it: an ask in its lane,
        or posted and waiting for people, keeps none (88 bytes each)."""
        if self._posting is None:
            self._posting = asyncio.Lock()
        lock = self._posting
        self._posting_users += 1
        try:
            async with lock:
                yield
        finally:
            self._posting_users -= 1
            if not self._posting_users:
                self._posting = None

    @property
    def being_posted(self) -> bool:
        """Whether someone holds `posting` now."""
        return self._posting is not None and self._posting.locked()

    @property
    def fully_posted(self) -> bool:
        """Whether every part of it is in Slack (and recorded)."""
        return len(self.record.message_ts) == len(self.layout.parts)


class LiveAsks:
    """The open asks this process holds, and the threads a reply to them may come in."""

    def __init__(
        self, read: Callable[[str], Awaitable[AskRecord | None]], waiters: Waiters
    ) -> None:
        self._read = read
        self._waiters = waiters
        self._live: dict[str, LiveAsk] = {}
        # How many of them each agent session has: the relay's pending cap reads it.
        self._by_agent: Counter[str | None] = Counter()
        # What a thread reply looks up, so it never scans every ask.
        self._replies = ReplyIndex()

    def live(self, ask_id: str) -> LiveAsk | None:
        """The pending ask with this id, if it is still open."""
        return self._live.get(ask_id)

    def holds(self, live: LiveAsk) -> bool:
        """Whether `live` is still the copy held (not ended, not replaced)."""
        return self._live.get(live.record.id) is live

    def all(self) -> list[LiveAsk]:
        """Every ask held now (a copy of the list)."""
        return list(self._live.values())

    def pending_of(self, agents: Collection[str]) -> int:
        """How many asks of these agent sessions are held now."""
        return sum(self._by_agent[agent] for agent in agents)

    async def held(self, ask_id: str) -> LiveAsk | None:
        """The open ask with this id: the live copy, or one another replica made or posted
        (taken in hand from the store). None once it has ended."""
        live = self._live.get(ask_id)
        if live is not None:
            return live
        record = await self._read(ask_id)
        return self.take(record) if record is not None else None

    def add(self, record: AskRecord, layout: AskLayout) -> LiveAsk:
        """Hold an ask this process just created (its record evolved: a compact copy)."""
        live = LiveAsk(record.evolve(), layout)
        self._hold(live)
        return live

    def take(self, record: AskRecord) -> LiveAsk | None:
        """Hold a stored ask (recovering: a part may be posted but not recorded), unless it
        is held already; the copy held (None: it has ended and none is)."""
        live = self._live.get(record.id)
        if live is None and not record.settled:
            live = LiveAsk(record.evolve(), lay_out(record.request), recovering=True)
            self._hold(live)
        return live

    def _hold(self, live: LiveAsk) -> None:
        replaced = self._live.get(live.record.id)
        if replaced is not None:
            self._by_agent[replaced.record.agent_id] -= 1
        self._live[live.record.id] = live
        self._by_agent[live.record.agent_id] += 1
        self.file_for_replies(live)

    async def refresh(self, live: LiveAsk) -> bool:
        """Read the ask again (another replica wrote it); False if it has ended, and then
        it is dropped here and its waiters get the record."""
        record = await self._read(live.record.id)
        if record is None or record.settled:
            self.ended(live, record or live.record)
            return False
        live.record = record
        return True

    def ended(self, live: LiveAsk, record: AskRecord) -> None:
        """`live` has ended (here or elsewhere, as `record` says): stop holding it."""
        live.record = record
        if self._live.get(record.id) is live:
            del self._live[record.id]
            self._by_agent[record.agent_id] -= 1
            if not self._by_agent[record.agent_id]:
                del self._by_agent[record.agent_id]
        self._replies.remove(record.id)
        if record.settled:
            self._waiters.settled(record)  # handed over: no waiter reads it again
        else:
            self._waiters.changed(record.id)  # gone from the store: they read and see

    def file_for_replies(self, live: LiveAsk) -> None:
        """File a lone question a reply may answer (`takes_replies`) under the threads
        a reply to it may come in (its session's thread, its own first message), once it is
        there."""
        record, questions = live.record, live.layout.questions
        if (
            record.channel is None
            or len(questions) != 1
            or not takes_replies(questions[0].question)
        ):
            return
        for thread_ts in (record.thread_ts, *record.message_ts[:1]):
            if thread_ts is not None:
                self._replies.file(record.id, record.created_at, record.channel, thread_ts)

    def reply_target(self, channel: str, thread_ts: str) -> LiveAsk | None:
        """The open lone question a reply in this thread answers (the newest there)."""
        ask_id = self._replies.newest(channel, thread_ts)
        return self._live.get(ask_id) if ask_id is not None else None
