"""A file sent to a person, in their DM with the bot: Slack's external upload, step by step.

`files.getUploadURLExternal` gives a URL and a file id, the bytes are POSTed there, and
`files.completeUploadExternal` shares the file, `channels` naming the person's user id (Slack
takes user ids there and shares into the bot's DM with them). Scope: `files:write`.
"""

from __future__ import annotations

import aiohttp

from bot.slack.api import SlackCallFailed, SlackClient

UPLOAD: str = "files.upload"  # how a failed POST of the bytes is named (no Web API method)


async def send_file(
    client: SlackClient, user: str, *, filename: str, content: bytes, comment: str
) -> str:
    """Share `content` as `filename` in `user`'s DM with `comment`; the file's id.
    `SlackCallFailed` names the step that failed."""
    ticket = await client.files_getUploadURLExternal(filename=filename, length=len(content))
    upload_url, file_id = ticket.get("upload_url"), ticket.get("file_id")
    if not isinstance(upload_url, str) or not isinstance(file_id, str):
        raise SlackCallFailed("files.getUploadURLExternal", "no upload_url or file_id")
    session = client.session
    if session is None:
        raise SlackCallFailed(UPLOAD, "the client has no HTTP session")
    try:
        async with session.post(upload_url, data=content) as response:
            if response.status != 200:
                raise SlackCallFailed(UPLOAD, f"HTTP {response.status}", status=response.status)
    except (aiohttp.ClientError, TimeoutError) as error:
        raise SlackCallFailed(UPLOAD, repr(error), in_transit=True) from error
    await client.files_completeUploadExternal(
        files=[{"id": file_id, "title": filename}], channels=[user], initial_comment=comment
    )
    return file_id
