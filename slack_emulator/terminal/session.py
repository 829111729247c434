"""A person at a terminal, using the emulated Slack: they see what Slack would show them and
answer there.

`Terminal` watches the emulator and prints each message, thread reply, ephemeral message and
modal the person would see, as `blocktext` renders it. Lines the person types become actions
through the emulator's people API (`emu.person(id)`), which sends the app Slack's signed
payloads, so the whole real path runs. It touches nothing but the emulator's public API: it
stands in for a person, not for the bot.

What a line does, on the current question (the open modal, else the newest message that
still has controls):

    N          click button N; for a menu, radio group, checkboxes or text box: set it
    Enter      fill in the form, input by input, then press its Submit
    c          close the open modal
    r TEXT     reply in the current thread
    h          help
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final, Literal, TextIO, TypeAlias

from slack_emulator import Delivery, Ephemeral, Message, SlackEmulator, View

from .block_render import (
    Control,
    Names,
    Rendered,
    Style,
    mrkdwn,
    render_message,
    render_view,
    strip_ansi,
    visible_width,
)

HELP: Final = """\
  N        click button N — or set element N (a menu, radio group, checkboxes, text box)
  Enter    fill in the form here, input by input, then press its Submit
           (menus and radios: a number · checkboxes: numbers like 1,3 · text: type it,
           with a leading \\ to send c, h or r … as text · an empty line leaves an input)
  c        close the open modal (while filling in a message's form: stop filling it in)
  r TEXT   reply in the current thread
  h        this help
The current question is the open modal, else the newest message that still has buttons."""

_IN: Final = "\N{SINGLE RIGHT-POINTING ANGLE QUOTATION MARK}"
"""Between a place and a part of it, as in `#agent-questions > thread “…”`."""

_WAKE_EVERY: Final = 3600.0
"""How long one wait on the emulator lasts before it is simply renewed (nothing happens then)."""

Target: TypeAlias = Message | Ephemeral | View


@dataclass(frozen=True)
class _Key:
    """What a person sees one of: a message, an ephemeral message, or their top modal."""

    kind: Literal["message", "ephemeral", "view"]
    channel: str
    id: str


@dataclass(frozen=True)
class _Seen:
    target: Target
    look: object
    """What the person would notice changing (not their own draft input)."""


class _EndOfInput(Exception):
    """The input ended (EOF): the terminal stops quietly."""


class _Abandoned(Exception):
    """A walk-through stopped: the form changed, went away, or the person closed it."""


def color_wanted(output: TextIO, environ: Mapping[str, str] | None = None) -> bool:
    """ANSI colour only for a terminal, and never when NO_COLOR is set (https://no-color.org:
    any non-empty value)."""
    env = os.environ if environ is None else environ
    try:
        tty = output.isatty()
    except (AttributeError, ValueError):  # a closed or unusual stream: no colour
        tty = False
    return tty and not env.get("NO_COLOR")


class Terminal:
    """The person `person_id` using Slack from a terminal.

    `await terminal.run()` shows and answers until `input` ends; or `terminal.start()` it as
    a task and `await terminal.stop()`. `say(text)` prints a line for someone else (such as
    a demo agent) without tearing the prompt.
    """

    def __init__(
        self,
        emu: SlackEmulator,
        person_id: str,
        *,
        input: asyncio.StreamReader,
        output: TextIO,
        width: int | None = None,
        color: bool | None = None,
    ) -> None:
        self._emu = emu
        self._me = person_id
        self._person = emu.person(person_id)
        self._input = input
        self._output = output
        self._width = width
        self._color = color_wanted(output) if color is None else color
        self._seen: dict[_Key, _Seen] = {}
        self._questions: dict[_Key, None] = {}
        """Keys shown with controls, oldest first (re-shown ones move to the end)."""
        self._thread: tuple[str, str] | None = None
        """The thread of the last message shown: where `r TEXT` replies without a question."""
        self._prompt: Callable[[], str] | None = None
        self._asking_about: tuple[_Key, Control] | None = None
        """The input a prompt is waiting to set, so an update that removes it is noticed."""
        self._prompt_shown = False
        self._task: asyncio.Task[None] | None = None

    # lifecycle ------------------------------------------------------------------------

    async def run(self) -> None:
        """Show what the person sees and act on what they type, until the input ends."""
        self._refresh()
        watcher = asyncio.create_task(self._watch(), name=f"terminal watch {self._me}")
        try:
            await self._converse()
        finally:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher
            if self._prompt_shown:
                self._write("\n")
                self._prompt_shown = False

    def start(self) -> asyncio.Task[None]:
        """Run in a task (one at a time)."""
        if self._task is not None and not self._task.done():
            raise RuntimeError("the terminal is already running")
        self._task = asyncio.create_task(self.run(), name=f"terminal {self._me}")
        return self._task

    async def stop(self) -> None:
        """Stop the task `start()` made; idempotent."""
        task, self._task = self._task, None
        if task is None:
            return
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    def say(self, text: str) -> None:
        """Print `text` as its own lines, then the prompt again."""
        self._print(text)

    # watching ---------------------------------------------------------------------------

    async def _watch(self) -> None:
        while True:
            seen = self._activity()
            self._refresh()
            await self._activity_since(seen)

    def _activity(self) -> tuple[int, int]:
        # The app changes what people see only by calling the Web API (response_url posts
        # included) or by answering a delivery; what the person does here is refreshed
        # right after they do it.
        return len(self._emu.calls), len(self._emu.deliveries)

    async def _activity_since(self, seen: tuple[int, int]) -> None:
        with contextlib.suppress(TimeoutError):
            await self._emu.wait_for(
                lambda: self._activity() != seen,
                within=_WAKE_EVERY,
                what="the app to change something",
            )

    def _refresh(self) -> None:
        """Print what is new or changed since the last look, and what went away."""
        try:
            self._refresh_now()
        except Exception as error:  # a rendering bug must not stop the person seeing updates
            self._print(f"⚠ could not show an update: {type(error).__name__}: {error}")

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
        if shown and self._asking_about is not None and not self._still_there(*self._asking_about):
            shown.append("That question changed while you were answering; press Enter.")
        if shown:
            focus = self._focus()
            hint = self._hint(*focus) if focus is not None else ""
            self._print("\n".join([*shown, *([hint] if hint else [])]))

    def _visible(self) -> dict[_Key, _Seen]:
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
        now: dict[_Key, _Seen] = {}
        for message in messages:
            if isinstance(message, Message):
                if message.user == self._me:
                    continue  # what the person typed: no need to show it back
                key = _Key("message", message.channel, message.ts)
                look: object = (message.text, message.blocks, message.attachments)
            else:
                key = _Key("ephemeral", message.channel, message.ts)
                look = (message.text, message.blocks)
            now[key] = _Seen(message, look)
        stack = emu.views(self._me)
        if stack:
            view = stack[-1]
            look = (view.title_object, view.submit_object, view.close_object, view.blocks)
            now[_Key("view", "", view.id)] = _Seen(view, (look, view.errors))
        return now

    def _show(self, key: _Key, target: Target, *, updated: bool) -> str:
        rendered = self._render(target)
        if rendered.controls:
            self._questions.pop(key, None)
            self._questions[key] = None
        if isinstance(target, View):
            return rendered.text
        where = self._where(target)
        if isinstance(target, Message):
            self._thread = (target.channel, target.thread_ts or target.ts)
        author = self._name(target.user) if isinstance(target, Message) else None
        parts = [where, *([author] if author else []), *(["updated"] if updated else [])]
        return f"{self._rule(' · '.join(parts))}\n{rendered.text}"

    def _gone(self, key: _Key, target: Target) -> str | None:
        if isinstance(target, View):
            if any(view.id == target.id for view in self._emu.views(self._me)):
                return None  # another modal was pushed over it
            return self._paint_dim(f"(the modal “{target.title or 'Modal'}” closed)")
        what = "message" if key.kind == "message" else "message only you could see"
        return self._paint_dim(f"(a {what} in {self._where(target)} was removed)")

    # conversation -----------------------------------------------------------------------

    async def _converse(self) -> None:
        while True:
            try:
                line = await self._ask(self._idle_prompt)
            except _EndOfInput:
                return
            try:
                await self._handle(line)
            except _EndOfInput:
                return
            except _Abandoned as why:
                self._print(str(why))
            except (LookupError, ValueError) as error:
                # The emulator says what is not there or not allowed, as Slack's UI would.
                self._print(f"⚠ {error}")
            except Exception as error:  # one failed action must not end the person's session
                self._print(f"⚠ {type(error).__name__}: {error}")
            self._refresh()

    async def _handle(self, line: str) -> None:
        text = line.strip()
        if text in ("h", "?", "help"):
            self._print(HELP)
        elif text == "c":
            await self._close()
        elif text == "r" or text.startswith("r "):
            await self._reply(text[1:].strip())
        elif text == "":
            await self._enter()
        elif text.isdigit():
            await self._number(int(text))
        else:
            self._print(f"Not understood: {text!r}. Type a number, Enter, c, r TEXT or h (help).")

    async def _number(self, number: int) -> None:
        focus = self._focus()
        if focus is None:
            self._print("There is no question to answer yet.")
            return
        key, _, rendered = focus
        control = rendered.control(number)
        if control is None:
            have = _numbers(rendered.controls)
            self._print(f"There is no [{number}] here; {have}.")
            return
        if control.kind == "button":
            await self._click(key, control)
        elif control.kind == "other":
            self._print(f"[{number}] is a {control.type}; the terminal cannot set it.")
        else:
            await self._set(key, control)
            if not control.dispatches:
                self._print(self._paint_dim("(kept until the form is sent: Enter fills it in)"))

    async def _enter(self) -> None:
        focus = self._focus()
        if focus is None:
            return
        key, target, rendered = focus
        if rendered.inputs:
            await self._fill_in(key, rendered)
        elif isinstance(target, View) and target.submit:
            await self._send_view(key)
        elif rendered.controls:
            self._print(f"Nothing to fill in here; {_numbers(rendered.controls)}.")

    async def _fill_in(self, key: _Key, rendered: Rendered) -> None:
        """Ask for each input in order, then press the form's Submit."""
        for control in rendered.inputs:
            if control.kind == "other":
                self._print(self._paint_dim(f"({control.label}: left as it is)"))
                continue
            await self._set(key, control)
        if key.kind == "view":
            await self._send_view(key)
            return
        target = self._current(key)
        submit = _submit_button(self._render(target).buttons)
        if submit is None:
            self._print(f"Filled in; now {_numbers(self._render(target).buttons)}.")
            return
        await self._click(key, submit)

    async def _set(self, key: _Key, control: Control) -> None:
        """Ask for one element's value until it makes sense, then set it."""
        # Slack refuses to submit a modal with an empty required input; a message's form
        # leaves that check to the app.
        required = key.kind == "view" and not control.optional
        self._require(key, control)
        self._asking_about = (key, control)
        try:
            while True:
                line = await self._ask_within(lambda: _ask_for(control, required=required))
                self._require(key, control)
                if line is None:
                    if required and not self._has_value(key, control):
                        self._print("This one is required.")
                        continue
                    return
                problem = await self._apply(key, control, line)
                if problem is None:
                    return
                self._print(problem)
        finally:
            self._asking_about = None

    async def _apply(self, key: _Key, control: Control, line: str) -> str | None:
        """Set `control` from `line`; the reason when `line` does not fit it."""
        person = self._person
        block_id, action_id = control.block_id, control.action_id
        delivery: Delivery | None
        if control.kind == "text":
            text = line[1:] if line.startswith("\\") else line  # "\\h": the text "h"
            target = self._require(key, control)
            delivery = await person.type(target, block_id=block_id, action_id=action_id, text=text)
        else:
            many = control.kind == "many"
            picked = _pick(control, line, many=many)
            if isinstance(picked, str):
                return picked
            target = self._require(key, control)
            if control.type == "radio_buttons":
                delivery = await person.choose(
                    target, block_id=block_id, action_id=action_id, value=picked[0]
                )
            elif control.type == "checkboxes":
                delivery = await person.check(
                    target, block_id=block_id, action_id=action_id, values=picked
                )
            elif many:
                delivery = await person.select(
                    target, block_id=block_id, action_id=action_id, values=picked
                )
            else:
                delivery = await person.select(
                    target, block_id=block_id, action_id=action_id, value=picked[0]
                )
        self._report(delivery)
        return None

    def _has_value(self, key: _Key, control: Control) -> bool:
        target = self._current(key)
        if not isinstance(target, View):
            return True
        entry = target.state.get(control.block_id, {}).get(control.action_id, {})
        return any(v not in (None, "", []) for k, v in entry.items() if k != "type")

    async def _click(self, key: _Key, control: Control) -> None:
        if control.confirm is not None:
            style = self._style()
            title = mrkdwn(str((control.confirm.get("title") or {}).get("text", "")), style)
            body = mrkdwn(str((control.confirm.get("text") or {}).get("text", "")), style)
            go = str((control.confirm.get("confirm") or {}).get("text", "Yes"))
            self._print("\n".join(p for p in (title, body) if p))
            answer = await self._ask(lambda: f"{go}? y/n > ")
            if answer.strip().lower() not in ("y", "yes"):
                self._print("Not clicked.")
                return
        target = self._require(key, control)
        delivery = await self._person.click(
            target, block_id=control.block_id, action_id=control.action_id
        )
        if control.url:
            self._print(self._paint_dim(f"(Slack would open {control.url})"))
        self._report(delivery)

    async def _send_view(self, key: _Key) -> None:
        view = self._current(key)
        if not isinstance(view, View):
            raise _Abandoned("That modal is not open any more.")
        self._report(await self._person.submit(view))

    async def _close(self) -> None:
        stack = self._emu.views(self._me)
        if not stack:
            self._print("No modal is open.")
            return
        self._report(await self._person.close(stack[-1]))

    async def _reply(self, text: str) -> None:
        if not text:
            self._print("Type r and your reply, e.g. r looks good to me")
            return
        thread = self._reply_thread()
        if thread is None:
            self._print("There is no thread to reply in yet.")
            return
        channel, thread_ts = thread
        await self._person.reply(channel, thread_ts, text)
        root = self._emu.message(channel, thread_ts)
        where = self._where(root) + f" {_IN} thread “{self._preview(root.text)}”"
        self._print(self._paint_dim(f"(you replied in {where})"))

    def _reply_thread(self) -> tuple[str, str] | None:
        for key in reversed(self._questions):
            if key.kind == "message" and key in self._seen:
                target = self._seen[key].target
                if isinstance(target, Message):
                    return target.channel, target.thread_ts or target.ts
        return self._thread

    def _report(self, delivery: Delivery | None) -> None:
        """Say so when the app did not answer, as Slack shows a warning."""
        if delivery is None or delivery.in_time:
            return
        if delivery.error:
            why = delivery.error
        elif not delivery.acked:
            why = f"it answered HTTP {delivery.status}"
        else:
            why = f"it took {delivery.ack_seconds:.1f} s (Slack waits 3 s)"
        self._print(f"⚠ The app did not respond in time: {why}.")

    # reading ----------------------------------------------------------------------------

    async def _ask(self, prompt: Callable[[], str]) -> str:
        """Show `prompt` and return the next line typed (without its newline)."""
        while True:
            self._prompt = prompt
            self._show_prompt()
            try:
                raw = await self._input.readline()
            except ValueError:  # longer than the reader's limit; the reader dropped it
                self._prompt_shown = False
                self._print("⚠ That line was too long; try again.")
                continue
            finally:
                self._prompt = None
            if not raw:
                raise _EndOfInput  # the prompt stays shown: run() ends its line
            self._prompt_shown = False  # the person's Enter ended the prompt's line
            return raw.decode("utf-8", errors="replace").rstrip("\r\n")

    async def _ask_within(self, prompt: Callable[[], str]) -> str | None:
        """A line for a walk-through step; commands still work (None: leave the input)."""
        while True:
            line = await self._ask(prompt)
            text = line.strip()
            if text in ("h", "?"):
                self._print(HELP)
            elif text == "c":
                if self._emu.views(self._me):
                    await self._close()
                    raise _Abandoned("Closed; nothing was sent.")
                raise _Abandoned("Stopped filling in; nothing was sent.")
            elif text.startswith("r ") and len(text) > 2:
                await self._reply(text[2:].strip())
            elif text == "":
                return None
            else:
                return line

    def _idle_prompt(self) -> str:
        focus = self._focus()
        if focus is None:
            return "> "
        _, target, _ = focus
        return f"{self._label(target)} > "

    # what the person is looking at --------------------------------------------------------

    def _focus(self) -> tuple[_Key, Target, Rendered] | None:
        """The current question: the open modal, else the newest message with controls."""
        stack = self._emu.views(self._me)
        if stack:
            view = stack[-1]
            return _Key("view", "", view.id), view, self._render(view)
        for key in reversed(list(self._questions)):
            target = self._current_or_none(key)
            rendered = self._render(target) if target is not None else None
            if target is not None and rendered is not None and rendered.controls:
                return key, target, rendered
            # Answered or gone: only an update can make it a question again, and `_show`
            # adds it back then.
            del self._questions[key]
        return None

    def _current_or_none(self, key: _Key) -> Target | None:
        emu = self._emu
        if key.kind == "view":
            stack = emu.views(self._me)
            return stack[-1] if stack and stack[-1].id == key.id else None
        if key.kind == "ephemeral":
            return next((e for e in emu.ephemerals(self._me) if e.ts == key.id), None)
        try:
            return emu.message(key.channel, key.id)
        except LookupError:
            return None

    def _current(self, key: _Key) -> Target:
        target = self._current_or_none(key)
        if target is None:
            raise _Abandoned("That question is not there any more; nothing was sent.")
        return target

    def _require(self, key: _Key, control: Control) -> Target:
        """The current version of the target, or stop if the element went away while the
        person was typing (the app changed the message or modal)."""
        target = self._current(key)
        if not self._still_there(key, control):
            raise _Abandoned("That question changed while you were answering; nothing was sent.")
        return target

    def _still_there(self, key: _Key, control: Control) -> bool:
        target = self._current_or_none(key)
        return target is not None and any(
            (c.block_id, c.action_id, c.type) == (control.block_id, control.action_id, control.type)
            for c in self._render(target).controls
        )

    def _render(self, target: Target) -> Rendered:
        style = self._style()
        if isinstance(target, View):
            return render_view(target, style)
        attachments = target.attachments if isinstance(target, Message) else []
        return render_message(target.text, target.blocks, style, attachments=attachments)

    def _hint(self, _: _Key, target: Target, rendered: Rendered) -> str:
        steps: list[str] = []
        if rendered.inputs:
            steps.append("Enter: fill in the form")
        elif isinstance(target, View) and target.submit:
            steps.append(f"Enter: {target.submit}")
        buttons = rendered.buttons
        if buttons:
            steps.append(f"{_span(buttons)}: click")
        others = [c for c in rendered.controls if c.kind != "button"]
        if others and not rendered.inputs:
            steps.append(f"{_span(others)}: choose")
        if isinstance(target, View):
            steps.append("c: close")
        steps.append("h: help")
        return self._paint_dim(f"{self._label(target)} — " + " · ".join(steps))

    def _label(self, target: Target) -> str:
        """How prompts name a question: a modal's title, or the start of a message's text."""
        if isinstance(target, View):
            return f"modal “{target.title or 'Modal'}”"
        return f"“{self._preview(target.text)}”"

    def _where(self, target: Message | Ephemeral) -> str:
        emu = self._emu
        channel = emu.workspace.channels.get(target.channel)
        place = "direct message" if channel is None or channel.is_im else f"#{channel.name}"
        thread_ts = target.thread_ts
        if thread_ts is not None and thread_ts != target.ts:
            try:
                root = emu.message(target.channel, thread_ts)
            except LookupError:
                place += f" {_IN} thread {thread_ts}"
            else:
                place += f" {_IN} thread “{self._preview(root.text)}”"
        if isinstance(target, Ephemeral):
            place += f" {_IN} only you can see this"
        return place

    def _preview(self, text: str) -> str:
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

    def _style(self) -> Style:
        width = self._width or shutil.get_terminal_size().columns
        return Style(max(width, 20), self._color, self._names())

    # writing ----------------------------------------------------------------------------

    def _rule(self, title: str) -> str:
        head = f"── {title} "
        width = self._style().width
        line = head + "─" * max(width - visible_width(head), 3)
        return f"\x1b[1m{line}\x1b[22m" if self._color else line

    def _paint_dim(self, text: str) -> str:
        return f"\x1b[2m{text}\x1b[22m" if self._color else text

    def _print(self, text: str) -> None:
        """Whole lines, off the prompt line, then the prompt again if one is waiting."""
        if self._prompt_shown:
            self._write("\n")
            self._prompt_shown = False
        self._write(text + "\n")
        self._show_prompt()

    def _show_prompt(self) -> None:
        if self._prompt is not None and not self._prompt_shown:
            self._write(self._prompt())
            self._prompt_shown = True

    def _write(self, text: str) -> None:
        self._output.write(text)
        self._output.flush()


def _ask_for(control: Control, *, required: bool) -> str:
    """The walk-through prompt for one input: what it is and what to type."""
    label = control.label if len(control.label) <= 60 else control.label[:59] + "…"
    leave = " (required)" if required else ", Enter to leave it"
    if control.kind == "text":
        how = f"type your answer{leave}"
    elif control.kind == "many" and len(control.options) == 1:
        how = f"1 to tick “{control.options[0].label}”{leave}"
    elif control.kind == "many":
        how = f"numbers 1-{len(control.options)} like 1,{len(control.options)}{leave}"
    else:
        how = f"a number 1-{len(control.options)}{leave}"
    return f"[{control.number}] {label} {_IN} {how} > "


def _pick(control: Control, line: str, *, many: bool) -> list[str] | str:
    """The option values `line` names, or why it does not name them."""
    count = len(control.options)
    if many and line.strip() == "-":
        return []
    words = line.replace(",", " ").split()
    if not words or not all(w.isdigit() and 1 <= int(w) <= count for w in words):
        if many:
            return f"Type numbers from 1 to {count}, separated by commas (or - for none)."
        return f"Type one number from 1 to {count}."
    if not many and len(words) > 1:
        return f"Only one: type a number from 1 to {count}."
    numbers = list(dict.fromkeys(int(w) for w in words))
    return [control.options[n - 1].value for n in numbers]


def _submit_button(buttons: list[Control]) -> Control | None:
    """The button that sends a message's form: labelled Submit or Send, else the primary
    one, else the only one."""
    for button in buttons:
        if button.label.strip().lower() in ("submit", "send"):
            return button
    primary = [b for b in buttons if b.style == "primary"]
    if len(primary) == 1:
        return primary[0]
    return buttons[0] if len(buttons) == 1 else None


def _span(controls: list[Control]) -> str:
    numbers = [c.number for c in controls]
    if len(numbers) == 1:
        return str(numbers[0])
    if numbers == list(range(numbers[0], numbers[-1] + 1)):
        return f"{numbers[0]}-{numbers[-1]}"
    return ",".join(str(n) for n in numbers)


def _numbers(controls: tuple[Control, ...] | list[Control]) -> str:
    if not controls:
        return "it has nothing to click"
    return f"type one of {_span(list(controls))}"
