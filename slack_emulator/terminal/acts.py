"""What the person's commands do in Slack: click a button, submit or close a modal, reply in
a thread; and a warning, as Slack shows one, when the app does not answer in time.

Every act goes through the emulator's people API (`emu.person(id)`), which sends the app
Slack's signed payloads, so the whole real path runs.
"""

from __future__ import annotations

from typing import Final

from slack_emulator import Delivery, Person, SlackEmulator, View
from slack_emulator.terminal.console import Console
from slack_emulator.terminal.controls import Control
from slack_emulator.terminal.markup import mrkdwn
from slack_emulator.terminal.screen import IN, Abandoned, Key, Screen

HELP: Final = """\
  N        click button N — or set element N (a menu, radio group, checkboxes, text box)
  Enter    fill in the form here, input by input, then press its Submit
           (menus and radios: a number · checkboxes: numbers like 1,3, exactly those
           ticked, - for none · text: type it, with a leading \\ to send c, h or r … as
           text · an empty line leaves an input as it is); each value set is shown
  c        close the open modal (while filling in a message's form: stop filling it in)
  r TEXT   reply in the current thread
  h        this help
The current question is the open modal, else the newest message that still has buttons."""


class Acts:
    """The person's acts on what `screen` shows them."""

    def __init__(
        self, emu: SlackEmulator, person: Person, screen: Screen, console: Console
    ) -> None:
        self._emu = emu
        self._person = person
        self._screen = screen
        self._console = console

    def help(self) -> None:
        self._console.print(HELP)

    async def click(self, key: Key, control: Control) -> None:
        """Click a button, after its confirmation dialog if it has one."""
        if control.confirm is not None:
            style = self._screen.style()
            title = mrkdwn(str((control.confirm.get("title") or {}).get("text", "")), style)
            body = mrkdwn(str((control.confirm.get("text") or {}).get("text", "")), style)
            go = str((control.confirm.get("confirm") or {}).get("text", "Yes"))
            self._console.print("\n".join(p for p in (title, body) if p))
            answer = await self._console.ask(lambda: f"{go}? y/n > ")
            if answer.strip().lower() not in ("y", "yes"):
                self._console.print("Not clicked.")
                return
        target = self._screen.require(key, control)
        delivery = await self._person.click(
            target, block_id=control.block_id, action_id=control.action_id
        )
        if control.url:
            self._console.print(self._console.dim(f"(Slack would open {control.url})"))
        self.report(delivery)

    async def submit(self, key: Key) -> None:
        """Press the modal's submit button."""
        view = self._screen.current(key)
        if not isinstance(view, View):
            raise Abandoned("That modal is not open any more.")
        self.report(await self._person.submit(view))

    async def close(self) -> None:
        """Press the open modal's close button."""
        view = self._screen.top_modal()
        if view is None:
            self._console.print("No modal is open.")
            return
        self.report(await self._person.close(view))

    async def reply(self, text: str) -> None:
        """Reply in the current question's thread."""
        if not text:
            self._console.print("Type r and your reply, e.g. r looks good to me")
            return
        thread = self._screen.reply_thread()
        if thread is None:
            self._console.print("There is no thread to reply in yet.")
            return
        channel, thread_ts = thread
        await self._person.reply(channel, thread_ts, text)
        root = self._emu.message(channel, thread_ts)
        where = self._screen.where(root) + f" {IN} thread “{self._screen.preview(root.text)}”"
        self._console.print(self._console.dim(f"(you replied in {where})"))

    def report(self, delivery: Delivery | None) -> None:
        """Say so when the app did not answer, as Slack shows a warning."""
        if delivery is None or delivery.in_time:
            return
        if delivery.error:
            why = delivery.error
        elif not delivery.acked:
            why = f"it answered HTTP {delivery.status}"
        else:
            why = f"it took {delivery.ack_seconds:.1f} s (Slack waits 3 s)"
        self._console.print(f"⚠ The app did not respond in time: {why}.")
