"""The workspace's vocabulary: people, conversations, messages and views, as immutable values.

The workspace replaces a value when it changes, so a `Message` or `View` a test holds is a
snapshot; ask the emulator again (`emu.message(...)`, `emu.views(...)`) for the current one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from slack_emulator.wire import JsonDict, StateValues, clone, clone_list, clone_state


@dataclass(frozen=True)
class User:
    id: str
    name: str
    real_name: str = ""
    display_name: str = ""
    email: str | None = None
    is_bot: bool = False
    tz: str = "Europe/Berlin"
    deleted: bool = False

    def to_wire(self, team_id: str) -> JsonDict:
        """The `user` object of users.info."""
        profile: JsonDict = {
            "real_name": self.real_name,
            "real_name_normalized": self.real_name,
            "display_name": self.display_name,
            "display_name_normalized": self.display_name,
            "team": team_id,
        }
        if self.email is not None:
            profile["email"] = self.email
        return {
            "id": self.id,
            "team_id": team_id,
            "name": self.name,
            "deleted": self.deleted,
            "real_name": self.real_name,
            "tz": self.tz,
            "profile": profile,
            "is_admin": False,
            "is_owner": False,
            "is_bot": self.is_bot,
            "is_app_user": False,
        }


@dataclass(frozen=True)
class Channel:
    id: str
    name: str
    members: tuple[str, ...] = ()
    is_private: bool = False
    is_im: bool = False

    @property
    def channel_type(self) -> str:
        """The `channel_type` of message events."""
        if self.is_im:
            return "im"
        return "group" if self.is_private else "channel"


@dataclass(frozen=True)
class UserGroup:
    id: str
    handle: str
    name: str
    users: tuple[str, ...] = ()


@dataclass(frozen=True)
class Edited:
    user: str
    ts: str


@dataclass(frozen=True)
class ThreadStatus:
    """The app's status line in a thread ("<app name> <status>"), set by
    assistant.threads.setStatus."""

    channel: str
    thread_ts: str
    status: str
    loading_messages: tuple[str, ...]
    set_at: float
    """When it was set (the emulator's clock): Slack removes it two minutes later."""


@dataclass(frozen=True)
class Message:
    """A message in a channel, top-level or in a thread."""

    channel: str
    ts: str
    text: str
    user: str
    team: str
    blocks: list[JsonDict] = field(default_factory=list)
    attachments: list[JsonDict] = field(default_factory=list)
    bot_id: str | None = None
    app_id: str | None = None
    thread_ts: str | None = None
    parent_user_id: str | None = None
    reply_count: int = 0
    reply_users: tuple[str, ...] = ()
    latest_reply: str | None = None
    edited: Edited | None = None
    metadata: JsonDict | None = None
    subtype: str | None = None
    client_msg_id: str | None = None

    @property
    def is_reply(self) -> bool:
        return self.thread_ts is not None and self.thread_ts != self.ts

    @property
    def is_top_level(self) -> bool:
        return not self.is_reply or self.subtype == "thread_broadcast"

    def to_wire(self) -> JsonDict:
        """The message object of conversations.history/replies and interaction payloads."""
        wire: JsonDict = {"type": "message"}
        if self.subtype is not None:
            wire["subtype"] = self.subtype
        if self.bot_id is not None:
            wire["bot_id"] = self.bot_id
            wire["app_id"] = self.app_id
        wire.update(text=self.text, user=self.user, ts=self.ts, team=self.team)
        if self.client_msg_id is not None:
            wire["client_msg_id"] = self.client_msg_id
        if self.blocks:
            wire["blocks"] = clone_list(self.blocks)
        if self.attachments:
            wire["attachments"] = clone_list(self.attachments)
        if self.thread_ts is not None:
            wire["thread_ts"] = self.thread_ts
        if self.parent_user_id is not None:
            wire["parent_user_id"] = self.parent_user_id
        if self.reply_count:
            wire.update(
                reply_count=self.reply_count,
                reply_users_count=len(self.reply_users),
                latest_reply=self.latest_reply,
                reply_users=list(self.reply_users),
                is_locked=False,
                subscribed=False,
            )
        if self.edited is not None:
            wire["edited"] = {"user": self.edited.user, "ts": self.edited.ts}
        if self.metadata is not None:
            wire["metadata"] = clone(self.metadata)
        return wire


@dataclass(frozen=True)
class Ephemeral:
    """A message only `user` sees (chat.postEphemeral, or an ephemeral response_url reply)."""

    channel: str
    user: str
    ts: str
    text: str
    blocks: list[JsonDict] = field(default_factory=list)
    thread_ts: str | None = None


ViewType = Literal["modal", "home"]


@dataclass(frozen=True)
class View:
    """An open modal (one of a person's stack) or a person's Home tab."""

    id: str
    user_id: str
    type: ViewType
    team_id: str
    app_id: str
    bot_id: str
    hash: str
    blocks: list[JsonDict]
    title_object: JsonDict | None = None
    submit_object: JsonDict | None = None
    close_object: JsonDict | None = None
    private_metadata: str = ""
    callback_id: str = ""
    external_id: str = ""
    clear_on_close: bool = False
    notify_on_close: bool = False
    state: StateValues = field(default_factory=dict)
    """The person's current input: block_id -> action_id -> value, as in `state.values`."""
    errors: dict[str, str] = field(default_factory=dict)
    """What the app last answered with `response_action: errors` (block_id -> message)."""
    root_view_id: str | None = None
    previous_view_id: str | None = None

    @property
    def title(self) -> str | None:
        return _text_of(self.title_object)

    @property
    def submit(self) -> str | None:
        return _text_of(self.submit_object)

    @property
    def close(self) -> str | None:
        return _text_of(self.close_object)

    def to_wire(self) -> JsonDict:
        """The view object of views.* responses and of interaction payloads."""
        wire: JsonDict = {
            "id": self.id,
            "team_id": self.team_id,
            "type": self.type,
            "blocks": clone_list(self.blocks),
            "private_metadata": self.private_metadata,
            "callback_id": self.callback_id,
            "state": {"values": clone_state(self.state)},
            "hash": self.hash,
        }
        if self.title_object is not None:
            wire["title"] = clone(self.title_object)
        wire.update(
            clear_on_close=self.clear_on_close,
            notify_on_close=self.notify_on_close,
            close=clone(self.close_object) if self.close_object is not None else None,
            submit=clone(self.submit_object) if self.submit_object is not None else None,
            previous_view_id=self.previous_view_id,
            root_view_id=self.root_view_id or self.id,
            app_id=self.app_id,
            external_id=self.external_id,
            app_installed_team_id=self.team_id,
            bot_id=self.bot_id,
        )
        return wire


def _text_of(text_object: JsonDict | None) -> str | None:
    if text_object is None:
        return None
    text = text_object.get("text")
    return text if isinstance(text, str) else None
