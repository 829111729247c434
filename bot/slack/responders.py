"""Who may answer: configured user ids and user groups, or anyone in the channel on purpose.

"Anyone" is the explicit `ANYONE` (`*`), never an empty list: an empty list names nobody, so
nobody may answer (`python -m bot` refuses to start connected to Slack with none).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from typing import Final, Literal, TypeAlias

from bot.slack.api import SlackCallFailed, SlackClient

log = logging.getLogger(__name__)

GROUP_TTL_SECONDS = 60.0

ANYONE: Final = "*"
AnyoneInChannel: TypeAlias = Literal["*"]
"""`SLACK_QUESTIONS_RESPONDERS=*`: anyone who can see the question may answer it."""


def mentions(ids: Iterable[str]) -> str:
    """User and user-group ids as Slack mentions, comma separated."""
    return ", ".join(f"<!subteam^{i}>" if i.startswith("S") else f"<@{i}>" for i in ids)


class Responders:
    """The people allowed to answer: `ANYONE`, or the users and user groups listed (none
    listed: nobody)."""

    def __init__(
        self,
        client: SlackClient,
        ids: Iterable[str] | AnyoneInChannel = (),
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._anyone = ids == ANYONE
        ids = [] if ids == ANYONE else [i.strip() for i in ids if i.strip()]
        # Slack user-group ids start with S; user ids with U (or W on Enterprise Grid).
        self.groups = frozenset(i for i in ids if i.startswith("S"))
        self.users = frozenset(i for i in ids if not i.startswith("S"))
        self.client = client
        self._clock = clock
        self._members: dict[str, tuple[float, frozenset[str]]] = {}

    @property
    def anyone(self) -> bool:
        """Whether anyone who can see the question may answer it (`ANYONE`, on purpose)."""
        return self._anyone

    def describe(self) -> str:
        """The allowed people and groups as mentions, for a refusal message."""
        return mentions([*sorted(self.users), *sorted(self.groups)])

    def refusal(self) -> str:
        """What a person who may not answer is told."""
        if not (self.users or self.groups):
            return "Nobody may answer this question: no responders are configured."
        return f"Only {self.describe()} may answer this question, so nothing changed."

    async def allows(self, user_id: str) -> bool:
        """Whether `user_id` may answer (group membership looked up, cached for a minute)."""
        return self.anyone or await self.lists(user_id)

    async def lists(self, user_id: str) -> bool:
        """Whether `user_id` is named, by id or through a listed user group (`ANYONE` names
        nobody: it is about who can see the question, which is the channel's to say)."""
        if user_id in self.users:
            return True
        for group in sorted(self.groups):
            if user_id in await self._group_members(group):
                return True
        return False

    async def _group_members(self, group: str) -> frozenset[str]:
        cached = self._members.get(group)
        if cached is not None and cached[0] > self._clock():
            return cached[1]
        try:
            response = await self.client.usergroups_users_list(usergroup=group)
        except SlackCallFailed:
            # Fail closed: an unknown membership never grants the right to answer.
            log.exception("could not list members of user group %s", group)
            return frozenset()
        users = response.get("users") or []
        members = frozenset(str(u) for u in users)
        self._members[group] = (self._clock() + GROUP_TTL_SECONDS, members)
        return members
