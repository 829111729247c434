"""What the person sees: each message, thread reply, ephemeral message and modal shown once,
again when it changes, and a note when it goes; and which of them is the current question.

It reads only the emulator's public API, as the person's Slack client would.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from typing import Final, Literal, TypeAlias

from slack_emulator import Ephemeral, Message, SlackEmulator, View
from slack_emulator.terminal.ansi import strip_ansi, visible_width
from slack_emulator.terminal.block_render import render_message, render_view
from slack_emulator.terminal.console import Console
from slack_emulator.terminal.controls import Control, Rendered, span
from slack_emulator.terminal.markup import Names, Style, mrkdwn

IN: Final = "\N{SINGLE RIGHT-POINTING ANGLE QUOTATION MARK}"
"""Between a place and a part of it, as in `#agent-questions > thread “…”`."""

Target: TypeAlias = Message | Ephemeral | View


@dataclass(frozen=True)
class Key:
    """What a person sees one of: a message, an ephemeral message, or their top modal."""

    kind: Literal["message", "ephemeral", "view"]
    channel: str
    id: str


@dataclass(frozen=True)
class _Seen:
    target: Target
    look: object
    """What the person would notice changing (not their own draft input)."""


class Abandoned(Exception):
    """An action stopped: the question changed, went away, or the person closed it."""


class Screen:
    """The person's view of the workspace, printed through `console`."""

    def __init__(
        self, emu: SlackEmulator, person_id: str, console: Console, *, width: int | None
    ) -> None:
        self._emu = emu
        self._me = person_id
        self._console = console
        self._width = width
        self._seen: dict[Key, _Seen] = {}
        self._questions: dict[Key, None] = {}
        """Keys shown with controls, oldest first (re-shown ones move to the end)."""
        self._thread: tuple[str, str] | None = None
        """The thread of the last message shown: where `r TEXT` replies without a question."""
        self.asking_about: tuple[Key, Control] | None = None
        """The input a prompt is waiting to set, so an update that removes it is noticed."""
        self._statuses: dict[tuple[str, str], str] = {}
        """The app's status line under each thread, as last shown."""

    # what changed -----------------------------------------------------------------------

    def refresh(self) -> None:
        """Print what is new or changed since the last look, and what went away."""
        try:
            self._refresh_now()
        except Exception as error:  # a rendering bug must not stop the person seeing updates
            self._console.print(f"⚠ could not show an update: {type(error).__name__}: {error}")

    def _refresh_now(self) -> None:
        now = self._visible()
        shown: list[str] = []
        for key, item in now.items():
            before = self._seen.get(key)
            if before is not None and before.look == item.look:
                continue
            shown.append(self._show(key, item.target, updated=before is not None))
        for key in self._seen.keys() - now.keys():
            self._questions.pop(key, None)
            gone = self._gone(key, self._seen[key].target)
            if gone:
                shown.append(gone)
        self._seen = now
        shown.extend(self._status_lines())
        if shown and self.asking_about is not None and not self.still_there(*self.asking_about):
            shown.append("That question changed while you were answering; press Enter.")
        if shown:
            focus = self.focus()
            hint = self._hint(*focus) if focus is not None else ""
            self._console.print("\n".join([*shown, *([hint] if hint else [])]))

    def _status_lines(self) -> list[str]:
        """A line for each thread whose status line (assistant.threads.setStatus) is new or
        changed; one that clears says nothing (the thread's messages say what happened)."""
        emu = self._emu
        now: dict[tuple[str, str], str] = {}
        for channel in list(emu.workspace.channels.values()):
            if self._me not in channel.members:
                continue
            for root in emu.channel_messages(channel.id):
                found = emu.thread_status(channel.id, root.ts)
                if found is not None:
                    now[(channel.id, root.ts)] = found.status
        lines = []
        for (channel_id, ts), status in now.items():
            if self._statuses.get((channel_id, ts)) != status:
                root = emu.message(channel_id, ts)
                place = f"{self.where(root)} {IN} thread “{self.preview(root.text)}”"
                app = self._name(emu.bot_user_id) or "the app"
                lines.append(self._console.dim(f"{place} · {app} {status}"))
        self._statuses = now
        return lines

    def _visible(self) -> dict[Key, _Seen]:
        emu = self._emu
        messages: list[Message | Ephemeral] = []
        for channel in list(emu.workspace.channels.values()):
            if self._me not in channel.members:
                continue
            for root in emu.channel_messages(channel.id):
                messages.append(root)
                if root.reply_count:
                    messages.extend(emu.thread(channel.id, root.ts)[1:])
        messages.extend(emu.ephemerals(self._me))
        messages.sort(key=lambda m: float(m.ts))
        now: dict[Key, _Seen] = {}
        for message in messages:
            if isinstance(message, Message):
                if message.user == self._me:
                    continue  # what the person typed: no need to show it back
                key = Key("message", message.channel, message.ts)
                look: object = (message.text, message.blocks, message.attachments)
            else:
                key = Key("ephemeral", message.channel, message.ts)
                look = (message.text, message.blocks)
            now[key] = _Seen(message, look)
        view = self.top_modal()
        if view is not None:
            look = (view.title_object, view.submit_object, view.close_object, view.blocks)
            now[Key("view", "", view.id)] = _Seen(view, (look, view.errors))
        return now

    def _show(self, key: Key, target: Target, *, updated: bool) -> str:
        rendered = self.render(target)
        if rendered.controls:
            self._questions.pop(key, None)
            self._questions[key] = None
        if isinstance(target, View):
            return rendered.text
        where = self.where(target)
        if isinstance(target, Message):
            self._thread = (target.channel, target.thread_ts or target.ts)
        author = self._name(target.user) if isinstance(target, Message) else None
        parts = [where, *([author] if author else []), *(["updated"] if updated else [])]
        return f"{self._rule(' · '.join(parts))}\n{rendered.text}"

    def _gone(self, key: Key, target: Target) -> str | None:
        if isinstance(target, View):
            if any(view.id == target.id for view in self._emu.views(self._me)):
                return None  # another modal was pushed over it
            return self._console.dim(f"(the modal “{target.title or 'Modal'}” closed)")
        what = "message" if key.kind == "message" else "message only you could see"
        return self._console.dim(f"(a {what} in {self.where(target)} was removed)")

    # the current question ---------------------------------------------------------------

    def top_modal(self) -> View | None:
        """The modal the person has open on top, if any."""
        stack = self._emu.views(self._me)
        return stack[-1] if stack else None

    def focus(self) -> tuple[Key, Target, Rendered] | None:
        """The current question: the open modal, else the newest message with controls."""
        view = self.top_modal()
        if view is not None:
            return Key("view", "", view.id), view, self.render(view)
        for key in reversed(list(self._questions)):
            target = self.current_or_none(key)
            rendered = self.render(target) if target is not None else None
            if target is not None and rendered is not None and rendered.controls:
                return key, target, rendered
            # Answered or gone: only an update can make it a question again, and `_show`
            # adds it back then.
            del self._questions[key]
        return None

    def reply_thread(self) -> tuple[str, str] | None:
        """Where `r TEXT` replies: the newest question's thread, else the last one shown."""
        for key in reversed(self._questions):
            if key.kind == "message" and key in self._seen:
                target = self._seen[key].target
                if isinstance(target, Message):
                    return target.channel, target.thread_ts or target.ts
        return self._thread

    def current_or_none(self, key: Key) -> Target | None:
        """The current version of what `key` names, or None if it is gone."""
        emu = self._emu
        if key.kind == "view":
            view = self.top_modal()
            return view if view is not None and view.id == key.id else None
        if key.kind == "ephemeral":
            return next((e for e in emu.ephemerals(self._me) if e.ts == key.id), None)
        try:
            return emu.message(key.channel, key.id)
        except LookupError:
            return None

    def current(self, key: Key) -> Target:
        """The current version of what `key` names; Abandoned if it is gone."""
        target = self.current_or_none(key)
        if target is None:
            raise Abandoned("That question is not there any more; nothing was sent.")
        return target

    def require(self, key: Key, control: Control) -> Target:
        """The current version of the target, or stop if the element went away while the
        person was typing (the app changed the message or modal)."""
        target = self.current(key)
        if not self.still_there(key, control):
            raise Abandoned("That question changed while you were answering; nothing was sent.")
        return target

    def still_there(self, key: Key, control: Control) -> bool:
        target = self.current_or_none(key)
        return target is not None and any(
            (c.block_id, c.action_id, c.type) == (control.block_id, control.action_id, control.type)
            for c in self.render(target).controls
        )

    def render(self, target: Target) -> Rendered:
        style = self.style()
        if isinstance(target, View):
            return render_view(target, style)
        attachments = target.attachments if isinstance(target, Message) else []
        return render_message(target.text, target.blocks, style, attachments=attachments)

    def _hint(self, _: Key, target: Target, rendered: Rendered) -> str:
        steps: list[str] = []
        if rendered.inputs:
            steps.append("Enter: fill in the form")
        elif isinstance(target, View) and target.submit:
            steps.append(f"Enter: {target.submit}")
        buttons = rendered.buttons
        if buttons:
            steps.append(f"{span(buttons)}: click")
        others = [c for c in rendered.controls if c.kind != "button"]
        if others and not rendered.inputs:
            steps.append(f"{span(others)}: choose")
        if isinstance(target, View):
            steps.append("c: close")
        steps.append("h: help")
        return self._console.dim(f"{self.label(target)} — " + " · ".join(steps))

    # naming things ----------------------------------------------------------------------

    def label(self, target: Target) -> str:
        """How prompts name a question: a modal's title, or the start of a message's text."""
        if isinstance(target, View):
            return f"modal “{target.title or 'Modal'}”"
        return f"“{self.preview(target.text)}”"

    def where(self, target: Message | Ephemeral) -> str:
        """The place a message is in: channel or DM, thread, and whether only you see it."""
        emu = self._emu
        channel = emu.workspace.channels.get(target.channel)
        place = "direct message" if channel is None or channel.is_im else f"#{channel.name}"
        thread_ts = target.thread_ts
        if thread_ts is not None and thread_ts != target.ts:
            try:
                root = emu.message(target.channel, thread_ts)
            except LookupError:
                place += f" {IN} thread {thread_ts}"
            else:
                place += f" {IN} thread “{self.preview(root.text)}”"
        if isinstance(target, Ephemeral):
            place += f" {IN} only you can see this"
        return place

    def preview(self, text: str) -> str:
        """The start of a message's first line, short enough for a prompt."""
        shown = strip_ansi(mrkdwn(text, Style(80, False, self._names()))).split("\n", 1)[0]
        return shown if len(shown) <= 32 else shown[:31].rstrip() + "…"

    def _name(self, user_id: str) -> str | None:
        user = self._emu.workspace.users.get(user_id)
        if user is None:
            return None
        return user.display_name or user.real_name or user.name

    def _names(self) -> Names:
        workspace = self._emu.workspace

        def group(group_id: str) -> str | None:
            found = workspace.usergroups.get(group_id)
            return found.handle if found else None

        def channel(channel_id: str) -> str | None:
            found = workspace.channels.get(channel_id)
            return found.name if found else None

        return Names(user=self._name, channel=channel, group=group)

    def style(self) -> Style:
        """How text is shown now (the terminal's width can change between looks)."""
        width = self._width or shutil.get_terminal_size().columns
        return Style(max(width, 20), self._console.color, self._names())

    def _rule(self, title: str) -> str:
        head = f"── {title} "
        width = self.style().width
        return self._console.bold(head + "─" * max(width - visible_width(head), 3))
