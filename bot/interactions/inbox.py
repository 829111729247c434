"""The inbox: an acked click is never lost.

Slack hears our ack before any work runs, so a crash right after the ack would drop the
click. Every interaction that can change an ask is therefore stored (`AskStore.inbox_add`)
before its ack, handled after it, and forgotten once handled. On start, what is left is
handed to the same handler again, oldest first; that is safe because the first answer wins
and every later one is refused as too late. Opening a modal is not kept: its trigger_id
lives three seconds, so a replay could only fail.

The ack waits for one INSERT and nothing else (bench/inbox_latency.py measures it).
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Callable, Coroutine
from typing import Any
from urllib.parse import parse_qsl

from bot.clock import Clock
from bot.store import AskStore, InboxItem, InboxKind
from bot.tasks import Tasks

log = logging.getLogger(__name__)

Body = dict[str, Any]
Route = Callable[[Body], Coroutine[Any, Any, None]]


class Inbox:
    """Keeps interactions before their ack and runs their handler after it."""

    def __init__(self, store: AskStore, clock: Clock, tasks: Tasks) -> None:
        self._store = store
        self._clock = clock
        self._tasks = tasks
        self._routes: dict[InboxKind, Route] = {}

    def route(self, kind: InboxKind, handler: Route) -> None:
        """Handle interactions of `kind` (live and replayed) with `handler(body)`."""
        self._routes[kind] = handler

    async def keep(self, kind: InboxKind, body: Body, raw_body: str) -> InboxItem | None:
        """Store the interaction; call before its ack. `raw_body` is the request body as
        signed (empty in Socket Mode, where the parsed body is kept as JSON).

        None if the store refused it (logged): the interaction is still acked and handled,
        only not durably, since refusing the person's click would lose it for certain."""
        item = InboxItem(
            id=uuid.uuid4().hex,
            received_at=self._clock.now(),
            kind=kind,
            body=raw_body or json.dumps(body),
        )
        try:
            await self._store.inbox_add(item)
        except Exception:
            log.exception("could not keep a %s in the inbox; handling it anyway", kind)
            return None
        return item

    def handle(self, kind: InboxKind, item: InboxItem | None, body: Body) -> None:
        """Run the handler of `kind` after the ack, in a tracked task; forget `item` after."""
        self._tasks.spawn(self._run(kind, item, body), name=f"inbox {kind}")

    async def replay(self) -> int:
        """Hand every interaction left from before a restart to its handler, in order of
        arrival, in one tracked task. How many there were."""
        items = await self._store.inbox_pending()
        if items:
            log.info("replaying %d interaction(s) acked before the restart", len(items))
            self._tasks.spawn(self._replay(items), name="inbox replay")
        return len(items)

    async def _replay(self, items: list[InboxItem]) -> None:
        for item in items:
            body = body_of(item.body)
            if body is None:
                log.error("dropping inbox item %s: its body cannot be read", item.id)
                await self._forget(item)
                continue
            await self._run(item.kind, item, body)

    async def _run(self, kind: InboxKind, item: InboxItem | None, body: Body) -> None:
        try:
            await self._routes[kind](body)
        except Exception:
            # Kept, it would fail again on every start; the log has what to fix.
            log.exception("handling a %s failed; it is dropped", kind)
        # A cancelled handler (shutdown) skips this: the item is replayed on the next start.
        if item is not None:
            await self._forget(item)

    async def _forget(self, item: InboxItem) -> None:
        try:
            await self._store.inbox_done(item.id)
        except Exception:
            # Replayed on the next start: harmless, since a second answer is refused.
            log.exception("could not mark inbox item %s handled", item.id)


def body_of(raw_body: str) -> Body | None:
    """The payload of a kept body: JSON (events, Socket Mode) or a form with `payload=`
    (interactions), as Slack sends each. None if it is neither."""
    try:
        if raw_body.startswith("{"):
            parsed = json.loads(raw_body)
        else:
            payload = dict(parse_qsl(raw_body, keep_blank_values=True)).get("payload")
            parsed = json.loads(payload) if payload is not None else None
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None
