"""files.getUploadURLExternal and files.completeUploadExternal: uploads as Slack takes them
(slack_emulator/files.py has the steps)."""

from __future__ import annotations

import json

from slack_emulator.methods.chat_methods import bot_channel
from slack_emulator.slack_error import SlackError
from slack_emulator.web_api import MethodContext, Params
from slack_emulator.wire import JsonDict


def _missing(name: str) -> SlackError:
    return SlackError("invalid_arguments", messages=[f"[ERROR] missing required field: {name}"])


def get_upload_url_external(ctx: MethodContext, p: Params) -> JsonDict:
    filename = p.optional("filename")
    if filename is None:
        raise _missing("filename")
    if p.optional("length") is None:
        raise _missing("length")
    length = p.integer("length", 0)
    if length == 0:
        # Slack: "Typically only occurs when the `length` provided is 0."
        raise SlackError("missing_argument")
    if length < 0:
        raise SlackError("invalid_arguments", messages=["[ERROR] invalid `length`"])
    upload = ctx.files.ticket(filename, length)
    return {"upload_url": ctx.files.url(upload), "file_id": upload.id}


def complete_upload_external(ctx: MethodContext, p: Params) -> JsonDict:
    files = _file_list(p)
    uploads = []
    for item in files:
        upload = ctx.files.get(str(item.get("id", "")))
        if upload is None or upload.content is None or upload.completed:
            raise SlackError("file_not_found")
        uploads.append((upload, item.get("title")))
    channel_id = p.optional("channel_id")
    named = p.optional("channels")
    refs = [channel_id] if channel_id else [c for c in (named or "").split(",") if c]
    channels = [bot_channel(ctx, ref) for ref in refs]
    comment = p.optional("initial_comment")
    for upload, title in uploads:
        upload.title = title if isinstance(title, str) and title else upload.filename
        upload.channels = [channel.id for channel in channels]
        upload.comment = comment
        upload.completed = True
    shared: list[JsonDict] = []
    for channel in channels:
        message = ctx.workspace.post_message(
            channel.id,
            user=ctx.app.bot_user_id,
            text=comment or "",
            thread_ts=p.optional("thread_ts"),
        )
        for upload, _ in uploads:
            upload.shared_ts = message.ts
    for upload, _ in uploads:
        shared.append({"id": upload.id, "title": upload.title, "name": upload.filename})
    return {"files": shared}


def _file_list(p: Params) -> list[JsonDict]:
    raw = p.values.get("files")
    if raw is None or raw == "":
        raise _missing("files")
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            raise SlackError("invalid_arguments", messages=["[ERROR] files: not JSON"]) from None
    if not isinstance(raw, list) or not raw or not all(isinstance(f, dict) for f in raw):
        raise SlackError(
            "invalid_arguments", messages=["[ERROR] files: an array of {id, title} objects"]
        )
    return raw
