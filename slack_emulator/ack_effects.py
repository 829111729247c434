"""What Slack does with an app's ack: `response_action`s of a view_submission, and the
message an app may put in a slash command's ack.

Only acks within Slack's 3 s count; a late or failed ack leaves the view as it was, as
Slack shows the person an error instead.
https://docs.slack.dev/surfaces/modals
"""

from __future__ import annotations

import dataclasses
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from slack_emulator.block_checks import Issue, check_blocks, check_view
from slack_emulator.core import Core
from slack_emulator.records import BlockKitViolation, Delivery
from slack_emulator.slack_error import SlackError
from slack_emulator.slack_objects import Channel, User, View

VIEW_ACK = "view_submission.ack"
COMMAND_ACK = "slash_command.ack"


class ViewSubmissionAck(BaseModel):
    model_config = ConfigDict(extra="allow")

    response_action: Literal["errors", "update", "push", "clear"] | None = None
    errors: dict[str, str] | None = None
    view: dict[str, Any] | None = None


class CommandAck(BaseModel):
    model_config = ConfigDict(extra="allow")

    text: str = ""
    blocks: list[dict[str, Any]] | None = None
    response_type: Literal["ephemeral", "in_channel"] | None = None


def _violate(core: Core, method: str, issues: list[Issue]) -> bool:
    for issue in issues:
        core.recorder.violation(BlockKitViolation(method, issue.rule, issue.pointer, issue.message))
    return bool(issues)


def apply_view_submission_ack(core: Core, view: View, delivery: Delivery) -> None:
    """Apply the app's answer to submitting `view` (the top of its person's stack)."""
    if not delivery.in_time:
        return
    try:
        ack = ViewSubmissionAck.model_validate(delivery.ack or {})
    except ValidationError as error:
        _violate(core, VIEW_ACK, [Issue("response_action", "", f"unusable ack: {error}")])
        return
    workspace = core.workspace
    if ack.response_action is None:
        workspace.close_view(view.user_id, view.id)
    elif ack.response_action == "clear":
        workspace.close_all(view.user_id)
    elif ack.response_action == "errors":
        errors = ack.errors or {}
        input_ids = {b.get("block_id") for b in view.blocks if b.get("type") == "input"}
        unknown = [
            Issue("response_action.errors", f"/errors/{block_id}", "must name an input block_id")
            for block_id in errors
            if block_id not in input_ids
        ]
        if not _violate(core, VIEW_ACK, unknown):
            current = workspace.view(view.id)
            if current is not None:
                workspace.replace_view(_with_errors(current, errors))
    else:
        definition = ack.view
        issues = (
            check_view(definition, pointer="/view")
            if definition is not None
            else [Issue("required_field", "", "missing required field: view")]
        )
        if _violate(core, VIEW_ACK, issues) or definition is None:
            return
        try:
            if ack.response_action == "update":
                workspace.update_view(workspace.view(view.id) or view, definition)
            else:
                workspace.push_modal(view.user_id, definition)
        except SlackError as error:
            _violate(
                core, VIEW_ACK, [Issue(f"response_action.{ack.response_action}", "", error.code)]
            )


def _with_errors(view: View, errors: dict[str, str]) -> View:
    return dataclasses.replace(view, errors=dict(errors))


def apply_command_ack(core: Core, user: User, channel: Channel, delivery: Delivery) -> None:
    """A slash command's ack may carry a message: shown to the person, or in the channel."""
    if not delivery.in_time or not delivery.ack:
        return
    try:
        ack = CommandAck.model_validate(delivery.ack)
    except ValidationError as error:
        _violate(core, COMMAND_ACK, [Issue("ack", "", f"unusable ack: {error}")])
        return
    if not ack.text and not ack.blocks:
        return
    if ack.blocks is not None and _violate(
        core, COMMAND_ACK, check_blocks(ack.blocks, surface="message")
    ):
        return
    if ack.response_type == "in_channel":
        core.workspace.post_message(
            channel.id, user=core.app.bot_user_id, text=ack.text, blocks=ack.blocks
        )
    else:
        core.workspace.post_ephemeral(channel.id, user=user.id, text=ack.text, blocks=ack.blocks)
