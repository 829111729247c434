"""The emulated workspace's state and the rules that keep it consistent, with no I/O.

People, conversations, messages (threads, edits, deletions), ephemeral messages, each
person's draft input, modal stacks and Home tabs. Web API handlers and people both change
the workspace only through these methods. Domain failures raise `SlackError` with the error
name Slack's docs give; the directory methods tests call raise `LookupError`/`ValueError`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Final

from slack_emulator import elements
from slack_emulator.agent_sessions import AgentSessions
from slack_emulator.changes import Changes
from slack_emulator.identity import AppIdentity
from slack_emulator.ids import Ids
from slack_emulator.slack_error import SlackError
from slack_emulator.slack_objects import (
    Channel,
    Edited,
    Ephemeral,
    Message,
    ThreadStatus,
    User,
    UserGroup,
    View,
    ViewType,
)
from slack_emulator.timekeeping import Clock
from slack_emulator.wire import JsonDict, StateValues, clone, clone_state

THREAD_STATUS_SECONDS: Final = 120.0
"""assistant.threads.setStatus: "A two minute timeout applies, which will cause the status to
be removed if no message has been sent."
https://docs.slack.dev/reference/methods/assistant.threads.setStatus
"""

MAX_VIEW_STACK: Final = 3
"""views.push: "push_limit_reached ... Currently the limit is 3."
https://docs.slack.dev/reference/methods/views.push
"""

_DraftKey = tuple[str, str, str]


class Workspace:
    """One workspace with one app installed; the bot user exists from the start."""

    def __init__(self, app: AppIdentity, ids: Ids, clock: Clock, changes: Changes) -> None:
        self._app = app
        self._ids = ids
        self._clock = clock
        self._changes = changes
        self.users: dict[str, User] = {}
        self.channels: dict[str, Channel] = {}
        self.usergroups: dict[str, UserGroup] = {}
        self._messages: dict[str, dict[str, Message]] = {}
        self._ephemerals: dict[str, list[Ephemeral]] = {}
        self._drafts: dict[_DraftKey, StateValues] = {}
        self._modals: dict[str, list[View]] = {}
        self._homes: dict[str, View] = {}
        self._thread_statuses: dict[tuple[str, str], ThreadStatus] = {}
        self.agent_sessions = AgentSessions(changes, clock)
        """Agent sessions (agents.sessions.setStatus), and whether the app is an agent."""
        self.add_user(app.bot_user_id, name=app.bot_name, real_name=app.bot_name, is_bot=True)

    # directory ----------------------------------------------------------------------

    def add_user(
        self,
        user_id: str,
        *,
        name: str,
        real_name: str = "",
        display_name: str = "",
        email: str | None = None,
        is_bot: bool = False,
        tz: str = "Europe/Berlin",
    ) -> User:
        user = User(user_id, name, real_name, display_name, email, is_bot, tz)
        self.users[user_id] = user
        self._changes.notify()
        return user

    def add_channel(
        self,
        channel_id: str,
        *,
        name: str,
        members: Iterable[str] = (),
        is_private: bool = False,
    ) -> Channel:
        member_ids = tuple(dict.fromkeys(members))
        for member in member_ids:
            self.user(member)
        channel = Channel(channel_id, name.lstrip("#"), member_ids, is_private)
        self.channels[channel_id] = channel
        self._messages.setdefault(channel_id, {})
        self._changes.notify()
        return channel

    def add_usergroup(
        self, group_id: str, *, handle: str, users: Iterable[str] = (), name: str | None = None
    ) -> UserGroup:
        user_ids = tuple(dict.fromkeys(users))
        for user_id in user_ids:
            self.user(user_id)
        group = UserGroup(group_id, handle, name or handle, user_ids)
        self.usergroups[group_id] = group
        self._changes.notify()
        return group

    def add_member(self, channel_id: str, user_id: str) -> Channel:
        channel = self.channel(channel_id)
        self.user(user_id)
        if user_id not in channel.members:
            channel = dataclasses.replace(channel, members=(*channel.members, user_id))
            self.channels[channel_id] = channel
            self._changes.notify()
        return channel

    def remove_member(self, channel_id: str, user_id: str) -> Channel:
        channel = self.channel(channel_id)
        members = tuple(member for member in channel.members if member != user_id)
        channel = dataclasses.replace(channel, members=members)
        self.channels[channel_id] = channel
        self._changes.notify()
        return channel

    def user(self, user_id: str) -> User:
        user = self.users.get(user_id)
        if user is None:
            known = ", ".join(f"{u.id} ({u.name})" for u in self.users.values())
            raise LookupError(f"no user {user_id!r}; users: {known}")
        return user

    def channel(self, channel_id: str) -> Channel:
        channel = self.channels.get(channel_id)
        if channel is None:
            known = ", ".join(f"{c.id} (#{c.name})" for c in self.channels.values()) or "none"
            raise LookupError(f"no channel {channel_id!r}; channels: {known}")
        return channel

    def resolve_channel(self, ref: str) -> Channel | None:
        """A channel by id, by name ("agent-questions" or "#agent-questions"), or the bot's
        DM with a user when given a user id, as chat.postMessage accepts."""
        if ref in self.channels:
            return self.channels[ref]
        name = ref.lstrip("#")
        for channel in self.channels.values():
            if not channel.is_im and channel.name == name:
                return channel
        if ref in self.users:
            return self.im_channel(ref)
        return None

    def im_channel(self, user_id: str) -> Channel:
        """The DM between the bot and `user_id`, opened on first use."""
        channel_id = "D" + user_id.lstrip("UW")[:9].rjust(9, "0")
        channel = self.channels.get(channel_id)
        if channel is None:
            channel = Channel(
                channel_id,
                channel_id,
                (user_id, self._app.bot_user_id),
                is_private=True,
                is_im=True,
            )
            self.channels[channel_id] = channel
            self._messages.setdefault(channel_id, {})
        return channel

    def group_members(self, group_id: str) -> tuple[str, ...]:
        group = self.usergroups.get(group_id)
        if group is None:
            raise SlackError("no_such_subteam")
        return group.users

    # messages -------------------------------------------------------------------------

    def message(self, channel_id: str, ts: str) -> Message | None:
        return self._messages.get(channel_id, {}).get(ts)

    def channel_messages(self, channel_id: str) -> list[Message]:
        return [m for m in self._messages.get(channel_id, {}).values() if m.is_top_level]

    def thread(self, channel_id: str, thread_ts: str) -> list[Message]:
        root = self.message(channel_id, thread_ts)
        if root is None:
            return []
        replies = [
            m
            for m in self._messages.get(channel_id, {}).values()
            if m.is_reply and m.thread_ts == root.ts
        ]
        return [root, *replies]

    def post_message(
        self,
        channel_id: str,
        *,
        user: str,
        text: str,
        blocks: list[JsonDict] | None = None,
        attachments: list[JsonDict] | None = None,
        as_bot: bool = True,
        thread_ts: str | None = None,
        reply_broadcast: bool = False,
        metadata: JsonDict | None = None,
        client_msg_id: str | None = None,
    ) -> Message:
        root = self._thread_root(channel_id, thread_ts) if thread_ts is not None else None
        message = Message(
            channel=channel_id,
            ts=self._ids.ts(),
            text=text,
            user=user,
            team=self._app.team_id,
            blocks=self._normalize(blocks or []),
            attachments=[clone(a) for a in attachments or []],
            bot_id=self._app.bot_id if as_bot else None,
            app_id=self._app.app_id if as_bot else None,
            thread_ts=root.ts if root is not None else None,
            parent_user_id=root.user if root is not None else None,
            metadata=clone(metadata) if metadata is not None else None,
            subtype="thread_broadcast" if root is not None and reply_broadcast else None,
            client_msg_id=client_msg_id,
        )
        self._messages.setdefault(channel_id, {})[message.ts] = message
        if root is not None and as_bot:
            # "The status will be automatically cleared when the app sends a reply."
            self._thread_statuses.pop((channel_id, root.ts), None)
        if root is not None:
            self._store(
                dataclasses.replace(
                    root,
                    thread_ts=root.ts,
                    reply_count=root.reply_count + 1,
                    reply_users=tuple(dict.fromkeys((*root.reply_users, user))),
                    latest_reply=message.ts,
                )
            )
        self._changes.notify()
        return message

    def update_message(
        self,
        channel_id: str,
        ts: str,
        *,
        text: str | None,
        blocks: list[JsonDict] | None,
        attachments: list[JsonDict] | None = None,
        metadata: JsonDict | None = None,
        edited_by: str,
    ) -> Message:
        """chat.update semantics: omitted fields stay, the message is marked edited."""
        current = self._existing(channel_id, ts)
        updated = dataclasses.replace(
            current,
            text=text if text is not None else current.text,
            blocks=self._normalize(blocks) if blocks is not None else current.blocks,
            attachments=[clone(a) for a in attachments]
            if attachments is not None
            else current.attachments,
            metadata=clone(metadata) if metadata is not None else current.metadata,
            edited=Edited(edited_by, self._ids.ts()),
        )
        self._store(updated)
        self._carry_drafts(channel_id, ts, updated.blocks)
        self._changes.notify()
        return updated

    def delete_message(self, channel_id: str, ts: str) -> None:
        """A thread root with replies becomes a tombstone, as in Slack; anything else goes."""
        current = self._existing(channel_id, ts)
        channel_messages = self._messages[channel_id]
        if current.is_reply and current.thread_ts is not None:
            del channel_messages[ts]
            root = channel_messages.get(current.thread_ts)
            if root is not None:
                replies = [m for m in self.thread(channel_id, root.ts)[1:]]
                self._store(
                    dataclasses.replace(
                        root,
                        reply_count=len(replies),
                        reply_users=tuple(dict.fromkeys(m.user for m in replies)),
                        latest_reply=replies[-1].ts if replies else None,
                    )
                )
        elif current.reply_count:
            self._store(
                dataclasses.replace(
                    current, text="This message was deleted.", blocks=[], subtype="tombstone"
                )
            )
        else:
            del channel_messages[ts]
        self._changes.notify()

    def _existing(self, channel_id: str, ts: str) -> Message:
        message = self.message(channel_id, ts)
        if message is None:
            raise SlackError("message_not_found")
        return message

    def _thread_root(self, channel_id: str, thread_ts: str) -> Message:
        root = self.message(channel_id, thread_ts)
        if root is None:
            raise SlackError("thread_not_found")
        if root.is_reply and root.thread_ts is not None:
            # "Avoid using a reply's ts value; use its parent instead." Slack threads it anyway.
            return self._existing(channel_id, root.thread_ts)
        return root

    def _store(self, message: Message) -> None:
        self._messages[message.channel][message.ts] = message

    def _normalize(self, blocks: list[JsonDict]) -> list[JsonDict]:
        return elements.normalize_blocks(blocks, new_id=self._ids.block_id)

    # thread status lines ------------------------------------------------------------

    def set_thread_status(
        self, channel_id: str, thread_ts: str, status: str, loading_messages: Iterable[str] = ()
    ) -> None:
        """The app's status line in a thread; an empty `status` clears it."""
        root = self.message(channel_id, thread_ts)
        if root is None:
            raise SlackError("invalid_thread_ts")
        key = (channel_id, root.thread_ts or root.ts)
        if status:
            self._thread_statuses[key] = ThreadStatus(
                channel_id, key[1], status, tuple(loading_messages), self._clock.now()
            )
        else:
            self._thread_statuses.pop(key, None)
        self._changes.notify()

    def thread_status(self, channel_id: str, thread_ts: str) -> ThreadStatus | None:
        """The thread's status line now, or None (never set, cleared, or timed out)."""
        found = self._thread_statuses.get((channel_id, thread_ts))
        if found is None or self._clock.now() - found.set_at >= THREAD_STATUS_SECONDS:
            return None
        return found

    # ephemeral messages -------------------------------------------------------------

    def post_ephemeral(
        self,
        channel_id: str,
        *,
        user: str,
        text: str,
        blocks: list[JsonDict] | None = None,
        thread_ts: str | None = None,
    ) -> Ephemeral:
        ephemeral = Ephemeral(
            channel_id, user, self._ids.ts(), text, self._normalize(blocks or []), thread_ts
        )
        self._ephemerals.setdefault(user, []).append(ephemeral)
        self._changes.notify()
        return ephemeral

    def ephemerals(self, user_id: str) -> list[Ephemeral]:
        return list(self._ephemerals.get(user_id, []))

    def ephemeral(self, user_id: str, ts: str) -> Ephemeral | None:
        return next((e for e in self._ephemerals.get(user_id, []) if e.ts == ts), None)

    def replace_ephemeral(
        self, user_id: str, ts: str, *, text: str, blocks: list[JsonDict] | None
    ) -> Ephemeral:
        items = self._ephemerals.get(user_id, [])
        for index, ephemeral in enumerate(items):
            if ephemeral.ts == ts:
                items[index] = dataclasses.replace(
                    ephemeral, text=text, blocks=self._normalize(blocks or [])
                )
                self._carry_drafts(ephemeral.channel, ts, items[index].blocks)
                self._changes.notify()
                return items[index]
        raise SlackError("message_not_found")

    def delete_ephemeral(self, user_id: str, ts: str) -> None:
        items = self._ephemerals.get(user_id, [])
        self._ephemerals[user_id] = [e for e in items if e.ts != ts]
        self._changes.notify()

    # drafts: what a person has entered but not yet sent ------------------------------

    def draft(self, user_id: str, channel_id: str, ts: str, blocks: list[JsonDict]) -> StateValues:
        key = (user_id, channel_id, ts)
        if key not in self._drafts:
            self._drafts[key] = elements.initial_state(blocks)
        return clone_state(self._drafts[key])

    def set_draft(self, user_id: str, channel_id: str, ts: str, values: StateValues) -> None:
        self._drafts[(user_id, channel_id, ts)] = clone_state(values)
        self._changes.notify()

    def _carry_drafts(self, channel_id: str, ts: str, blocks: list[JsonDict]) -> None:
        for key, values in self._drafts.items():
            if key[1:] == (channel_id, ts):
                self._drafts[key] = elements.carry_over(values, blocks)

    # views --------------------------------------------------------------------------

    def modal_stack(self, user_id: str) -> list[View]:
        return list(self._modals.get(user_id, []))

    def home(self, user_id: str) -> View | None:
        return self._homes.get(user_id)

    def view(self, view_id: str) -> View | None:
        for stack in self._modals.values():
            for view in stack:
                if view.id == view_id:
                    return view
        return next((v for v in self._homes.values() if v.id == view_id), None)

    def view_by_external_id(self, external_id: str) -> View | None:
        views = [*(v for stack in self._modals.values() for v in stack), *self._homes.values()]
        return next((v for v in views if v.external_id == external_id), None)

    def open_modal(self, user_id: str, definition: JsonDict) -> View:
        """views.open: the new view becomes the root of the person's modal stack."""
        self._claim_external_id(definition, None)
        view = self._build_view(user_id, definition, view_type="modal")
        self._modals[user_id] = [view]
        self._changes.notify()
        return view

    def push_modal(self, user_id: str, definition: JsonDict) -> View:
        stack = self._modals.get(user_id, [])
        if not stack:
            raise SlackError("not_found")
        if len(stack) >= MAX_VIEW_STACK:
            raise SlackError("push_limit_reached")
        self._claim_external_id(definition, None)
        view = self._build_view(
            user_id,
            definition,
            view_type="modal",
            root_view_id=stack[0].id,
            previous_view_id=stack[-1].id,
        )
        stack.append(view)
        self._changes.notify()
        return view

    def update_view(self, view: View, definition: JsonDict) -> View:
        """views.update / response_action update: same id, new content and hash; input kept
        where block_id and action_id are unchanged."""
        self._claim_external_id(definition, view.id)
        updated = self._build_view(
            view.user_id,
            definition,
            view_type=view.type,
            view_id=view.id,
            root_view_id=view.root_view_id,
            previous_view_id=view.previous_view_id,
            previous_state=view.state,
        )
        self.replace_view(updated)
        return updated

    def publish_home(self, user_id: str, definition: JsonDict) -> View:
        current = self._homes.get(user_id)
        self._claim_external_id(definition, current.id if current else None)
        view = self._build_view(
            user_id,
            definition,
            view_type="home",
            view_id=current.id if current else None,
            previous_state=current.state if current else None,
        )
        self._homes[user_id] = view
        self._changes.notify()
        return view

    def replace_view(self, view: View) -> None:
        """Store a changed view (new state, errors or content) in place."""
        if view.type == "home":
            self._homes[view.user_id] = view
        else:
            stack = self._modals.get(view.user_id, [])
            for index, current in enumerate(stack):
                if current.id == view.id:
                    stack[index] = view
        self._changes.notify()

    def close_top(self, user_id: str) -> View | None:
        stack = self._modals.get(user_id, [])
        closed = stack.pop() if stack else None
        self._changes.notify()
        return closed

    def close_view(self, user_id: str, view_id: str) -> View | None:
        """Close one view of a person's stack (normally the top one)."""
        stack = self._modals.get(user_id, [])
        closed = next((v for v in stack if v.id == view_id), None)
        if closed is not None:
            stack.remove(closed)
            self._changes.notify()
        return closed

    def close_all(self, user_id: str) -> list[View]:
        closed = self._modals.pop(user_id, [])
        self._changes.notify()
        return closed

    def _claim_external_id(self, definition: JsonDict, own_view_id: str | None) -> None:
        external_id = definition.get("external_id")
        if external_id:
            holder = self.view_by_external_id(str(external_id))
            if holder is not None and holder.id != own_view_id:
                raise SlackError("duplicate_external_id")

    def _build_view(
        self,
        user_id: str,
        definition: JsonDict,
        *,
        view_type: ViewType,
        view_id: str | None = None,
        root_view_id: str | None = None,
        previous_view_id: str | None = None,
        previous_state: StateValues | None = None,
    ) -> View:
        blocks = self._normalize(list(definition.get("blocks") or []))
        state = (
            elements.carry_over(previous_state, blocks)
            if previous_state is not None
            else elements.initial_state(blocks)
        )

        def text_object(name: str) -> JsonDict | None:
            value = definition.get(name)
            return elements.normalize_text_object(value) if isinstance(value, dict) else None

        new_id = view_id or self._ids.view_id()
        return View(
            id=new_id,
            user_id=user_id,
            type=view_type,
            team_id=self._app.team_id,
            app_id=self._app.app_id,
            bot_id=self._app.bot_id,
            hash=self._ids.view_hash(),
            blocks=blocks,
            title_object=text_object("title"),
            submit_object=text_object("submit"),
            close_object=text_object("close"),
            private_metadata=str(definition.get("private_metadata") or ""),
            callback_id=str(definition.get("callback_id") or ""),
            external_id=str(definition.get("external_id") or ""),
            clear_on_close=definition.get("clear_on_close") is True,
            notify_on_close=definition.get("notify_on_close") is True,
            state=state,
            root_view_id=root_view_id or new_id,
            previous_view_id=previous_view_id,
        )
