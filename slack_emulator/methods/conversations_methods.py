"""conversations.history, conversations.replies, conversations.members (cursor-paginated).

https://docs.slack.dev/apis/web-api/pagination
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Final, TypeVar

from slack_emulator.slack_error import SlackError
from slack_emulator.slack_objects import Channel
from slack_emulator.web_api import MethodContext, Params
from slack_emulator.wire import JsonDict

T = TypeVar("T")

MAX_LIMIT: Final = 1000


def _page(items: Sequence[T], p: Params, *, default_limit: int) -> tuple[list[T], str]:
    """One page of `items` and the cursor to the next ("" at the end), as Slack does."""
    limit = max(1, min(p.integer("limit", default_limit), MAX_LIMIT))
    cursor = p.optional("cursor")
    start = 0
    if cursor is not None:
        try:
            kind, _, offset = base64.b64decode(cursor.encode()).decode().partition(":")
            start = int(offset)
            if kind != "next_offset" or start < 0:
                raise ValueError(cursor)
        except ValueError as exc:
            raise SlackError("invalid_cursor") from exc
    end = start + limit
    next_cursor = (
        base64.b64encode(f"next_offset:{end}".encode()).decode() if end < len(items) else ""
    )
    return list(items[start:end]), next_cursor


def _readable_channel(ctx: MethodContext, ref: str | None) -> Channel:
    channel = ctx.workspace.resolve_channel(ref) if ref else None
    if channel is None or (channel.is_private and ctx.app.bot_user_id not in channel.members):
        raise SlackError("channel_not_found")
    return channel


def _member_channel(ctx: MethodContext, ref: str | None) -> Channel:
    channel = _readable_channel(ctx, ref)
    if ctx.app.bot_user_id not in channel.members:
        raise SlackError("not_in_channel")
    return channel


def members(ctx: MethodContext, p: Params) -> JsonDict:
    channel = _readable_channel(ctx, p.optional("channel"))
    page, cursor = _page(channel.members, p, default_limit=100)
    return {"members": page, "response_metadata": {"next_cursor": cursor}}


def history(ctx: MethodContext, p: Params) -> JsonDict:
    channel = _member_channel(ctx, p.optional("channel"))
    newest_first = list(reversed(ctx.workspace.channel_messages(channel.id)))
    oldest, latest = p.optional("oldest"), p.optional("latest")
    inclusive = p.flag("inclusive")
    selected = [
        m
        for m in newest_first
        if (oldest is None or float(m.ts) > float(oldest) or (inclusive and m.ts == oldest))
        and (latest is None or float(m.ts) < float(latest) or (inclusive and m.ts == latest))
    ]
    page, cursor = _page(selected, p, default_limit=100)
    return {
        "messages": [m.to_wire() for m in page],
        "has_more": bool(cursor),
        "pin_count": 0,
        "response_metadata": {"next_cursor": cursor},
    }


def replies(ctx: MethodContext, p: Params) -> JsonDict:
    channel = _member_channel(ctx, p.optional("channel"))
    ts = p.required("ts", error="thread_not_found")
    message = ctx.workspace.message(channel.id, ts)
    if message is None:
        raise SlackError("thread_not_found")
    root_ts = message.thread_ts if message.is_reply and message.thread_ts else message.ts
    page, cursor = _page(ctx.workspace.thread(channel.id, root_ts), p, default_limit=1000)
    return {
        "messages": [m.to_wire() for m in page],
        "has_more": bool(cursor),
        "response_metadata": {"next_cursor": cursor},
    }
