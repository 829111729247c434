"""Who is in a channel, for the team view: `conversations.members`, paged, cached briefly.

One lookup per channel serves every person who opens the view, and asks gather in a few
channels, so this reads each channel's members (Tier 4, 100+ calls a minute) rather than each
person's channels (`users.conversations`, Tier 3). It needs `channels:read` for a public
channel and `groups:read` for a private one (the bot is in both: it posts there). Members
are kept for `MEMBERS_TTL_SECONDS`: someone removed from a private channel may still see its
asks in the view for up to that long, and a busy Home tab does not spend the method's rate.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Final

from bot.slack.api import SlackCallFailed, SlackClient

MEMBERS_TTL_SECONDS: Final = 60.0
PAGE_SIZE: Final = 200  # Slack's advice for paged methods: no more than 200 at a time
MAX_PAGES: Final = 500  # 100,000 members: past that a cursor that never ends is a fault


class MembershipUnknown(Exception):
    """The members of `channel` could not be read; `error` is Slack's reason."""

    def __init__(self, channel: str, error: str) -> None:
        super().__init__(f"cannot read the members of {channel}: {error}")
        self.channel = channel
        self.error = error


class ChannelMembers:
    """The members of channels, each read with every page of its cursor and kept a minute."""

    def __init__(
        self,
        client: SlackClient,
        *,
        clock: Callable[[], float] = time.monotonic,
        ttl: float = MEMBERS_TTL_SECONDS,
    ) -> None:
        self._client = client
        self._clock = clock
        self._ttl = ttl
        self._members: dict[str, tuple[float, frozenset[str]]] = {}
        self._reading: dict[str, asyncio.Lock] = {}

    async def of(self, channel: str) -> frozenset[str]:
        """The user ids in `channel`; `MembershipUnknown` when Slack will not say (a failure
        is not kept, so the next view asks again)."""
        lock = self._reading.setdefault(channel, asyncio.Lock())
        # One read per channel at a time: ten people opening the Home tab at once cost one.
        async with lock:
            cached = self._members.get(channel)
            if cached is not None and cached[0] > self._clock():
                return cached[1]
            members = await self._read(channel)
            self._members[channel] = (self._clock() + self._ttl, members)
            return members

    async def _read(self, channel: str) -> frozenset[str]:
        members: set[str] = set()
        cursor: str | None = None
        for _ in range(MAX_PAGES):
            try:
                response = await self._client.conversations_members(
                    channel=channel, limit=PAGE_SIZE, cursor=cursor
                )
            except SlackCallFailed as failed:
                raise MembershipUnknown(channel, failed.error) from failed
            members.update(str(m) for m in response.get("members") or [])
            cursor = (response.get("response_metadata") or {}).get("next_cursor") or None
            if cursor is None:
                return frozenset(members)
        raise MembershipUnknown(channel, f"more than {MAX_PAGES} pages of members")
