"""`/agent-questions grants` and its Revoke buttons (on the Home tab too).

The list shows the active grants a person may revoke: those of the tools the review policy
lets them allow (`bot.slack.grant_audience`). Revoke is checked again when clicked, against
the policy as it is now: a person it no longer lets allow the tool — the grant's own maker
too — is told who could, and nothing changes. A revoke is idempotent: the second click says
who revoked it first. A revoked grant covers nothing; the next call it covered is asked.
"""

from __future__ import annotations

from bot.asks.grants import Grants
from bot.clock import Clock
from bot.interactions.team_commands import CommandCall, reply
from bot.render.agent_text import code_span
from bot.render.decided import when
from bot.render.grants import grants_message
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
        self._audience = audience
        self._team = team

    async def command(self, call: CommandCall) -> None:
        """`/agent-questions grants`: the caller's list, ephemerally."""
        content = grants_message(await self._audience.seen_by(call.user))
        await reply(call.respond, content.text, content.blocks_json())

    async def revoke(self, user: str, grant_id: str, response_url: str | None) -> None:
        """Revoke the grant as `user` if the policy lets them allow its tool; then show what
        happened where they clicked: the list again under a line saying it (or, refused, a
        line of its own), on the Home tab when `response_url` is None."""
        notice, refused = await self._revoke(user, grant_id)
        if response_url is None:
            await self._team.publish_home(user, grants_notice=notice)
            return
        if refused:
            await respond_at(response_url, text=notice, replace=False)
            return
        content = grants_message(await self._audience.seen_by(user), notice=notice)
        await respond_at(
            response_url, text=content.text, blocks=content.blocks_json(), replace=True
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
