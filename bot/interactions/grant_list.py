"""`/agent-questions grants` and its Revoke buttons (on the Home tab too).

The list shows the active grants a person may revoke: those of the tools the review policy
lets them allow (`bot.slack.grant_audience`). Revoke is checked again when clicked, against
the policy as it is now: a person it no longer lets allow the tool — the grant's own maker
too — is told who could, and nothing changes. A revoke is idempotent: the second click says
who revoked it first. A revoked grant covers nothing; the next call it covered is asked.

Rules saved with "Always allow" are listed and revoked alike, under the same people (who may
allow the rule's tool for its agent, or for every agent): a revoked rule allows nothing, and
its next matching call is asked; the revoke is chained as `rule_revoked`.
"""

from __future__ import annotations

from bot.asks.grants import Grants
from bot.asks.saved_rules import SavedRules
from bot.clock import Clock
from bot.interactions.team_commands import CommandCall, reply
from bot.render.agent_text import code_span
from bot.render.decided import when
from bot.render.grants import grants_message
from bot.render.message import MessageContent
from bot.slack.click_replies import respond_at
from bot.slack.grant_audience import GrantAudience
from bot.store import AskStore
from bot.team import TeamView

ID_MAX = 40


class GrantList:
    """Lists a person's grants and revokes them, answering where they clicked."""

    def __init__(
        self, store: AskStore, clock: Clock, audience: GrantAudience, team: TeamView
    ) -> None:
        self._grants = Grants(store, clock)
        self._rules = SavedRules(store, clock)
        self._audience = audience
        self._team = team

    async def command(self, call: CommandCall) -> None:
        """`/agent-questions grants`: the caller's list, ephemerally."""
        content = await self._listed(call.user)
        await reply(call.respond, content.text, content.blocks_json())

    async def revoke(self, user: str, grant_id: str, response_url: str | None) -> None:
        """Revoke the grant as `user` if the policy lets them allow its tool; then show what
        happened where they clicked: the list again under a line saying it (or, refused, a
        line of its own), on the Home tab when `response_url` is None."""
        notice, refused = await self._revoke(user, grant_id)
        await self._answer(user, notice, refused=refused, response_url=response_url)

    async def revoke_rule(self, user: str, name: str, response_url: str | None) -> None:
        """Revoke the saved rule `name` as `user` if the policy lets them allow its tool;
        then answer where they clicked, as `revoke` does."""
        notice, refused = await self._revoke_rule(user, name)
        await self._answer(user, notice, refused=refused, response_url=response_url)

    async def _answer(
        self, user: str, notice: str, *, refused: bool, response_url: str | None
    ) -> None:
        if response_url is None:
            await self._team.publish_home(user, grants_notice=notice)
            return
        if refused:
            await respond_at(response_url, text=notice, replace=False)
            return
        content = await self._listed(user, notice=notice)
        await respond_at(
            response_url, text=content.text, blocks=content.blocks_json(), replace=True
        )

    async def _listed(self, user: str, *, notice: str | None = None) -> MessageContent:
        return grants_message(
            await self._audience.seen_by(user),
            notice=notice,
            rules=await self._audience.rules_seen_by(user),
        )

    async def _revoke_rule(self, user: str, name: str) -> tuple[str, bool]:
        """What the click did to a saved rule, in words, and whether it was refused."""
        shown = code_span(name, ID_MAX)
        rule = await self._rules.get(name)
        if rule is None:
            return f"No saved rule {shown} is stored, so there is nothing to revoke.", True
        if not await self._audience.may_revoke(user, rule):
            return self._audience.rule_refusal(rule), True
        revoked = await self._rules.revoke(name, user)
        ended = revoked.rule
        if ended is None or ended.revoked_at is None:
            return f"No saved rule {shown} is stored, so there is nothing to revoke.", True
        if not revoked.now:
            return (
                f"Rule {shown} was already revoked by <@{ended.revoked_by}> "
                f"{when(ended.revoked_at)}; nothing changed.",
                False,
            )
        return (
            f":no_entry_sign: Rule {shown} revoked by <@{user}> {when(ended.revoked_at)}: the "
            "next call it allowed is asked in Slack again.",
            False,
        )

    async def _revoke(self, user: str, grant_id: str) -> tuple[str, bool]:
        """What the click did, in words, and whether it was refused."""
        shown = code_span(grant_id, ID_MAX)
        grant = await self._grants.get(grant_id)
        if grant is None:
            return f"No grant {shown} is stored, so there is nothing to revoke.", True
        if not await self._audience.may_revoke(user, grant):
            return self._audience.refusal(grant), True
        revoked = await self._grants.revoke(grant_id, user)
        ended = revoked.grant
        if ended is None or ended.revoked_at is None:
            return f"No grant {shown} is stored, so there is nothing to revoke.", True
        if not revoked.now:
            return (
                f"Grant {shown} was already revoked by <@{ended.revoked_by}> "
                f"{when(ended.revoked_at)}; nothing changed.",
                False,
            )
        return (
            f":no_entry_sign: Grant {shown} revoked by <@{user}> {when(ended.revoked_at)}: the "
            "next call it covered is asked in Slack again.",
            False,
        )
