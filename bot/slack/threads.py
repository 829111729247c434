"""Where asks are posted: one thread per agent session, opened by a root naming the agent.

One root per session across replicas and across crashes: the session's thread is opened under
a lease (`AskStore.lease`), so a racing replica waits for the winner's thread instead of
posting its own; the root carries message metadata naming the session, so when a lease
lapses (its holder died between Slack storing the root and the root being recorded), the
next holder finds that root in the channel's history before it would post another.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict

from bot.clock import Clock, SystemClock
from bot.render import thread_root
from bot.slack.api import SlackCallFailed
from bot.slack.messages import find_by_metadata
from bot.slack.pacing import ChannelPosts, Turn
from bot.store import AskEvent, AskStore, EventKind, ThreadRef
from bot.store.leases import LeaseKind, Leases

# Lets a restarted (or another) replica find a root that was posted but never recorded.
ROOT_METADATA_EVENT = "slack_questions_session"
# How long a replica may take to open a session's thread before another may take over.
THREAD_LEASE_S = 10.0
# While another replica opens the thread: how often to look whether it has recorded it.
THREAD_POLL_S = 0.05


class NoChannel(Exception):
    """An ask has nowhere to go: no channel configured and no route given."""


class Threads:
    """Finds or opens the thread of an agent session; hosts may route a session elsewhere."""

    def __init__(
        self,
        store: AskStore,
        channel: str | None,
        *,
        posts: ChannelPosts,
        leases: Leases,
        clock: Clock | None = None,
    ) -> None:
        self._posts = posts
        self._store = store
        self._channel = channel
        self._clock: Clock = clock or SystemClock()
        self._leases = leases
        # Two asks of one new session in this process wait here, not on the lease.
        self._locks: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)

    async def route(self, session: str, ref: ThreadRef) -> None:
        """Send every later ask of `session` to `ref` (e.g. the thread that started the agent)."""
        await self._store.set_thread(session, ref)

    async def known(self, session: str | None) -> ThreadRef | None:
        """Where the session's asks are posted, if it is known already (no root is posted
        here): the top level of the channel for no session, else its recorded thread."""
        if session is None:
            return ThreadRef(channel=self._channel) if self._channel is not None else None
        return await self._store.thread(session)

    async def for_session(
        self, session: str | None, agent_name: str | None, *, ask_id: str
    ) -> ThreadRef:
        """The thread for this session, opening it with a root message on first use.

        An ask with no agent session is posted at the top level of the channel.
        """
        if session is None:
            return ThreadRef(channel=self._require_channel())
        async with self._locks[session]:
            while (known := await self._store.thread(session)) is None:
                async with self._leases.hold(LeaseKind.THREAD, session, THREAD_LEASE_S) as lease:
                    if lease is None:
                        # Another replica is opening it: wait for its thread, or its lease to lapse.
                        await asyncio.sleep(THREAD_POLL_S)
                        continue
                    # Read again under the lease: another replica may have opened the thread
                    # and given the lease back since the read above (a second root otherwise).
                    if (known := await self._store.thread(session)) is not None:
                        return known
                    found = await self._find_root(session) if lease.lapsed else None
                    ref = found or await self._post_root(session, agent_name)
                    known = await self._store.claim_thread(session, ref)
                await self._store.log(
                    AskEvent(
                        ask_id=ask_id,
                        at=self._clock.now(),
                        kind=EventKind.THREAD_OPENED,
                        detail=f"{known.channel} {known.thread_ts}"
                        + (" (found after a crash)" if found else ""),
                    )
                )
            return known

    async def _post_root(self, session: str, agent_name: str | None) -> ThreadRef:
        channel = self._require_channel()
        root = thread_root(agent_name, session)
        response = await self._posts.post_message(
            Turn.ROOT,
            channel=channel,
            # Roots take turns by agent name: one agent opening many sessions does not hold
            # back another agent's root (nameless sessions take one turn together).
            agent=agent_name,
            text=root.text,
            blocks=root.blocks_json(),
            metadata={"event_type": ROOT_METADATA_EVENT, "event_payload": {"session": session}},
        )
        return ThreadRef(channel=str(response["channel"]), thread_ts=str(response["ts"]))

    async def _find_root(self, session: str) -> ThreadRef | None:
        """The session's root if Slack has it though nobody recorded it (its poster died
        in between), found by its metadata among the channel's newest messages."""
        channel = self._require_channel()
        ts = await find_by_metadata(
            self._posts.client, channel, ROOT_METADATA_EVENT, {"session": session}
        )
        return ThreadRef(channel=channel, thread_ts=ts) if ts is not None else None

    def _require_channel(self) -> str:
        if self._channel is None:
            raise NoChannel("no Slack channel is configured for questions and none was routed")
        return self._channel


__all__ = ["NoChannel", "SlackCallFailed", "Threads"]
