"""An ask's Slack I/O, all of it: what its messages say, posting each part once, finding a post
that was lost, updating them in place, ephemeral notes, reminders, and its modals.
The lifecycle (`asks.py`) decides and the handlers choose; only this module calls Slack for an ask."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence

from slack_sdk.models.views import View
from slack_sdk.web.async_slack_response import AsyncSlackResponse

from bot.claims import lapses_at, offers_claims
from bot.clock import Clock
from bot.delegation import active, away_line, named_people, routes
from bot.render import (
    AskLayout,
    MessageContent,
    Settlement,
    ask_message,
    settled_message,
)
from bot.render.away import away_text, with_away
from bot.render.claim import claim_blocks, with_claim
from bot.render.feedback import with_feedback
from bot.render.plan_review import ReviewStatus, plan_review_message, settled_plan_review
from bot.render.sla import sla_text, with_sla
from bot.render.tool_approval import settled_tool_approval, tool_approval_message
from bot.review import ReviewPolicies, tools_of
from bot.sla import still_due
from bot.slack.api import SlackCallFailed, SlackClient
from bot.slack.pacing import ChannelPosts, Dropped, QueuedTurn, Spawn, Turn, Work
from bot.slack.responders import AnyoneInChannel, mentions
from bot.store import AskRecord, AskStore, Verdict

log = logging.getLogger(__name__)

METADATA_EVENT = "slack_questions_ask"
# How far back (in pages of 200 messages) a lost post or thread root is looked for.
FIND_PAGES = 10
# After a post failed in transit, when to look for it (seconds between looks).
LOOK_AGAIN_AFTER = (1.0, 3.0)


class AskMessages:
    """Renders, posts and updates the messages of asks."""

    def __init__(
        self,
        client: SlackClient,
        store: AskStore,
        policies: ReviewPolicies,
        clock: Clock,
        *,
        posts: ChannelPosts,
        responders: Sequence[str] | AnyoneInChannel = (),
    ) -> None:
        self.client = client
        # Who may answer where no policy names reviewers: whether an ask goes to a pool, and
        # whose delegates it shows.
        self._responders = responders
        # Posts and updates wait their turn in their channel (Slack's posting rate).
        self.posts = posts
        self._store = store
        self._policies = policies
        self._clock = clock

    # --- what a message says ---------------------------------------------------------------

    async def open_view(self, record: AskRecord, layout: AskLayout, part: int) -> MessageContent:
        """A part of an open ask as it should read now (a part already answered says so),
        with its claim controls (an ask sent to a pool) and its SLA line: when its next
        step comes."""
        content = await self._open_view(record, layout, part)
        if part in record.parts_done:
            return content
        policy = self._policies.of(record)
        if offers_claims(policy, self._responders):
            held = claim_blocks(record.id, record.holder, lapses_at(record, policy))
            content = with_claim(content, held)
        steps = still_due(
            policy.ladder(record.created_at),
            reminded_at=record.reminded_at,
            escalated_at=record.escalated_at,
        )
        content = with_away(content, await self.away(record))
        return with_sla(content, sla_text(steps, mentions(policy.escalate_to)))

    async def away(self, record: AskRecord) -> str | None:
        """Who the ask names is away, and who is asked for them (None: nobody is away)."""
        return away_text(await self.away_lines(record))

    def names(self, record: AskRecord) -> list[str]:
        """The people (user ids) the ask names: whose delegates it asks when they are away."""
        return named_people(record, self._policies.of(record), self._responders)

    async def away_lines(self, record: AskRecord) -> list[str]:
        """One line per person the ask names who is away: "@alice is away until Dec 24 —
        asking @bob"."""
        named = self.names(record)
        if not named:
            return []
        in_force = active(await self._store.delegations(), self._clock.now())
        return [away_line(found) for found in routes(named, in_force)]

    async def _open_view(self, record: AskRecord, layout: AskLayout, part: int) -> MessageContent:
        if part in record.parts_done:
            return settled_message(layout, part, self.settlement_of(record, part))
        if layout.plan_review:
            status = await self.review_status(record)
            return plan_review_message(
                record.id, layout, record.agent_name, status, agent_id=record.agent_id
            )
        if layout.tool_approval:
            status = await self.review_status(record)
            return tool_approval_message(
                record.id, layout, record.agent_name, record.agent_id, status
            )
        return ask_message(record.id, layout, part, record.agent_name, agent_id=record.agent_id)

    async def decided_view(self, record: AskRecord, layout: AskLayout, part: int) -> MessageContent:
        """A part once the ask is decided: the decision in place of the controls; an
        answered ask's last part then asks "Was this the right call?" (feedback buttons)."""
        content = await self._decided_view(record, layout, part)
        if record.ended_as is Verdict.ANSWERED and part == len(layout.parts) - 1:
            return with_feedback(content, layout, record.id)
        return content

    async def _decided_view(
        self, record: AskRecord, layout: AskLayout, part: int
    ) -> MessageContent:
        settlement = self.settlement_of(record, part)
        if layout.plan_review:
            status = await self.review_status(record)
            return settled_plan_review(
                record.id, layout, record.agent_name, status, settlement, agent_id=record.agent_id
            )
        if layout.tool_approval:
            status = await self.review_status(record)
            return settled_tool_approval(
                record.id, layout, record.agent_name, record.agent_id, status, settlement
            )
        return settled_message(layout, part, settlement)

    async def review_status(self, record: AskRecord) -> ReviewStatus:
        """A review's (plan or tool) approvals, what it needs, what its policy lets Slack do
        and whose agent asks; a plan's previous revision."""
        name = self._policies.name_of(record)
        policy = self._policies.named(name)
        previous = await self._store.get(record.revises) if record.revises else None
        ruled = self._policies.rule_decision(record.questions)
        return ReviewStatus(
            needed=policy.approvals,
            approvals=tuple((a.by, a.at) for a in record.approvals),
            reviewers=mentions(policy.reviewers),
            revision=record.revision,
            previous_plan=previous.questions[0].detail if previous else None,
            policy=name,
            confirm=policy.confirm,
            in_slack=policy.approve_in_slack,
            requester=record.requester,
            requester_may_approve=policy.requester_may_approve,
            where=policy.where,
            rule=ruled.name if ruled is not None else None,
            grant_ttl=self._policies.grant_ttl(record),
            forbids_always=self._policies.always_allow_forbidden(tools_of(record.questions)),
        )

    def settlement_of(self, record: AskRecord, part: int) -> Settlement:
        """What a part's message shows for `record` as it stands."""
        done = record.parts_done.get(part)
        answers = {a.id: a for a in record.answer.answers} if record.answer else {}
        if not record.settled and done is not None:
            return Settlement(
                Verdict.ANSWERED,
                at=done.at,
                actor=done.by,
                answers={a.id: a for a in done.answers},
                waiting=True,
            )
        return Settlement(
            record.ended_as or Verdict.FAILED,
            at=record.decided_at or self._clock.now(),
            actor=record.decided_by,
            answers=answers,
            reason=record.reason,
        )

    # --- posting ---------------------------------------------------------------------------

    async def post(
        self, record: AskRecord, layout: AskLayout, part: int, *, on: QueuedTurn | None = None
    ) -> str:
        """Post a part and return its ts (`on`: the turn of the queued work posting it). A
        post that failed in transit may still have reached Slack, so it is looked for
        before the failure stands."""
        try:
            return await self._post(record, layout, part, on)
        except SlackCallFailed as failed:
            if not failed.in_transit:
                raise
            # Slack may still be carrying the post out: look a few times before giving up.
            for pause in LOOK_AGAIN_AFTER:
                await asyncio.sleep(pause)
                found = await self.find(record, part)
                if found is not None:
                    return found
            raise

    async def _post(
        self, record: AskRecord, layout: AskLayout, part: int, on: QueuedTurn | None
    ) -> str:
        channel = record.channel
        assert channel is not None

        async def send() -> AsyncSlackResponse:
            # Rendered when its turn comes: a queued post holds no blocks, and shows the
            # ask as it is when posted.
            content = await self.open_view(record, layout, part)
            return await self.posts.client.chat_postMessage(
                channel=channel,
                thread_ts=record.thread_ts,
                text=content.text,
                blocks=content.blocks_json(),
                # Lets a restarted bot find a message it posted but never recorded.
                metadata={
                    "event_type": METADATA_EVENT,
                    "event_payload": {"ask_id": record.id, "part": part},
                },
                unfurl_links=False,
                unfurl_media=False,
            )

        response = await self.posts.pacing.send(
            channel,
            Turn.POST,
            send,
            key=record.id,
            agent=record.agent_id,  # the agents take turns in the channel
            order=record.created_at,
            on=on,
        )
        return str(response["ts"])

    async def find(self, record: AskRecord, part: int) -> str | None:
        """The ts of part `part` if Slack has it though we never recorded it (a crash, or a
        post that timed out), found by our message metadata among messages since the ask
        was created. `SlackCallFailed` when Slack cannot be asked: posting then would risk
        a second copy."""
        if record.channel is None:
            return None
        return await find_by_metadata(
            self.client,
            record.channel,
            METADATA_EVENT,
            {"ask_id": record.id, "part": part},
            thread_ts=record.thread_ts,
            oldest=f"{record.created_at - 1:.6f}",
        )

    # --- updating --------------------------------------------------------------------------

    async def show_decision(self, record: AskRecord, layout: AskLayout) -> bool:
        """Every posted part shows the decision; False if Slack refused an update."""
        shown = True
        for part in range(len(record.message_ts)):
            shown &= await self.update(record, part, await self.decided_view(record, layout, part))
        return shown

    async def update(self, record: AskRecord, part: int, content: MessageContent) -> bool:
        """chat.update one part's message; a failure is logged (False)."""
        if record.channel is None or part >= len(record.message_ts):
            return True
        try:
            await self.posts.update(
                channel=record.channel,
                ts=record.message_ts[part],
                text=content.text,
                blocks=content.blocks_json(),
            )
        except SlackCallFailed:
            log.exception("could not update the message of ask %s part %s", record.id, part)
            return False
        return True

    def queue_post(self, record: AskRecord, work: Work, spawn: Spawn) -> None:
        """Queue `work` (which posts the ask) in the ask's channel with no task of its own:
        it starts when the ask's turn comes, handed that turn for its first post (`post`'s
        `on`); the queued entry is keyed by the ask id, and takes turns with other agents'
        (its session's) asks."""
        assert record.channel is not None
        self.posts.pacing.queue(
            record.channel,
            Turn.POST,
            work,
            spawn=spawn,
            key=record.id,
            agent=record.agent_id,
            order=record.created_at,
        )

    def drop_queued(self, record: AskRecord) -> None:
        """Take the ask's waiting posts out of its channel's queue (it was settled)."""
        self.posts.pacing.drop(record.channel, record.id)

    # --- talking to people -----------------------------------------------------------------

    async def ephemeral(self, record: AskRecord, user: str, text: str) -> None:
        """Tell `user` alone, in the ask's thread; a failure is logged."""
        if record.channel is None:
            return
        try:
            await self.client.chat_postEphemeral(
                channel=record.channel, user=user, text=text, thread_ts=_thread_of(record)
            )
        except SlackCallFailed:
            log.exception("could not tell %s: %s", user, text)

    async def remind(self, record: AskRecord, text: str) -> bool:
        """Post a reminder in the ask's thread; False (logged) if Slack refused it."""
        if record.channel is None:
            return False
        try:
            await self.posts.post_message(
                Turn.POST,
                channel=record.channel,
                key=record.id,
                agent=record.agent_id,
                thread_ts=_thread_of(record),
                text=text,
            )
        except Dropped:
            return False  # the ask was settled while the reminder waited its turn
        except SlackCallFailed:
            log.exception("could not remind the reviewers of ask %s", record.id)
            return False
        return True

    # --- modals ----------------------------------------------------------------------------

    async def open_modal(
        self, record: AskRecord, user: str, trigger_id: str, view: View, *, push: bool
    ) -> None:
        """Open (or push onto an open modal) `view`; if Slack cannot, `user` is told."""
        try:
            if push:
                await self.client.views_push(trigger_id=trigger_id, view=view.to_dict())
            else:
                await self.client.views_open(trigger_id=trigger_id, view=view.to_dict())
        except SlackCallFailed as failed:
            log.warning("ask %s: %s", record.id, failed)
            await self.ephemeral(
                record, user, f"Slack could not open the form ({failed.error}); please try again."
            )

    async def update_modal(
        self, record: AskRecord, view_id: str, view_hash: str | None, view: View
    ) -> None:
        """Replace an open modal with `view` (a failure is logged)."""
        try:
            await self.client.views_update(view_id=view_id, hash=view_hash, view=view.to_dict())
        except SlackCallFailed as failed:
            log.warning("ask %s: %s", record.id, failed)


async def find_by_metadata(
    client: SlackClient,
    channel: str,
    event_type: str,
    payload: Mapping[str, str | int],
    *,
    thread_ts: str | None = None,
    oldest: str | None = None,
) -> str | None:
    """The ts of a message the bot posted but may not have recorded (an ask's part, a
    session's thread root), found by its metadata: `event_type`, with every field of
    `payload`. Looked for in `channel` (in `thread_ts`'s thread when given; since `oldest`
    when given), up to `FIND_PAGES` pages of 200. `SlackCallFailed` when Slack cannot be
    asked."""
    cursor: str | None = None
    for _ in range(FIND_PAGES):
        if thread_ts is not None:
            response = await client.conversations_replies(
                channel=channel,
                ts=thread_ts,
                oldest=oldest,
                include_all_metadata=True,
                limit=200,
                cursor=cursor,
            )
        else:
            response = await client.conversations_history(
                channel=channel,
                oldest=oldest,
                include_all_metadata=True,
                limit=200,
                cursor=cursor,
            )
        for message in response.get("messages") or []:
            meta = message.get("metadata") or {}
            found = meta.get("event_payload") or {}
            if meta.get("event_type") == event_type and all(
                found.get(name) == value for name, value in payload.items()
            ):
                return str(message["ts"])
        cursor = (response.get("response_metadata") or {}).get("next_cursor")
        if not cursor:
            return None
    return None


def _thread_of(record: AskRecord) -> str | None:
    # The ask's thread, or (top-level asks) the thread under its first message.
    return record.thread_ts or (record.message_ts[0] if record.message_ts else None)
