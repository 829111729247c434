"""Who may see an ask in the team view: the members of its channel, and whoever may answer
or review it.

The view lists questions and answers, typed text included, so it shows a person only what
their channel membership would show them anyway, plus the asks they are asked to decide. An
ask not in a channel yet is shown only to those who may answer it. When a channel's members
cannot be read (an error, a missing scope), its asks are shown only to those who may answer
or review them, and the view says that others are hidden and why (fail closed).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass

from bot.review import ReviewPolicies
from bot.slack.api import SlackClient
from bot.slack.memberships import ChannelMembers, MembershipUnknown
from bot.slack.responders import Responders
from bot.store import AskRecord

log = logging.getLogger(__name__)


def reviewers_of(policies: ReviewPolicies, record: AskRecord) -> tuple[str, ...]:
    """The reviewers the policy of `record` names (chosen by its kind, agent and channel),
    who may answer it whatever its kind: the one place the team view asks a policy."""
    return policies.of(record).reviewers


@dataclass(frozen=True, slots=True)
class Visible:
    """The asks one person may see, in the order given; `unread`: the channels whose members
    could not be read, where asks were hidden from them for that reason alone."""

    records: list[AskRecord]
    unread: tuple[str, ...] = ()


class Audience:
    """Decides, per person, which asks the team view shows them."""

    def __init__(
        self,
        client: SlackClient,
        responders: Responders,
        policies: ReviewPolicies,
        members: ChannelMembers,
        *,
        channel: str | None = None,
    ) -> None:
        self._client = client
        self._responders = responders
        self._policies = policies
        self._members = members
        self._channel = channel  # where an ask with no channel yet will be posted
        self._reviewers: dict[tuple[str, ...], Responders] = {}

    async def may_decide(self, user: str, record: AskRecord) -> bool:
        """Whether `user` is named to answer `record` (a listed responder, by id or user
        group) or to review it (a reviewer its policy names). `*` names nobody here."""
        reviewers = reviewers_of(self._policies, record)
        if reviewers:
            if reviewers not in self._reviewers:
                self._reviewers[reviewers] = Responders(self._client, reviewers)
            if await self._reviewers[reviewers].lists(user):
                return True
        return await self._responders.lists(user)

    async def visible(self, user: str, records: Sequence[AskRecord]) -> Visible:
        """The asks of `records` that `user` may see."""
        channels = sorted({c for r in records if (c := self._where(r)) is not None})
        read = await asyncio.gather(*(self._read(c) for c in channels))
        members = {c: m for c, m in zip(channels, read, strict=True) if m is not None}
        unreadable = [c for c, m in zip(channels, read, strict=True) if m is None]
        shown: list[AskRecord] = []
        withheld: set[str] = set()
        for record in records:
            where = self._where(record)
            member = where is not None and user in members.get(where, ())
            if member or await self.may_decide(user, record):
                shown.append(record)
            elif where in unreadable:
                withheld.add(where)
        return Visible(shown, tuple(sorted(withheld)))

    def _where(self, record: AskRecord) -> str | None:
        """The channel whose members may see `record`. An ask not posted yet has none, so
        only those who may answer see it; with `*` that is anyone in the channel it will be
        posted in."""
        if record.channel is not None:
            return record.channel
        return self._channel if self._responders.anyone else None

    async def _read(self, channel: str) -> frozenset[str] | None:
        try:
            return await self._members.of(channel)
        except MembershipUnknown as unknown:
            log.warning(
                "team view: %s; showing its asks only to who may answer or review them", unknown
            )
            return None
