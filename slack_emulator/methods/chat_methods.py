"""chat.postMessage, chat.update, chat.delete, chat.postEphemeral, chat.getPermalink, and
assistant.threads.setStatus (a thread's status line; chat:write in channels since 2026-03)."""

from __future__ import annotations

from slack_emulator.block_checks import check_blocks, check_message_text
from slack_emulator.slack_error import SlackError
from slack_emulator.slack_objects import Channel, Message
from slack_emulator.web_api import MethodContext, Params
from slack_emulator.wire import JsonDict


def bot_channel(ctx: MethodContext, ref: str | None) -> Channel:
    """The channel the bot acts in. Private channels the bot is not in do not exist for it;
    public ones it has not joined answer `not_in_channel` (no chat:write.public scope)."""
    channel = ctx.workspace.resolve_channel(ref) if ref else None
    if channel is None:
        raise SlackError("channel_not_found")
    if ctx.app.bot_user_id not in channel.members:
        raise SlackError("channel_not_found" if channel.is_private else "not_in_channel")
    return channel


def _content(
    ctx: MethodContext, p: Params
) -> tuple[str | None, list[JsonDict] | None, list[JsonDict] | None]:
    text = p.optional("text")
    blocks = p.json_list("blocks", error="invalid_blocks_format")
    attachments = p.json_list("attachments", error="invalid_attachments")
    if blocks is not None:
        ctx.refuse(check_blocks(blocks, surface="message"), error="invalid_blocks")
    if text is not None:
        ctx.refuse(check_message_text(text), error="msg_too_long")
    return text, blocks, attachments


def post_message(ctx: MethodContext, p: Params) -> JsonDict:
    channel = bot_channel(ctx, p.optional("channel"))
    text, blocks, attachments = _content(ctx, p)
    if not text and not blocks and not attachments:
        raise SlackError("no_text")
    message = ctx.workspace.post_message(
        channel.id,
        user=ctx.app.bot_user_id,
        text=text or "",
        blocks=blocks,
        attachments=attachments,
        thread_ts=p.optional("thread_ts"),
        reply_broadcast=p.flag("reply_broadcast"),
        metadata=p.json_object("metadata", error="invalid_metadata_format"),
    )
    return {"channel": channel.id, "ts": message.ts, "message": message.to_wire()}


def _own_message(ctx: MethodContext, channel: Channel, ts: str | None, refusal: str) -> Message:
    message = ctx.workspace.message(channel.id, ts) if ts else None
    if message is None:
        raise SlackError("message_not_found")
    if message.bot_id != ctx.app.bot_id:
        raise SlackError(refusal)
    return message


def update(ctx: MethodContext, p: Params) -> JsonDict:
    channel = bot_channel(ctx, p.optional("channel"))
    message = _own_message(ctx, channel, p.optional("ts"), "cant_update_message")
    text, blocks, attachments = _content(ctx, p)
    if text is None and blocks is None and attachments is None:
        raise SlackError("no_text")
    updated = ctx.workspace.update_message(
        channel.id,
        message.ts,
        text=text,
        blocks=blocks,
        attachments=attachments,
        metadata=p.json_object("metadata", error="invalid_metadata_format"),
        edited_by=ctx.app.bot_user_id,
    )
    return {
        "channel": channel.id,
        "ts": updated.ts,
        "text": updated.text,
        "message": updated.to_wire(),
    }


def delete(ctx: MethodContext, p: Params) -> JsonDict:
    channel = bot_channel(ctx, p.optional("channel"))
    message = _own_message(ctx, channel, p.optional("ts"), "cant_delete_message")
    ctx.workspace.delete_message(channel.id, message.ts)
    return {"channel": channel.id, "ts": message.ts}


def post_ephemeral(ctx: MethodContext, p: Params) -> JsonDict:
    channel = bot_channel(ctx, p.optional("channel"))
    user_id = p.required("user", error="user_not_found")
    if user_id not in ctx.workspace.users:
        raise SlackError("user_not_found")
    if user_id not in channel.members:
        raise SlackError("user_not_in_channel")
    text, blocks, _attachments = _content(ctx, p)
    if not text and not blocks:
        raise SlackError("no_text")
    ephemeral = ctx.workspace.post_ephemeral(
        channel.id, user=user_id, text=text or "", blocks=blocks, thread_ts=p.optional("thread_ts")
    )
    return {"message_ts": ephemeral.ts}


def get_permalink(ctx: MethodContext, p: Params) -> JsonDict:
    ref = p.optional("channel")
    channel = ctx.workspace.resolve_channel(ref) if ref else None
    if channel is None:
        raise SlackError("channel_not_found")
    ts = p.optional("message_ts")
    message = ctx.workspace.message(channel.id, ts) if ts else None
    if message is None:
        raise SlackError("message_not_found")
    permalink = f"{ctx.app.workspace_url}archives/{channel.id}/p{message.ts.replace('.', '')}"
    if message.is_reply:
        permalink += f"?thread_ts={message.thread_ts}&cid={channel.id}"
    return {"channel": channel.id, "permalink": permalink}


MAX_LOADING_MESSAGES = 10
"""assistant.threads.setStatus: loading_messages "Maximum of 10 messages"."""


def set_thread_status(ctx: MethodContext, p: Params) -> JsonDict:
    """assistant.threads.setStatus: the status line under a thread; "" clears it."""
    channel = bot_channel(ctx, p.optional("channel_id"))
    thread_ts = p.required("thread_ts", error="invalid_thread_ts")
    status = p.values.get("status")
    if not isinstance(status, str):
        raise SlackError("invalid_arguments", messages=["[ERROR] missing required field: status"])
    loading = p.values.get("loading_messages") or []
    if not isinstance(loading, list) or not all(isinstance(m, str) for m in loading):
        raise SlackError("invalid_arguments", messages=["[ERROR] loading_messages: strings"])
    if len(loading) > MAX_LOADING_MESSAGES:
        raise SlackError(
            "invalid_arguments",
            messages=[f"[ERROR] loading_messages: no more than {MAX_LOADING_MESSAGES} items"],
        )
    ctx.workspace.set_thread_status(channel.id, thread_ts, status, loading)
    return {}
