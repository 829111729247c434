"""views.open, views.push, views.update, views.publish.

A view that breaks Block Kit's rules is refused with `invalid_arguments` and Slack's
`response_metadata.messages`. https://docs.slack.dev/reference/methods/views.open
"""

from __future__ import annotations

from slack_emulator.block_checks import check_view
from slack_emulator.slack_error import SlackError
from slack_emulator.slack_objects import View
from slack_emulator.web_api import MethodContext, Params
from slack_emulator.wire import JsonDict


def _checked_view(ctx: MethodContext, p: Params, *, view_type: str) -> JsonDict:
    view = p.json_object("view", error="invalid_arguments")
    if view is None:
        raise SlackError("invalid_arguments", messages=["[ERROR] missing required field: view"])
    ctx.refuse(check_view(view), error="invalid_arguments")
    if view.get("type") != view_type:
        raise SlackError(
            "invalid_arguments",
            messages=[f"[ERROR] must be `{view_type}` [json-pointer:/view/type]"],
        )
    return view


def _trigger_user(ctx: MethodContext, p: Params) -> str:
    trigger_id = p.optional("trigger_id")
    if trigger_id is None:
        raise SlackError(
            "invalid_arguments", messages=["[ERROR] missing required field: trigger_id"]
        )
    return ctx.triggers.exchange(trigger_id)


def open_view(ctx: MethodContext, p: Params) -> JsonDict:
    definition = _checked_view(ctx, p, view_type="modal")
    user_id = _trigger_user(ctx, p)
    return {"view": ctx.workspace.open_modal(user_id, definition).to_wire()}


def push(ctx: MethodContext, p: Params) -> JsonDict:
    definition = _checked_view(ctx, p, view_type="modal")
    user_id = _trigger_user(ctx, p)
    return {"view": ctx.workspace.push_modal(user_id, definition).to_wire()}


def _check_hash(view: View | None, p: Params) -> None:
    given = p.optional("hash")
    if view is not None and given is not None and given != view.hash:
        raise SlackError("hash_conflict")


def update(ctx: MethodContext, p: Params) -> JsonDict:
    view_id = p.optional("view_id")
    external_id = p.optional("external_id")
    if view_id is None and external_id is None:
        raise SlackError(
            "invalid_arguments", messages=["[ERROR] view_id or external_id is required"]
        )
    current = (
        ctx.workspace.view(view_id)
        if view_id is not None
        else ctx.workspace.view_by_external_id(external_id or "")
    )
    if current is None:
        raise SlackError("not_found")
    definition = _checked_view(ctx, p, view_type=current.type)
    _check_hash(current, p)
    return {"view": ctx.workspace.update_view(current, definition).to_wire()}


def publish(ctx: MethodContext, p: Params) -> JsonDict:
    user_id = p.optional("user_id")
    if user_id is None or user_id not in ctx.workspace.users:
        raise SlackError("invalid_arguments", messages=["invalid `user_id`"])
    definition = _checked_view(ctx, p, view_type="home")
    _check_hash(ctx.workspace.home(user_id), p)
    return {"view": ctx.workspace.publish_home(user_id, definition).to_wire()}
