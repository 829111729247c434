"""Who may see and revoke a grant, or a rule saved with "Always allow": whoever the review
policy lets allow the tool it covers.

A grant stands in for an approval, so the people who may end it are those who could approve
the calls it covers — under every policy such a call may fall under and the grant decides
(`ReviewPolicies.grant_reach`): the policy's reviewers, else the configured responders, and
with `*` (anyone in the channel) the members of the channel those calls are asked in. Who
made the grant counts only while they are still one of them. Fail closed: a policy whose
people cannot be read (a user group or a channel Slack will not list), or a grant no policy
lets one approval decide, lets nobody. A saved rule reaches what a grant of its tool and its
agent (or every agent) would: it too stands in for approvals, so the same people may end it.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from bot.clock import Clock
from bot.render.agent_text import code_span
from bot.review import GrantReach, ReviewPolicies
from bot.slack.api import SlackClient
from bot.slack.memberships import ChannelMembers, MembershipUnknown
from bot.slack.responders import Responders
from bot.store import AskStore, Grant, StoredRule

log = logging.getLogger(__name__)

TOOL_MAX = 100


class GrantAudience:
    """Decides, per person, which grants they may see and revoke, and says who could."""

    def __init__(
        self,
        store: AskStore,
        clock: Clock,
        client: SlackClient,
        responders: Responders,
        policies: ReviewPolicies,
        members: ChannelMembers,
        *,
        channel: str | None,
    ) -> None:
        self._store = store
        self._clock = clock
        self._client = client
        self._responders = responders
        self._policies = policies
        self._members = members
        self._channel = channel  # where tool approvals are asked unless a route says otherwise
        self._reviewers: dict[tuple[str, ...], Responders] = {}

    def reach(self, grant: Grant | StoredRule) -> list[GrantReach]:
        """The policies the grant's (or saved rule's) calls may be decided under by it."""
        agent = grant.subject if grant.scope == "agent" else None
        return self._policies.grant_reach(grant.tool, agent)

    async def may_revoke(self, user: str, grant: Grant | StoredRule) -> bool:
        """Whether `user` may approve the grant's (or saved rule's) tool under every policy
        it reaches."""
        reach = self.reach(grant)
        if not reach:
            return False  # no policy lets it decide anything: nobody is sure to be allowed
        for where in reach:
            if not await self._approves(user, where):
                return False
        return True

    async def visible(self, user: str, grants: Sequence[Grant]) -> list[Grant]:
        """The grants of `grants` that `user` may see (and revoke), in the order given."""
        return [grant for grant in grants if await self.may_revoke(user, grant)]

    async def seen_by(self, user: str) -> list[Grant]:
        """The active grants (neither revoked nor expired) `user` may see, oldest first."""
        now = self._clock.now()
        active = [grant for grant in await self._store.grants() if grant.active(now)]
        return await self.visible(user, active)

    async def rules_seen_by(self, user: str) -> list[StoredRule]:
        """The active saved rules (neither revoked nor expired) `user` may see and revoke,
        oldest first."""
        now = self._clock.now()
        return [
            rule
            for rule in await self._store.rules()
            if rule.active(now) and await self.may_revoke(user, rule)
        ]

    def who_could(self, grant: Grant | StoredRule) -> str:
        """Who may revoke the grant (or saved rule), as mentions: what a refused person is
        told."""
        groups = []
        for where in self.reach(grant):
            words = self._people(where)
            if words not in groups:
                groups.append(words)
        if not groups:
            return "nobody: no review policy lets one approval from Slack allow it"
        return " who are also among ".join(groups)

    def refusal(self, grant: Grant) -> str:
        """What someone who may not revoke the grant is told."""
        tool = code_span(grant.tool, TOOL_MAX)
        return (
            f"Only {self.who_could(grant)} may revoke grant `{grant.id}` of {tool}: who may "
            "allow that tool from Slack. Nothing changed."
        )

    def rule_refusal(self, rule: StoredRule) -> str:
        """What someone who may not revoke the saved rule is told."""
        tool = code_span(rule.tool, TOOL_MAX)
        return (
            f"Only {self.who_could(rule)} may revoke rule `{rule.name}` of {tool}: who may "
            "allow that tool from Slack. Nothing changed."
        )

    def _people(self, where: GrantReach) -> str:
        reviewers = where.policy.reviewers
        if reviewers:
            return self._listed(reviewers).describe()
        if self._responders.anyone:
            channel = where.channel or self._channel
            return f"the members of <#{channel}>" if channel else "nobody"
        return self._responders.describe() or "nobody"

    async def _approves(self, user: str, where: GrantReach) -> bool:
        reviewers = where.policy.reviewers
        if reviewers:
            return await self._listed(reviewers).lists(user)
        if not self._responders.anyone:
            return await self._responders.lists(user)
        channel = where.channel or self._channel
        if channel is None:
            return False
        try:
            return user in await self._members.of(channel)
        except MembershipUnknown as unknown:
            log.warning("grants: %s; nobody may revoke grants asked there", unknown)
            return False

    def _listed(self, reviewers: tuple[str, ...]) -> Responders:
        if reviewers not in self._reviewers:
            self._reviewers[reviewers] = Responders(self._client, reviewers)
        return self._reviewers[reviewers]
