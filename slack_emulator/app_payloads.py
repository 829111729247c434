"""The payloads Slack sends to an app, built from typed workspace values.

Shapes follow Slack's reference pages and the payloads recorded in slackapi/bolt-python's
tests: https://docs.slack.dev/reference/interaction-payloads/block_actions-payload,
https://api.slack.com/reference/interaction-payloads/views, https://docs.slack.dev/apis/events-api/
and, for slash commands, the form fields Bolt's tests replay.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from slack_emulator.elements import ElementRef
from slack_emulator.identity import AppIdentity
from slack_emulator.slack_objects import Channel, Ephemeral, Message, User, View
from slack_emulator.wire import JsonDict, StateValues, clone, clone_state

# Envelope types of Socket Mode, by the kind of payload they carry.
# https://docs.slack.dev/apis/events-api/using-socket-mode
INTERACTIVE: Final = "interactive"
EVENTS_API: Final = "events_api"
SLASH_COMMANDS: Final = "slash_commands"


def user_ref(user: User, app: AppIdentity) -> JsonDict:
    return {"id": user.id, "username": user.name, "name": user.name, "team_id": app.team_id}


def team_ref(app: AppIdentity) -> JsonDict:
    return {"id": app.team_id, "domain": app.team_domain}


def action(ref: ElementRef, value: JsonDict | None, action_ts: str) -> JsonDict:
    """One entry of `actions`: the element's identity plus what the person did with it."""
    element = ref.element
    entry: JsonDict = {"action_id": ref.action_id, "block_id": ref.block_id}
    if ref.type in ("button", "workflow_button"):
        entry["text"] = clone(element["text"])
        if element.get("value") is not None:
            entry["value"] = element["value"]
        for name in ("style", "url"):
            if element.get(name) is not None:
                entry[name] = element[name]
    entry["type"] = ref.type
    if value is not None:
        entry.update({k: v for k, v in value.items() if k != "type"})
    if element.get("placeholder") is not None:
        entry["placeholder"] = clone(element["placeholder"])
    entry["action_ts"] = action_ts
    return entry


@dataclass(frozen=True)
class MessageContext:
    """The message (or ephemeral message) a person interacted with."""

    channel: Channel
    ts: str
    message: Message | None
    """None for an ephemeral message: Slack does not echo those back."""
    thread_ts: str | None

    @staticmethod
    def of(channel: Channel, target: Message | Ephemeral) -> MessageContext:
        if isinstance(target, Message):
            return MessageContext(
                channel, target.ts, target, target.thread_ts if target.is_reply else None
            )
        return MessageContext(channel, target.ts, None, target.thread_ts)

    def container(self) -> JsonDict:
        container: JsonDict = {
            "type": "message",
            "message_ts": self.ts,
            "channel_id": self.channel.id,
            "is_ephemeral": self.message is None,
        }
        if self.thread_ts is not None:
            container["thread_ts"] = self.thread_ts
        return container


def block_actions_on_message(
    *,
    app: AppIdentity,
    user: User,
    where: MessageContext,
    state: StateValues,
    actions: list[JsonDict],
    trigger_id: str,
    response_url: str,
) -> JsonDict:
    payload: JsonDict = {
        "type": "block_actions",
        "user": user_ref(user, app),
        "api_app_id": app.app_id,
        "token": app.verification_token,
        "container": where.container(),
        "trigger_id": trigger_id,
        "team": team_ref(app),
        "enterprise": None,
        "is_enterprise_install": False,
        "channel": {"id": where.channel.id, "name": where.channel.name},
    }
    if where.message is not None:
        payload["message"] = where.message.to_wire()
    payload.update(state={"values": clone_state(state)}, response_url=response_url, actions=actions)
    return payload


def block_actions_on_view(
    *, app: AppIdentity, user: User, view: View, actions: list[JsonDict], trigger_id: str
) -> JsonDict:
    return {
        "type": "block_actions",
        "user": user_ref(user, app),
        "api_app_id": app.app_id,
        "token": app.verification_token,
        "container": {"type": "view", "view_id": view.id},
        "trigger_id": trigger_id,
        "team": team_ref(app),
        "enterprise": None,
        "is_enterprise_install": False,
        "view": view.to_wire(),
        "actions": actions,
    }


def view_submission(*, app: AppIdentity, user: User, view: View, trigger_id: str) -> JsonDict:
    return {
        "type": "view_submission",
        "team": team_ref(app),
        "user": user_ref(user, app),
        "api_app_id": app.app_id,
        "token": app.verification_token,
        "trigger_id": trigger_id,
        "view": view.to_wire(),
        "response_urls": [],
        "is_enterprise_install": False,
        "enterprise": None,
    }


def view_closed(*, app: AppIdentity, user: User, view: View, is_cleared: bool) -> JsonDict:
    return {
        "type": "view_closed",
        "team": team_ref(app),
        "user": user_ref(user, app),
        "api_app_id": app.app_id,
        "token": app.verification_token,
        "view": view.to_wire(),
        "is_cleared": is_cleared,
        "is_enterprise_install": False,
        "enterprise": None,
    }


def event_callback(
    *, app: AppIdentity, event: JsonDict, event_id: str, event_time: int
) -> JsonDict:
    """The Events API envelope around one event."""
    return {
        "token": app.verification_token,
        "team_id": app.team_id,
        "context_team_id": app.team_id,
        "context_enterprise_id": None,
        "api_app_id": app.app_id,
        "event": event,
        "type": "event_callback",
        "event_id": event_id,
        "event_time": event_time,
        "authorizations": [
            {
                "enterprise_id": None,
                "team_id": app.team_id,
                "user_id": app.bot_user_id,
                "is_bot": True,
                "is_enterprise_install": False,
            }
        ],
        "is_ext_shared_channel": False,
        "event_context": f"4-{event_id}",
    }


def message_event(message: Message, channel: Channel) -> JsonDict:
    """A `message` event for a person's message, e.g. a reply in a thread."""
    event = message.to_wire()
    event.update(channel=channel.id, event_ts=message.ts, channel_type=channel.channel_type)
    return event


def app_home_opened_event(
    *, user: User, channel: Channel, view: View | None, event_ts: str
) -> JsonDict:
    event: JsonDict = {
        "type": "app_home_opened",
        "user": user.id,
        "channel": channel.id,
        "tab": "home",
        "event_ts": event_ts,
    }
    if view is not None:
        event["view"] = view.to_wire()
    return event


def agent_session_stopped_event(
    *, user: User, channel: Channel, thread_ts: str, event_ts: str
) -> JsonDict:
    """`agent_session_stopped`: a person pressed Stop on the app's processing session. No
    stream of ours is ever in progress, so `streaming_message_ts` is empty ("It is an empty
    array when no stream was active")."""
    return {
        "type": "agent_session_stopped",
        "channel": channel.id,
        "user": user.id,
        "thread_ts": thread_ts,
        "streaming_message_ts": [],
        "event_ts": event_ts,
    }


def slash_command(
    *,
    app: AppIdentity,
    user: User,
    channel: Channel,
    command: str,
    text: str,
    response_url: str,
    trigger_id: str,
) -> dict[str, str]:
    """The form fields of a slash command request."""
    return {
        "token": app.verification_token,
        "team_id": app.team_id,
        "team_domain": app.team_domain,
        "channel_id": channel.id,
        "channel_name": "directmessage" if channel.is_im else channel.name,
        "user_id": user.id,
        "user_name": user.name,
        "command": command,
        "text": text,
        "api_app_id": app.app_id,
        "is_enterprise_install": "false",
        "response_url": response_url,
        "trigger_id": trigger_id,
    }


_TYPED_MENTION = re.compile(r"(?<![<\w])@([a-z0-9][a-z0-9._-]*)")


def escaped_mentions(text: str, users: Iterable[User]) -> str:
    """A slash command's text as Slack sends it with `should_escape` on: each `@name` of a
    workspace member becomes `<@U…|name>`; any other `@word` stays as typed."""
    by_name = {user.name: user.id for user in users if not user.deleted}

    def escape(found: re.Match[str]) -> str:
        user_id = by_name.get(found.group(1))
        return found.group(0) if user_id is None else f"<@{user_id}|{found.group(1)}>"

    return _TYPED_MENTION.sub(escape, text)


def rich_text_blocks(text: str, block_id: str) -> list[JsonDict]:
    """The rich_text block Slack's clients attach to a message a person types."""
    return [
        {
            "type": "rich_text",
            "block_id": block_id,
            "elements": [
                {"type": "rich_text_section", "elements": [{"type": "text", "text": text}]}
            ],
        }
    ]


def envelope(
    *, envelope_id: str, envelope_type: str, payload: JsonDict, accepts_response_payload: bool
) -> JsonDict:
    """A Socket Mode envelope; events carry retry fields, as Slack's do."""
    wrapped: JsonDict = {
        "envelope_id": envelope_id,
        "payload": payload,
        "type": envelope_type,
        "accepts_response_payload": accepts_response_payload,
    }
    if envelope_type == EVENTS_API:
        wrapped.update(retry_attempt=0, retry_reason="")
    return wrapped


def hello(*, app: AppIdentity, num_connections: int) -> JsonDict:
    return {
        "type": "hello",
        "num_connections": num_connections,
        "debug_info": {
            "host": "applink-emulator",
            "build_number": 1,
            "approximate_connection_time": 18060,
        },
        "connection_info": {"app_id": app.app_id},
    }


def disconnect(reason: str) -> JsonDict:
    return {"type": "disconnect", "reason": reason, "debug_info": {"host": "applink-emulator"}}
