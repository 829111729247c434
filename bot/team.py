"""The team view in Slack: `/agent-questions` and the app's Home tab.

Both read the recent asks, look up each ask's permalink (concurrently, cached per message)
and render `bot.render.team_view`. The command acks at once with nothing and answers ephemerally
through its response_url; the Home tab is published with views.publish.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any, Final, Protocol

import aiohttp
from slack_sdk.webhook import WebhookResponse

from bot.clock import Clock, SystemClock
from bot.render.feedback import feedback_summary
from bot.render.figures import AgentFigures, agent_figures, automatic_by
from bot.render.home_filters import HomeFilter
from bot.render.sla import team_sla_text
from bot.render.team_view import command_message, home_view
from bot.review import ReviewPolicies, auto_decider
from bot.sla import still_due
from bot.slack.api import SlackCallFailed, SlackClient
from bot.slack.audience import Audience, Visible
from bot.slack.grant_audience import GrantAudience
from bot.slack.responders import mentions
from bot.store import AskRecord, AskState, AskStore, EventKind, Feedback, Grant, Verdict

log = logging.getLogger(__name__)

COMMAND: Final = "/agent-questions"
RECENT_ASKS: Final = 50  # the newest asks, whatever their state
FILTERED_ASKS: Final = 1000  # a filtered Home tab looks this far back
WAITING_ASKS: Final = 25  # plus pending asks older than those, so none is hidden
LOOKUPS_AT_ONCE: Final = 8  # chat.getPermalink is Tier 4: plenty, but not 75 at once
CACHED_LINKS: Final = 2000


class Respond(Protocol):
    """A slash command's reply through its response_url (Bolt's `respond` is one)."""

    async def __call__(
        self, *, text: str, blocks: Sequence[dict[str, Any]], response_type: str
    ) -> WebhookResponse: ...


class TeamView:
    """Reads the recent asks and their permalinks, and shows each person the ones they may
    see (`Audience`: their channels' asks, and those they may answer or review)."""

    def __init__(
        self,
        store: AskStore,
        client: SlackClient,
        audience: Audience,
        policies: ReviewPolicies | None = None,
        grants: GrantAudience | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.store = store
        self.grants = grants  # None: the Home tab has no "Grants" section
        self._clock = clock or SystemClock()
        self.client = client
        self.audience = audience
        self._policies = policies or ReviewPolicies()
        self._links: dict[tuple[str, str], str] = {}
        self._lookups = asyncio.Semaphore(LOOKUPS_AT_ONCE)

    async def records(self) -> tuple[list[AskRecord], bool]:
        """The newest asks, newest first, with every waiting ask among older ones; and
        whether the store holds older asks than those."""
        recent = await self.store.recent(limit=RECENT_ASKS + 1)
        older = len(recent) > RECENT_ASKS
        recent = recent[:RECENT_ASKS]
        waiting = await self.store.recent(state=AskState.PENDING, limit=WAITING_ASKS)
        seen = {r.id for r in recent}
        # Waiting asks missing from `recent` are older than all of it: appending keeps the order.
        return recent + [r for r in waiting if r.id not in seen], older

    async def seen_by(self, user: str) -> tuple[Visible, bool]:
        """The recent asks `user` may see, and whether the store holds older asks."""
        records, older = await self.records()
        return await self.audience.visible(user, records), older

    async def links(self, records: list[AskRecord]) -> dict[str, str]:
        """Ask id -> permalink of its first message; an ask whose lookup fails has none."""
        keys = {r.id: (r.channel, r.message_ts[0]) for r in records if r.channel and r.message_ts}
        missing = {key for key in keys.values() if key not in self._links}
        await asyncio.gather(*(self._look_up(channel, ts) for channel, ts in missing))
        return {ask: self._links[key] for ask, key in keys.items() if key in self._links}

    def slas(self, records: list[AskRecord]) -> dict[str, str]:
        """Ask id -> the SLA line of each waiting ask whose policy has a ladder: the step it
        reached and the next one."""
        lines = {}
        for record in records:
            if record.settled:
                continue
            policy = self._policies.of(record)
            steps = still_due(
                policy.ladder(record.created_at),
                reminded_at=record.reminded_at,
                escalated_at=record.escalated_at,
            )
            line = team_sla_text(
                steps,
                mentions(policy.escalate_to),
                reminded=record.reminded_at is not None,
                escalated=record.escalated_at is not None,
            )
            if line is not None:
                lines[record.id] = line
        return lines

    async def reviews(self, records: list[AskRecord]) -> dict[str, str]:
        """Ask id -> the review line of each decided ask someone gave feedback on."""
        decided = [r.id for r in records if r.settled]
        given = await self.store.feedback(decided)
        by_ask: dict[str, list[Feedback]] = {}
        for feedback in given:
            by_ask.setdefault(feedback.ask_id, []).append(feedback)
        lines = {ask: feedback_summary(found) for ask, found in by_ask.items()}
        return {ask: line for ask, line in lines.items() if line is not None}

    async def figures(self, records: list[AskRecord]) -> list[AgentFigures]:
        """Each agent's figures over `records`; when an ask a person answered was posted is
        read from its event log (its first `posted` event)."""
        answered = [
            r
            for r in records
            if r.ended_as is Verdict.ANSWERED and automatic_by(r.decided_by) is None
        ]
        logs = await asyncio.gather(*(self.store.events(r.id) for r in answered))
        posted_at = {}
        for record, events in zip(answered, logs, strict=True):
            first = next((e.at for e in events if e.kind is EventKind.POSTED), None)
            if first is not None:
                posted_at[record.id] = first
        return agent_figures(records, posted_at)

    async def deciding_grants(self, records: list[AskRecord]) -> dict[str, Grant]:
        """The grants that decided any of `records`, by id (read only when one did)."""
        deciders = [auto_decider(r.decided_by) for r in records]
        wanted = {d.name for d in deciders if d is not None and d.kind == "grant"}
        if not wanted:
            return {}
        return {g.id: g for g in await self.store.grants() if g.id in wanted}

    async def _look_up(self, channel: str, ts: str) -> None:
        async with self._lookups:
            try:
                response = await self.client.chat_getPermalink(channel=channel, message_ts=ts)
            except SlackCallFailed as failed:
                log.warning("no permalink for %s/%s: %s", channel, ts, failed.error)
                return
        permalink = response.get("permalink")
        if isinstance(permalink, str) and permalink:
            if len(self._links) >= CACHED_LINKS:
                del self._links[next(iter(self._links))]  # the oldest entry
            self._links[(channel, ts)] = permalink

    async def answer_command(self, respond: Respond, user: str) -> None:
        """Answer `/agent-questions` ephemerally, through the command's response_url."""
        seen, older = await self.seen_by(user)
        links = await self.links(seen.records)
        content = command_message(
            seen.records,
            links,
            older=older,
            hidden=seen.unread,
            slas=self.slas(seen.records),
            feedback=await self.reviews(seen.records),
            deciders=await self.deciding_grants(seen.records),
        )
        try:
            response = await respond(
                text=content.text, blocks=content.blocks_json(), response_type="ephemeral"
            )
        except (aiohttp.ClientError, TimeoutError):
            log.exception("could not answer %s for %s", COMMAND, user)
            return
        if response.status_code != 200:
            log.error(
                "could not answer %s for %s: HTTP %s %s",
                COMMAND,
                user,
                response.status_code,
                response.body,
            )

    async def publish_home(
        self, user: str, filters: HomeFilter | None = None, *, grants_notice: str | None = None
    ) -> None:
        """Publish the team view as `user`'s Home tab, with `filters` applied (none: every
        recent ask): the filters, each agent's figures over what they let through, the lists,
        then the grants and saved rules they may revoke (`grants_notice`: what their last Revoke there did)."""
        chosen = filters or HomeFilter()
        if chosen.active:
            # Beyond the newest asks: a period or an agent reaches back FILTERED_ASKS asks.
            found = await self.store.recent(limit=FILTERED_ASKS + 1)
            older = len(found) > FILTERED_ASKS
            seen = await self.audience.visible(user, found[:FILTERED_ASKS])
        else:
            seen, older = await self.seen_by(user)
        agents = sorted({r.agent_name for r in seen.records if r.agent_name})
        now = self._clock.now()
        shown = [r for r in seen.records if chosen.matches(r, now)]
        links = await self.links(shown)
        grants = await self.grants.seen_by(user) if self.grants is not None else None
        rules = await self.grants.rules_seen_by(user) if self.grants is not None else []
        view = home_view(
            shown,
            links,
            older=older,
            hidden=seen.unread,
            slas=self.slas(shown),
            feedback=await self.reviews(shown),
            figures=await self.figures(shown),
            filters=chosen,
            agents=agents,
            grants=grants,
            grants_notice=grants_notice,
            deciders=await self.deciding_grants(shown),
            rules=rules,
        )
        try:
            await self.client.views_publish(user_id=user, view=view)
        except SlackCallFailed:
            log.exception("could not publish the Home tab of %s", user)

    async def filter_home(
        self, user: str, private_metadata: str, action_id: str, value: str | None
    ) -> None:
        """One of the Home tab's filters changed: publish it again with the others kept
        (they travel in the view's private_metadata)."""
        await self.publish_home(user, HomeFilter.read(private_metadata).changed(action_id, value))
