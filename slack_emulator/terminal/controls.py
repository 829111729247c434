"""The numbered controls a terminal shows for a surface's interactive elements, and how
each is used: which kinds exist is derived from the emulator's element table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from slack_emulator.elements import GESTURES, picks_many

ControlKind: TypeAlias = Literal["button", "one", "many", "text", "other"]


def control_kind(element_type: str) -> ControlKind:
    """button: click; one: pick one option; many: pick any; text: type; other: elements a
    person cannot use through the emulator (so not in the terminal either)."""
    gesture = GESTURES.get(element_type)
    if gesture is None or gesture == "rate" or element_type == "users_select":
        # Feedback buttons (`Person.give_feedback`) and people menus (`Person.select` with a
        # user id) are used in tests; the terminal does not offer them yet.
        return "other"
    if gesture == "click":
        return "button"
    if gesture == "type":
        return "text"
    return "many" if picks_many(element_type) else "one"


@dataclass(frozen=True)
class Choice:
    """One option of a select, radio group, checkbox group or overflow menu."""

    number: int
    value: str
    label: str


@dataclass(frozen=True)
class Control:
    """A numbered interactive element and what acting on it takes."""

    number: int
    kind: ControlKind
    """button: click; one: pick one option; many: pick any; text: type; other: not usable here."""
    type: str
    block_id: str
    action_id: str
    label: str
    """What a prompt calls it: the input label, the button text, or the section beside it."""
    options: tuple[Choice, ...] = ()
    in_input: bool = False
    optional: bool = True
    """False only for a required input block (Slack refuses to submit a modal without it)."""
    dispatches: bool = True
    """Using it sends block_actions at once (false for input blocks without dispatch_action)."""
    style: str | None = None
    url: str | None = None
    confirm: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Rendered:
    """Terminal text (lines joined by newlines, no trailing newline) and its controls."""

    text: str
    controls: tuple[Control, ...] = ()

    def control(self, number: int) -> Control | None:
        return next((c for c in self.controls if c.number == number), None)

    @property
    def inputs(self) -> list[Control]:
        """The controls in input blocks, in order: what a form walk-through asks for."""
        return [c for c in self.controls if c.in_input]

    @property
    def buttons(self) -> list[Control]:
        return [c for c in self.controls if c.kind == "button"]


def span(controls: Sequence[Control]) -> str:
    """Their numbers, as short as a prompt can say them: `2`, `1-3`, `1,4`."""
    numbers = [c.number for c in controls]
    if len(numbers) == 1:
        return str(numbers[0])
    if numbers == list(range(numbers[0], numbers[-1] + 1)):
        return f"{numbers[0]}-{numbers[-1]}"
    return ",".join(str(n) for n in numbers)


def numbers_to_type(controls: Sequence[Control]) -> str:
    """What to type to use one of them, or that there is nothing to click."""
    if not controls:
        return "it has nothing to click"
    return f"type one of {span(controls)}"


def describe_value(control: Control, entry: Mapping[str, Any] | None) -> str:
    """What `control` holds in a person's draft (its `state.values` entry), as a line shows
    it: `“text”`, the chosen labels, or that nothing is set."""
    if entry is None:
        return "(nothing set)"
    if control.kind == "text":
        value = entry.get("value")
        return f"“{value}”" if isinstance(value, str) and value else "(empty)"
    chosen = entry.get("selected_options")
    if chosen is None:
        one = entry.get("selected_option")
        chosen = [one] if isinstance(one, Mapping) else []
    labels = {choice.value: choice.label for choice in control.options}
    picked = [
        labels.get(str(option.get("value")), str(option.get("value")))
        for option in chosen
        if isinstance(option, Mapping)
    ]
    if picked:
        return ", ".join(picked)
    return "(none ticked)" if control.kind == "many" else "(none chosen)"
