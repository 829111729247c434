"""auth.test, users.info, usergroups.users.list, apps.connections.open."""

from __future__ import annotations

from slack_emulator.slack_error import SlackError
from slack_emulator.web_api import MethodContext, Params
from slack_emulator.wire import JsonDict


def auth_test(ctx: MethodContext, p: Params) -> JsonDict:
    app = ctx.app
    return {
        "url": app.workspace_url,
        "team": app.team_name,
        "user": app.bot_name,
        "team_id": app.team_id,
        "user_id": app.bot_user_id,
        "bot_id": app.bot_id,
        # Slack's own client types list app_id and app_name for a bot token's auth.test
        # (@slack/web-api AuthTestResponse); docs.slack.dev's sample omits them.
        "app_id": app.app_id,
        "app_name": app.bot_name,
        "is_enterprise_install": False,
    }


def users_info(ctx: MethodContext, p: Params) -> JsonDict:
    user_id = p.required("user", error="user_not_found")
    user = ctx.workspace.users.get(user_id)
    if user is None:
        raise SlackError("user_not_found")
    return {"user": user.to_wire(ctx.app.team_id)}


def usergroups_users_list(ctx: MethodContext, p: Params) -> JsonDict:
    group_id = p.required("usergroup", error="no_such_subteam")
    return {"users": list(ctx.workspace.group_members(group_id))}


def apps_connections_open(ctx: MethodContext, p: Params) -> JsonDict:
    """A one-time Socket Mode URL on this server. Requires the app-level (xapp-) token."""
    return {"url": ctx.socket_url()}
