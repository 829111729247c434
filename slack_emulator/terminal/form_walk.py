"""Filling in a form from a terminal: each input asked for in order, each answer set as
Slack's client sets it, then the form's Submit pressed.

While a step waits, `h`, `c` and `r TEXT` still work; `c` stops the walk without sending.
"""

from __future__ import annotations

from collections.abc import Callable

from slack_emulator import Delivery, Person, View
from slack_emulator.elements import GESTURES
from slack_emulator.terminal.acts import Acts
from slack_emulator.terminal.console import Console
from slack_emulator.terminal.controls import Control, Rendered, describe_value, numbers_to_type
from slack_emulator.terminal.screen import IN, Abandoned, Key, Screen


class FormWalk:
    """The walk through one form at a time, on what `screen` shows."""

    def __init__(self, person: Person, screen: Screen, console: Console, acts: Acts) -> None:
        self._person = person
        self._screen = screen
        self._console = console
        self._acts = acts

    async def fill_in(self, key: Key, rendered: Rendered) -> None:
        """Ask for each input in order, then press the form's Submit."""
        for control in rendered.inputs:
            if control.kind == "other":
                self._console.print(self._console.dim(f"({control.label}: left as it is)"))
                continue
            await self.set(key, control)
        if key.kind == "view":
            await self._acts.submit(key)
            return
        buttons = self._screen.render(self._screen.current(key)).buttons
        submit = submit_button(buttons)
        if submit is None:
            self._console.print(f"Filled in; now {numbers_to_type(buttons)}.")
            return
        await self._acts.click(key, submit)

    async def set(self, key: Key, control: Control) -> None:
        """Ask for one element's value until it makes sense, then set it."""
        # Slack refuses to submit a modal with an empty required input; a message's form
        # leaves that check to the app.
        required = key.kind == "view" and not control.optional
        self._screen.require(key, control)
        self._screen.asking_about = (key, control)
        try:
            while True:
                line = await self._ask_within(lambda: ask_for(control, required=required))
                self._screen.require(key, control)
                if line is None:
                    if required and not self._has_value(key, control):
                        self._console.print("This one is required.")
                        continue
                    return
                problem = await self._apply(key, control, line)
                if problem is None:
                    self._show_draft(key, control)
                    return
                self._console.print(problem)
        finally:
            self._screen.asking_about = None

    async def _apply(self, key: Key, control: Control, line: str) -> str | None:
        """Set `control` from `line`; the reason when `line` does not fit it."""
        person = self._person
        block_id, action_id = control.block_id, control.action_id
        delivery: Delivery | None
        if control.kind == "text":
            text = line[1:] if line.startswith("\\") else line  # "\\h": the text "h"
            target = self._screen.require(key, control)
            delivery = await person.type(target, block_id=block_id, action_id=action_id, text=text)
        else:
            many = control.kind == "many"
            picked = pick(control, line, many=many)
            if isinstance(picked, str):
                return picked
            target = self._screen.require(key, control)
            gesture = GESTURES[control.type]
            if gesture == "choose":
                delivery = await person.choose(
                    target, block_id=block_id, action_id=action_id, value=picked[0]
                )
            elif gesture == "check":
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
        self._acts.report(delivery)
        return None

    def _show_draft(self, key: Key, control: Control) -> None:
        """What the element now holds, read back from the person's draft, so what will be
        sent is visible before it is."""
        target = self._screen.current_or_none(key)
        if target is None:
            return
        entry = self._person.draft(target).get(control.block_id, {}).get(control.action_id)
        self._console.print(
            f"[{control.number}] {control.label} ✓ {describe_value(control, entry)}"
        )

    def _has_value(self, key: Key, control: Control) -> bool:
        target = self._screen.current(key)
        if not isinstance(target, View):
            return True
        entry = target.state.get(control.block_id, {}).get(control.action_id, {})
        return any(v not in (None, "", []) for k, v in entry.items() if k != "type")

    async def _ask_within(self, prompt: Callable[[], str]) -> str | None:
        """A line for a walk-through step; commands still work (None: leave the input)."""
        while True:
            line = await self._console.ask(prompt)
            text = line.strip()
            if text in ("h", "?"):
                self._acts.help()
            elif text == "c":
                if self._screen.top_modal() is not None:
                    await self._acts.close()
                    raise Abandoned("Closed; nothing was sent.")
                raise Abandoned("Stopped filling in; nothing was sent.")
            elif text.startswith("r ") and len(text) > 2:
                await self._acts.reply(text[2:].strip())
            elif text == "":
                return None
            else:
                return line


def ask_for(control: Control, *, required: bool) -> str:
    """The walk-through prompt for one input: what it is and what to type."""
    label = control.label if len(control.label) <= 60 else control.label[:59] + "…"
    leave = " (required)" if required else ", Enter to leave it"
    if control.kind == "text":
        how = f"type your answer{leave}"
    elif control.kind == "many" and len(control.options) == 1:
        how = f"1 to tick “{control.options[0].label}”, - to untick{leave}"
    elif control.kind == "many":
        how = f"numbers 1-{len(control.options)} like 1,{len(control.options)}, - for none{leave}"
    else:
        how = f"a number 1-{len(control.options)}{leave}"
    return f"[{control.number}] {label} {IN} {how} > "


def pick(control: Control, line: str, *, many: bool) -> list[str] | str:
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


def submit_button(buttons: list[Control]) -> Control | None:
    """The button that sends a message's form: labelled Submit or Send, else the primary
    one, else the only one."""
    for button in buttons:
        if button.label.strip().lower() in ("submit", "send"):
            return button
    primary = [b for b in buttons if b.style == "primary"]
    if len(primary) == 1:
        return primary[0]
    return buttons[0] if len(buttons) == 1 else None
