"""Where asks are posted: one thread per agent session, opened by a root naming the agent."""

from __future__ import annotations

import asyncio
from collections import defaultdict

from .channel_pacing import ChannelPosts, Turn
from .clock import Clock, SystemClock
from .render import thread_root
from .slack_api import SlackCallFailed, slack_call
from .store import AskEvent, AskStore, EventKind, ThreadRef


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
        clock: Clock | None = None,
    ) -> None:
        self._posts = posts
        self._store = store
        self._channel = channel
        self._clock: Clock = clock or SystemClock()
        # Two asks of one new session must not open two threads.
        self._locks: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)

    async def route(self, session: str, ref: ThreadRef) -> None:
        """Send every later ask of `session` to `ref` (e.g. the thread that started the agent)."""
        await self._store.set_thread(session, ref)

    async def for_session(
        self, session: str | None, agent_name: str | None, *, ask_id: str
    ) -> ThreadRef:
        """The thread for this session, opening it with a root message on first use.

        An ask with no agent session is posted at the top level of the channel.
        """
        if session is None:
            return ThreadRef(channel=self._require_channel())
        async with self._locks[session]:
            known = await self._store.thread(session)
            if known is not None:
                return known
            channel = self._require_channel()
            root = thread_root(agent_name, session)
            async with slack_call("chat.postMessage"):
                response = await self._posts.post_message(
                    Turn.ROOT, channel=channel, text=root.text, blocks=root.blocks_json()
                )
            ref = ThreadRef(channel=str(response["channel"]), thread_ts=str(response["ts"]))
            await self._store.set_thread(session, ref)
            await self._store.log(
                AskEvent(
                    ask_id=ask_id,
                    at=self._clock.now(),
                    kind=EventKind.THREAD_OPENED,
                    detail=f"{ref.channel} {ref.thread_ts}",
                )
            )
            return ref

    def _require_channel(self) -> str:
        if self._channel is None:
            raise NoChannel("no Slack channel is configured for questions and none was routed")
        return self._channel


__all__ = ["NoChannel", "SlackCallFailed", "Threads"]
