"""chat.postMessage, chat.update, chat.delete, chat.postEphemeral, chat.getPermalink."""

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
