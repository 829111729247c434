"""response_urls: where an app answers an interaction or a slash command after the ack.

Bolt's `respond()` POSTs JSON here. `replace_original` / `delete_original` act on the
message the person interacted with; otherwise a new message appears, ephemeral to the person
unless `response_type` is `in_channel`, in `thread_ts` if given. A response_url works up to
5 times within 30 minutes (Slack's guide to handling user interaction).
https://docs.slack.dev/messaging/modifying-messages
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from slack_emulator.block_checks import check_blocks
from slack_emulator.identity import AppIdentity
from slack_emulator.ids import Ids
from slack_emulator.records import ApiCall, BlockKitViolation, Recorder
from slack_emulator.slack_error import SlackError
from slack_emulator.timekeeping import Clock
from slack_emulator.wire import JsonDict
from slack_emulator.workspace import Workspace

MAX_USES: Final = 5
LIFETIME_SECONDS: Final = 30 * 60
PATH_PREFIX: Final = "/actions"


class ResponseMessage(BaseModel):
    """What an app may POST to a response_url."""

    model_config = ConfigDict(extra="allow")

    text: str = ""
    blocks: list[dict[str, Any]] | None = None
    response_type: Literal["ephemeral", "in_channel"] | None = None
    replace_original: bool | None = None
    delete_original: bool | None = None
    thread_ts: str | None = None


@dataclass
class _Grant:
    channel_id: str
    user_id: str
    message_ts: str | None
    """The message interacted with; None for slash commands."""
    ephemeral: bool
    issued_at: float
    uses: int = 0


@dataclass(frozen=True)
class ResponseUrlReply:
    status: int
    body: JsonDict


class ResponseUrls:
    def __init__(
        self, app: AppIdentity, ids: Ids, clock: Clock, workspace: Workspace, recorder: Recorder
    ) -> None:
        self._app = app
        self._ids = ids
        self._clock = clock
        self._workspace = workspace
        self._recorder = recorder
        self._grants: dict[str, _Grant] = {}
        self.base_url = ""

    def issue(
        self, *, channel_id: str, user_id: str, message_ts: str | None, ephemeral: bool
    ) -> str:
        key = f"{self._app.team_id}/{self._ids.secret()[:13]}/{self._ids.secret()}"
        self._grants[key] = _Grant(channel_id, user_id, message_ts, ephemeral, self._clock.now())
        return f"{self.base_url}{PATH_PREFIX}/{key}"

    def handle(self, key: str, body: object) -> ResponseUrlReply:
        params = body if isinstance(body, dict) else {"http_body": body}
        reply = self._answer(key, body)
        self._recorder.call(ApiCall("response_url", params, reply.body, reply.status))
        return reply

    def _answer(self, key: str, body: object) -> ResponseUrlReply:
        grant = self._grants.get(key)
        if grant is None or self._clock.now() - grant.issued_at > LIFETIME_SECONDS:
            return ResponseUrlReply(404, {"ok": False, "error": "expired_url"})
        if grant.uses >= MAX_USES:
            return ResponseUrlReply(404, {"ok": False, "error": "used_url"})
        try:
            message = ResponseMessage.model_validate(body)
        except ValidationError as error:
            return ResponseUrlReply(
                400, {"ok": False, "error": "invalid_payload", "detail": str(error)}
            )
        grant.uses += 1
        try:
            self._apply(grant, message)
        except SlackError as error:
            return ResponseUrlReply(400, error.to_wire())
        return ResponseUrlReply(200, {"ok": True})

    def _apply(self, grant: _Grant, message: ResponseMessage) -> None:
        workspace = self._workspace
        if message.blocks is not None:
            issues = check_blocks(message.blocks, surface="message")
            for issue in issues:
                self._recorder.violation(
                    BlockKitViolation("response_url", issue.rule, issue.pointer, issue.message)
                )
            if issues:
                raise SlackError("invalid_blocks", messages=[i.slack_message for i in issues])
        original = grant.message_ts
        if message.delete_original and original is not None:
            if grant.ephemeral:
                workspace.delete_ephemeral(grant.user_id, original)
            else:
                workspace.delete_message(grant.channel_id, original)
            return
        if message.replace_original and original is not None:
            if grant.ephemeral:
                workspace.replace_ephemeral(
                    grant.user_id, original, text=message.text, blocks=message.blocks
                )
            else:
                workspace.update_message(
                    grant.channel_id,
                    original,
                    text=message.text,
                    blocks=message.blocks if message.blocks is not None else [],
                    edited_by=self._app.bot_user_id,
                )
            return
        if message.response_type == "in_channel":
            workspace.post_message(
                grant.channel_id,
                user=self._app.bot_user_id,
                text=message.text,
                blocks=message.blocks,
                thread_ts=message.thread_ts,
            )
        else:
            workspace.post_ephemeral(
                grant.channel_id,
                user=grant.user_id,
                text=message.text,
                blocks=message.blocks,
                thread_ts=message.thread_ts,
            )
