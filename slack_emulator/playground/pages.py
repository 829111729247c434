"""The playground page: the emulated workspace as one person sees it, drawn as Slack's client
draws it — a sidebar, a channel, an open thread, their ephemeral messages, their top modal and
the app's Home tab.

It only reads the emulator (its public API) and returns HTML; `blocks.py` draws Block Kit and
escapes every text. Each surface a person can act on is wrapped in an element that names it
(`data-kind` message / ephemeral / view, `data-channel`, `data-id`) for the page's script.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final
from urllib.parse import urlencode

from slack_emulator import Channel, Ephemeral, Message, SlackEmulator, View
from slack_emulator.playground.acts import REQUIRED, unfilled_inputs
from slack_emulator.playground.blocks import render_blocks
from slack_emulator.playground.mrkdwn import Names, mrkdwn, plain

_PERMALINK: Final = re.compile(r"^https?://[^/]+/archives/([A-Z0-9]+)/p(\d{10})(\d{6})")
_AVATAR_COLOURS: Final = ("#2eb67d", "#36c5f0", "#ecb22e", "#e01e5a", "#611f69", "#1264a3")


class PageError(Exception):
    """What the address asks for is not there; the message says what is."""


@dataclass(frozen=True)
class Place:
    """Where the person is looking: as whom, which channel, which thread, or the Home tab."""

    user: str
    channel: str | None = None
    thread: str | None = None
    home: bool = False

    def href(self, **changes: str | bool | None) -> str:
        """The page address of this place with some of it changed."""
        fields = {
            "user": self.user,
            "channel": self.channel,
            "thread": self.thread,
            "home": self.home,
        }
        fields.update(changes)
        query: dict[str, str] = {"as": str(fields["user"])}
        if fields["home"]:
            query["tab"] = "home"
        elif fields["channel"]:
            query["c"] = str(fields["channel"])
            if fields["thread"]:
                query["t"] = str(fields["thread"])
        # Relative: the page lives under its token's path, `/<token>/`.
        return "?" + urlencode(query)


class Page:
    """Draws the playground for one place. `unfilled`: per view id, the required inputs a
    refused Submit found empty; each shows Slack's error under it until it is filled in."""

    def __init__(
        self,
        emu: SlackEmulator,
        place: Place,
        unfilled: Mapping[str, frozenset[str]] | None = None,
    ) -> None:
        self._emu = emu
        self._unfilled = unfilled or {}
        workspace = emu.workspace
        if place.user not in workspace.users or workspace.users[place.user].is_bot:
            known = ", ".join(people_ids(emu)) or "none"
            raise PageError(f"no person {place.user!r} in the workspace; people: {known}")
        channels = self._channels(place.user)
        if place.channel is None and not place.home:
            if not channels:
                place = Place(place.user, home=True)
            else:
                place = Place(place.user, channels[0].id)
        if place.channel is not None and place.channel not in {c.id for c in channels}:
            known = ", ".join(c.id for c in channels) or "none"
            raise PageError(
                f"{place.user} is not in a channel {place.channel!r}; their channels: {known}"
            )
        if (
            place.thread is not None
            and place.channel is not None
            and not emu.workspace.thread(place.channel, place.thread)
        ):
            raise PageError(f"no thread {place.thread!r} in {place.channel}")
        self.place = place
        self._names = Names(
            user=self._user_name,
            channel=lambda cid: ch.name if (ch := workspace.channels.get(cid)) else None,
            group=lambda gid: g.handle if (g := workspace.usergroups.get(gid)) else None,
            local_link=self._local_link,
        )

    # the page ---------------------------------------------------------------------------

    def document(self) -> str:
        """The whole HTML document."""
        title = "Home" if self.place.home else f"#{self._channel_name(self.place.channel)}"
        return (
            '<!doctype html><html lang="en"><head><meta charset="utf-8">'
            f"<title>{html.escape(title)} · Slack playground</title>"
            '<link rel="icon" href="data:,"><meta name="viewport" content="width=device-width, initial-scale=1">'
            '<link rel="stylesheet" href="static/playground.css">'
            '<script src="static/playground.js" defer></script></head>'
            f'<body><div id="app" data-version="{self._emu.version}">{self.app()}</div>'
            '<div id="toast" role="status" hidden></div></body></html>'
        )

    def app(self) -> str:
        """What changes as the workspace changes: everything inside `#app`."""
        thread = self._thread_pane() if self.place.thread else ""
        layout = "sk-layout has-thread" if thread else "sk-layout"
        return (
            f'{self._top()}<div class="{layout}">{self._sidebar()}'
            f"{self._home() if self.place.home else self._channel()}{thread}</div>{self._modal()}"
        )

    def _top(self) -> str:
        me = self._emu.workspace.users[self.place.user]
        people = "".join(
            f'<option value="{html.escape(uid)}"{" selected" if uid == me.id else ""}>'
            f"{html.escape(self._user_name(uid) or uid)} ({html.escape(uid)})</option>"
            for uid in people_ids(self._emu)
        )
        return (
            '<header class="sk-top"><div class="sk-top-title">Slack emulator · playground</div>'
            '<label class="sk-as">Acting as '
            f'<select id="sk-as" data-place-href="{html.escape(self.place.href(user="__USER__"))}">'
            f"{people}</select></label></header>"
        )

    def _sidebar(self) -> str:
        app_name = self._app_name()
        home_class = "sk-side-item is-active" if self.place.home else "sk-side-item"
        items = [
            '<nav class="sk-side"><div class="sk-ws">Emulated workspace</div>',
            '<div class="sk-side-h">Channels</div>',
        ]
        for channel in self._channels(self.place.user):
            active = (
                " is-active" if channel.id == self.place.channel and not self.place.home else ""
            )
            items.append(
                f'<a class="sk-side-item{active}" href="{html.escape(self.place.href(channel=channel.id, thread=None, home=False))}">'
                f'<span class="sk-hash">#</span> {html.escape(channel.name)}</a>'
            )
        items.append('<div class="sk-side-h">Apps</div>')
        items.append(
            f'<a class="{home_class}" href="{html.escape(self.place.href(home=True))}" data-app-home>'
            f'<span class="sk-app-dot">🤖</span> {html.escape(app_name)}</a></nav>'
        )
        return "".join(items)

    def _channel(self) -> str:
        channel_id = self.place.channel or ""
        channel = self._emu.workspace.channels[channel_id]
        shown: list[Message | Ephemeral] = [
            *self._emu.channel_messages(channel_id),
            *(
                e
                for e in self._emu.ephemerals(self.place.user)
                if e.channel == channel_id and not e.thread_ts
            ),
        ]
        shown.sort(key=lambda m: float(m.ts))
        body = "".join(self._message(m) for m in shown) or (
            '<div class="sk-empty">No messages yet. An agent\'s question will appear here.</div>'
        )
        return (
            f'<main class="sk-main"><div class="sk-chan-h"><span class="sk-chan-name"># '
            f"{html.escape(channel.name)}</span>"
            f'<span class="sk-chan-meta">{len(channel.members)} members</span></div>'
            f'<div class="sk-messages" id="sk-messages">{body}</div>'
            f"{self._composer(channel_id, None, f'Message #{channel.name} — or type /agent-questions')}</main>"
        )

    def _thread_pane(self) -> str:
        channel_id = self.place.channel or ""
        thread_ts = self.place.thread or ""
        messages: list[Message | Ephemeral] = list(self._emu.thread(channel_id, thread_ts))
        messages.extend(
            e
            for e in self._emu.ephemerals(self.place.user)
            if e.channel == channel_id and e.thread_ts == thread_ts
        )
        root, *rest = messages
        rest.sort(key=lambda m: float(m.ts))
        count = sum(1 for m in rest if isinstance(m, Message))
        replies = "".join(self._message(m, in_thread=True) for m in rest)
        divider = (
            f'<div class="sk-replies-rule"><span>{count} {"reply" if count == 1 else "replies"}</span></div>'
            if count
            else ""
        )
        close = html.escape(self.place.href(thread=None))
        return (
            '<aside class="sk-thread"><div class="sk-thread-h"><div><b>Thread</b> '
            f'<span class="sk-chan-meta"># {html.escape(self._channel_name(channel_id))}</span></div>'
            f'<a class="sk-close" href="{close}" aria-label="Close thread">✕</a></div>'
            f'<div class="sk-messages">{self._message(root, in_thread=True)}{divider}{replies}</div>'
            f"{self._composer(channel_id, thread_ts, 'Reply…')}</aside>"
        )

    def _home(self) -> str:
        view = self._emu.home(self.place.user)
        name = html.escape(self._app_name())
        if view is None:
            body = '<div class="sk-empty">Opening the app\'s Home tab…</div>'
        else:
            body = self._surface(
                "view", "", view.id, render_blocks(view.blocks, self._names, state=view.state)
            )
        return (
            '<main class="sk-main sk-home" data-home>'
            f'<div class="sk-chan-h"><span class="sk-app-dot">🤖</span>'
            f'<span class="sk-chan-name">{name}</span></div>'
            '<div class="sk-tabs"><span class="sk-tab is-active">Home</span>'
            '<span class="sk-tab">About</span></div>'
            f'<div class="sk-home-body">{body}</div></main>'
        )

    def _modal(self) -> str:
        stack = self._emu.views(self.place.user)
        if not stack:
            return ""
        view = stack[-1]
        return (
            '<div class="sk-overlay">'
            + self._surface(
                "view", "", view.id, self._modal_body(view, len(stack)), classes="sk-modal"
            )
            + "</div>"
        )

    def _modal_body(self, view: View, depth: int) -> str:
        title = plain(view.title_object) or "App"
        close = plain(view.close_object) or "Cancel"
        submit = (
            f'<button type="button" class="sk-btn sk-btn-primary" data-view-submit>{plain(view.submit_object)}</button>'
            if view.submit_object
            else ""
        )
        back = (
            '<span class="sk-modal-depth" title="pushed views">&lsaquo;</span>' if depth > 1 else ""
        )
        still_empty = self._unfilled.get(view.id, frozenset()).intersection(unfilled_inputs(view))
        errors = {**dict.fromkeys(still_empty, REQUIRED), **view.errors}
        blocks = render_blocks(view.blocks, self._names, state=view.state, errors=errors)
        return (
            f'<div class="sk-modal-h">{back}<span class="sk-app-dot">🤖</span>'
            f'<span class="sk-modal-title">{title}</span>'
            '<button type="button" class="sk-close" data-view-close aria-label="Close">✕</button></div>'
            f'<div class="sk-modal-body">{blocks}</div>'
            f'<div class="sk-modal-f"><button type="button" class="sk-btn" data-view-close>{close}</button>{submit}</div>'
        )

    # messages ---------------------------------------------------------------------------

    def _message(self, message: Message | Ephemeral, *, in_thread: bool = False) -> str:
        emu = self._emu
        if isinstance(message, Ephemeral):
            author_id, kind, is_app = emu.bot_user_id, "ephemeral", True
        else:
            author_id, kind, is_app = message.user, "message", message.bot_id is not None
        # The person's draft of this message's inputs, as the people API keeps it.
        state = emu.workspace.draft(self.place.user, message.channel, message.ts, message.blocks)
        user = emu.workspace.users.get(author_id)
        author = self._app_name() if is_app else (self._user_name(author_id) or author_id)
        badge = '<span class="sk-badge">APP</span>' if is_app else ""
        # UTC until the page's script shows it in the reader's time zone, as Slack does.
        seconds = int(float(message.ts))
        when = (
            f'<time class="sk-date" datetime="{datetime.fromtimestamp(seconds, UTC).isoformat()}" '
            f'data-ts="{seconds}" data-format="{{time}}">'
            f"{datetime.fromtimestamp(seconds, UTC).strftime('%H:%M')}</time>"
        )
        edited = (
            '<span class="sk-edited">(edited)</span>'
            if isinstance(message, Message) and message.edited
            else ""
        )
        if message.blocks:
            content = render_blocks(message.blocks, self._names, state=state)
        else:
            content = f'<div class="bk bk-section"><div class="bk-text">{mrkdwn(message.text, self._names)}</div></div>'
        if isinstance(message, Message):
            content += "".join(self._attachment(a) for a in message.attachments)
        only_you = (
            '<div class="sk-only-you">👁 Only visible to you</div>'
            if isinstance(message, Ephemeral)
            else ""
        )
        replies = ""
        if isinstance(message, Message) and message.reply_count and not in_thread:
            label = f"{message.reply_count} {'reply' if message.reply_count == 1 else 'replies'}"
            replies = (
                f'<a class="sk-replies" href="{html.escape(self.place.href(thread=message.ts))}">'
                f"{label}</a>"
            )
        avatar = _avatar(author, is_app, user.id if user else author_id)
        inner = (
            f'{avatar}<div class="sk-msg-body"><div class="sk-msg-meta"><b class="sk-author">'
            f"{html.escape(author)}</b>{badge}{when}{edited}</div>"
            f'{only_you}<div class="sk-msg-blocks">{content}</div>{replies}</div>'
        )
        classes = "sk-msg sk-ephemeral" if isinstance(message, Ephemeral) else "sk-msg"
        return self._surface(kind, message.channel, message.ts, inner, classes=classes)

    def _attachment(self, attachment: dict[str, object]) -> str:
        colour = str(attachment.get("color") or "#ddd")
        safe_colour = colour if re.fullmatch(r"#?[0-9a-fA-F]{3,8}", colour) else "#ddd"
        if not safe_colour.startswith("#"):
            safe_colour = "#" + safe_colour
        blocks = attachment.get("blocks")
        if isinstance(blocks, list):
            body = render_blocks(blocks, self._names)
        else:
            body = mrkdwn(
                str(attachment.get("text") or attachment.get("fallback") or ""), self._names
            )
        return f'<div class="sk-attachment" style="border-color:{safe_colour}">{body}</div>'

    def _composer(self, channel_id: str, thread_ts: str | None, hint: str) -> str:
        thread = f' data-thread="{html.escape(thread_ts)}"' if thread_ts else ""
        return (
            f'<form class="sk-composer" data-channel="{html.escape(channel_id)}"{thread}>'
            f'<textarea rows="1" placeholder="{html.escape(hint)}" aria-label="{html.escape(hint)}"></textarea>'
            '<button type="submit" class="sk-send" aria-label="Send">➤</button></form>'
        )

    def _surface(
        self, kind: str, channel: str, surface_id: str, inner: str, *, classes: str = ""
    ) -> str:
        anchor = f' id="m-{html.escape(surface_id)}"' if kind != "view" else ""
        return (
            f'<div class="surface {classes}"{anchor} data-kind="{kind}" '
            f'data-channel="{html.escape(channel)}" data-id="{html.escape(surface_id)}">{inner}</div>'
        )

    # names ------------------------------------------------------------------------------

    def _channels(self, user_id: str) -> list[Channel]:
        return [
            c for c in self._emu.workspace.channels.values() if not c.is_im and user_id in c.members
        ]

    def _channel_name(self, channel_id: str | None) -> str:
        channel = self._emu.workspace.channels.get(channel_id or "")
        return channel.name if channel else str(channel_id)

    def _user_name(self, user_id: str) -> str | None:
        user = self._emu.workspace.users.get(user_id)
        if user is None:
            return None
        return user.display_name or user.name or user.real_name

    def _app_name(self) -> str:
        bot = self._emu.workspace.users.get(self._emu.bot_user_id)
        return bot.real_name or bot.name if bot else "app"

    def _local_link(self, url: str) -> str | None:
        """A Slack permalink into this workspace opens the thread here, not on slack.com."""
        match = _PERMALINK.match(url)
        if match is None or match[1] not in self._emu.workspace.channels:
            return None
        channel, ts = match[1], f"{match[2]}.{match[3]}"
        if self.place.user not in self._emu.workspace.channels[channel].members:
            return None
        found = self._emu.workspace.message(channel, ts)
        if found is None:
            return None
        thread = found.thread_ts or (found.ts if found.reply_count else None)
        return self.place.href(channel=channel, thread=thread, home=False) + f"#m-{ts}"


def people_ids(emu: SlackEmulator) -> Sequence[str]:
    """Everyone a person at the page may act as: the workspace's people, not its bots."""
    return [
        uid for uid, user in emu.workspace.users.items() if not user.is_bot and not user.deleted
    ]


def _avatar(name: str, is_app: bool, key: str) -> str:
    if is_app:
        return '<div class="sk-avatar sk-avatar-app">🤖</div>'
    colour = _AVATAR_COLOURS[sum(map(ord, key)) % len(_AVATAR_COLOURS)]
    initial = html.escape((name[:1] or "?").upper())
    return f'<div class="sk-avatar" style="background:{colour}">{initial}</div>'
