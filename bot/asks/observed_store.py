"""The service's store, observed: each ask it adds and each event it saves is told to the
`AskObserver`s right after it is durably written.

The event log is the one record of an ask's transitions (`Asks` writes every one through
`AskStore.add`, `save`, `advance` or `settle`), so what observers report — log lines, metrics, Slack's waiting
line — is what the store holds, never a transition that was rolled back.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Protocol

from bot.store import AskEvent, AskRecord, AskState, AskStore, InboxItem, Lease, ThreadRef

log = logging.getLogger(__name__)


class AskObserver(Protocol):
    """Told of each ask transition once it is stored. Must not raise and must not block:
    slow work (a Slack call) is spawned."""

    def created(self, record: AskRecord) -> None:
        """A new ask was stored."""
        ...

    def saved(self, record: AskRecord, event: AskEvent) -> None:
        """`record` was stored with `event`."""
        ...

    def recovered(self, records: Sequence[AskRecord]) -> None:
        """After a restart, these pending asks were taken back in hand."""
        ...


class ObservedStore:
    """An `AskStore` that tells `observers` of each ask it adds and each event it saves."""

    def __init__(self, inner: AskStore, observers: Sequence[AskObserver]) -> None:
        self.inner = inner
        self._observers = list(observers)

    async def add(self, record: AskRecord) -> tuple[AskRecord, bool]:
        """See `AskStore.add`; observers hear only of an ask this call created."""
        stored, created = await self.inner.add(record)
        if created:
            for observer in self._observers:
                _tell(observer.created, stored)
        return stored, created

    async def save(self, record: AskRecord, event: AskEvent) -> None:
        """See `AskStore.save`."""
        await self.inner.save(record, event)
        for observer in self._observers:
            _tell(observer.saved, record, event)

    def recovered(self, records: Sequence[AskRecord]) -> None:
        """Tell the observers which asks a restart took back."""
        for observer in self._observers:
            _tell(observer.recovered, records)

    async def get(self, ask_id: str) -> AskRecord | None:
        """See `AskStore.get`."""
        return await self.inner.get(ask_id)

    async def log(self, event: AskEvent) -> None:
        """See `AskStore.log`."""
        await self.inner.log(event)

    async def pending(self) -> list[AskRecord]:
        """See `AskStore.pending`."""
        return await self.inner.pending()

    async def recent(self, *, state: AskState | None = None, limit: int = 50) -> list[AskRecord]:
        """See `AskStore.recent`."""
        return await self.inner.recent(state=state, limit=limit)

    async def events(self, ask_id: str) -> list[AskEvent]:
        """See `AskStore.events`."""
        return await self.inner.events(ask_id)

    async def thread(self, session: str) -> ThreadRef | None:
        """See `AskStore.thread`."""
        return await self.inner.thread(session)

    async def set_thread(self, session: str, ref: ThreadRef) -> None:
        """See `AskStore.set_thread`."""
        await self.inner.set_thread(session, ref)

    async def close(self) -> None:
        """See `AskStore.close`."""
        await self.inner.close()

    async def settle(self, record: AskRecord, event: AskEvent) -> bool:
        """See `AskStore.settle`; observers hear only of the settlement that won."""
        settled = await self.inner.settle(record, event)
        if settled:
            for observer in self._observers:
                _tell(observer.saved, record, event)
        return settled

    async def claim_thread(self, session: str, ref: ThreadRef) -> ThreadRef:
        """See `AskStore.claim_thread`."""
        return await self.inner.claim_thread(session, ref)

    async def advance(self, record: AskRecord, event: AskEvent) -> bool:
        """See `AskStore.advance`; observers hear only of progress that was written."""
        advanced = await self.inner.advance(record, event)
        if advanced:
            for observer in self._observers:
                _tell(observer.saved, record, event)
        return advanced

    async def lease(self, name: str, owner: str, *, now: float, until: float) -> Lease | None:
        """See `AskStore.lease`."""
        return await self.inner.lease(name, owner, now=now, until=until)

    async def release(self, name: str, owner: str) -> None:
        """See `AskStore.release`."""
        await self.inner.release(name, owner)

    async def inbox_add(self, item: InboxItem) -> None:
        """See `AskStore.inbox_add`."""
        await self.inner.inbox_add(item)

    async def inbox_done(self, item_id: str) -> None:
        """See `AskStore.inbox_done`."""
        await self.inner.inbox_done(item_id)

    async def inbox_pending(self) -> list[InboxItem]:
        """See `AskStore.inbox_pending`."""
        return await self.inner.inbox_pending()


def _tell(method: Callable[..., None], *args: object) -> None:
    try:
        method(*args)
    except Exception:  # an observer's bug must never fail an ask that is already stored
        log.exception("an ask observer failed")
