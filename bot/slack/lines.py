"""Lines the bot leaves in a thread that are no ask's message: posted in the channel's turn,
and found again by their metadata after a crash (so a line is never posted twice)."""

from __future__ import annotations

from typing import Final

from bot.render import MessageContent
from bot.slack.messages import find_by_metadata
from bot.slack.pacing import ChannelPosts, QueuedTurn, Spawn, Turn, Work
from bot.store import AskRecord, ThreadRef

# Lets a restarted (or another) replica find a line it posted but never recorded.
LINE_METADATA_EVENT: Final = "slack_questions_line"


class ThreadLines:
    """Posts an ask's one line (an automatic decision told) in its thread, and finds it."""

    def __init__(self, posts: ChannelPosts) -> None:
        self._posts = posts

    def queue(self, record: AskRecord, where: ThreadRef, work: Work, spawn: Spawn) -> None:
        """Queue `work` (which posts the ask's line, `post(..., on=turn)`) in `where`'s lane
        with no task of its own: it starts when its turn comes, behind the posts of the same
        agent made before the ask (`order`: its creation)."""
        self._posts.pacing.queue(
            where.channel,
            Turn.POST,
            work,
            spawn=spawn,
            key=record.id,
            agent=record.agent_id,  # the agents take turns in the channel
            order=record.created_at,
        )

    async def post(
        self,
        record: AskRecord,
        where: ThreadRef,
        content: MessageContent,
        *,
        on: QueuedTurn | None = None,
    ) -> str:
        """Post `content` in `where` (at once on `on`, the turn of the queued work posting
        it; else when the channel's turn comes); its ts. `Dropped` when shutdown began while
        it waited; `SlackCallFailed` as Slack refused it."""
        response = await self._posts.post_message(
            Turn.POST,
            channel=where.channel,
            key=record.id,
            agent=record.agent_id,
            order=record.created_at,
            on=on,
            thread_ts=where.thread_ts,
            text=content.text,
            blocks=content.blocks_json(),
            metadata={"event_type": LINE_METADATA_EVENT, "event_payload": {"ask_id": record.id}},
            unfurl_links=False,
            unfurl_media=False,
        )
        return str(response["ts"])

    async def find(self, record: AskRecord, where: ThreadRef) -> str | None:
        """The ts of the ask's line if Slack has it though it was never recorded (a crash
        between the post and its record). `SlackCallFailed` when Slack cannot be asked."""
        return await find_by_metadata(
            self._posts.client,
            where.channel,
            LINE_METADATA_EVENT,
            {"ask_id": record.id},
            thread_ts=where.thread_ts,
            oldest=f"{record.created_at - 1:.6f}",
        )
