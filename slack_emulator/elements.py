"""Block Kit structure: where the interactive elements are, what they hold, and how Slack
normalises blocks it stores (generated block_ids/action_ids, `emoji`/`verbatim` flags)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Final, Literal, TypeAlias

from slack_emulator.wire import JsonDict, StateValues, clone_list

# Elements whose current value Slack reports in `state.values`, and the key it uses.
VALUE_KEYS: Final[dict[str, str]] = {
    "plain_text_input": "value",
    "email_text_input": "value",
    "url_text_input": "value",
    "number_input": "value",
    "static_select": "selected_option",
    "external_select": "selected_option",
    "radio_buttons": "selected_option",
    "multi_static_select": "selected_options",
    "multi_external_select": "selected_options",
    "checkboxes": "selected_options",
    "users_select": "selected_user",
    "multi_users_select": "selected_users",
    "conversations_select": "selected_conversation",
    "multi_conversations_select": "selected_conversations",
    "channels_select": "selected_channel",
    "multi_channels_select": "selected_channels",
    "datepicker": "selected_date",
    "timepicker": "selected_time",
    "datetimepicker": "selected_date_time",
    "rich_text_input": "rich_text_value",
}

# Where an element's initial value lives in its definition, per state key.
_INITIAL_KEYS: Final[dict[str, str]] = {
    "value": "initial_value",
    "selected_option": "initial_option",
    "selected_options": "initial_options",
    "selected_user": "initial_user",
    "selected_users": "initial_users",
    "selected_conversation": "initial_conversation",
    "selected_conversations": "initial_conversations",
    "selected_channel": "initial_channel",
    "selected_channels": "initial_channels",
    "selected_date": "initial_date",
    "selected_time": "initial_time",
    "selected_date_time": "initial_date_time",
    "rich_text_value": "initial_value",
}
_PLURAL_KEYS: Final = frozenset(
    {"selected_options", "selected_users", "selected_conversations", "selected_channels"}
)

Gesture: TypeAlias = Literal["click", "select", "check", "choose", "type", "rate"]
"""How a person uses an element: one `Person` method each."""

GESTURES: Final[dict[str, Gesture]] = {
    "button": "click",
    "workflow_button": "click",
    "static_select": "select",
    "multi_static_select": "select",
    "overflow": "select",
    "users_select": "select",
    "checkboxes": "check",
    "radio_buttons": "choose",
    "plain_text_input": "type",
    "email_text_input": "type",
    "url_text_input": "type",
    "number_input": "type",
    "feedback_buttons": "rate",
}
"""The elements people can use in the emulator, by type; others are found but not usable."""


def types_used_by(gesture: Gesture) -> frozenset[str]:
    """The element types a person uses with `gesture`."""
    return frozenset(kind for kind, used in GESTURES.items() if used == gesture)


def picks_many(element_type: str) -> bool:
    """Whether the element holds any number of options (multi-selects, checkboxes)."""
    return VALUE_KEYS.get(element_type) in _PLURAL_KEYS


@dataclass(frozen=True)
class ElementRef:
    """An interactive element found in a surface's blocks."""

    block_id: str
    block_type: str
    element: JsonDict
    dispatches: bool
    """Using it sends block_actions at once: true outside input blocks, and inside an input
    block only when the block sets `dispatch_action`."""

    @property
    def action_id(self) -> str:
        return str(self.element.get("action_id", ""))

    @property
    def type(self) -> str:
        return str(self.element.get("type", ""))

    @property
    def label(self) -> str | None:
        text = self.element.get("text")
        if isinstance(text, dict) and isinstance(text.get("text"), str):
            return str(text["text"])
        return None

    def describe(self) -> str:
        label = f' "{self.label}"' if self.label is not None else ""
        return f"{self.type}{label} (block_id={self.block_id!r}, action_id={self.action_id!r})"


def interactive_elements(blocks: list[JsonDict]) -> Iterator[ElementRef]:
    """Every element a person can use: actions elements, section accessories, input elements."""
    for block in blocks:
        block_type = str(block.get("type", ""))
        block_id = str(block.get("block_id", ""))
        if block_type in ("actions", "context_actions"):
            for element in block.get("elements") or []:
                yield ElementRef(block_id, block_type, element, dispatches=True)
        elif block_type == "section" and isinstance(block.get("accessory"), dict):
            accessory = block["accessory"]
            if accessory.get("type") != "image":
                yield ElementRef(block_id, block_type, accessory, dispatches=True)
        elif block_type == "input" and isinstance(block.get("element"), dict):
            dispatches = block.get("dispatch_action") is True
            yield ElementRef(block_id, block_type, block["element"], dispatches=dispatches)


def find_element(
    blocks: list[JsonDict],
    *,
    types: frozenset[str],
    verb: str,
    action_id: str | None = None,
    block_id: str | None = None,
    text: str | None = None,
) -> ElementRef:
    """The one element matching the filters, or LookupError listing what is there."""
    candidates = list(interactive_elements(blocks))
    matches = [
        ref
        for ref in candidates
        if ref.type in types
        and (action_id is None or ref.action_id == action_id)
        and (block_id is None or ref.block_id == block_id)
        and (text is None or ref.label == text)
    ]
    if len(matches) == 1:
        return matches[0]
    wanted = ", ".join(
        f"{name}={value!r}"
        for name, value in (("action_id", action_id), ("block_id", block_id), ("text", text))
        if value is not None
    )
    present = "; ".join(ref.describe() for ref in candidates) or "no interactive elements"
    if not matches:
        raise LookupError(f"nothing to {verb} with {wanted or 'no filter'}; present: {present}")
    raise LookupError(
        f"{len(matches)} elements to {verb} match {wanted or 'no filter'}; narrow it down: "
        + "; ".join(ref.describe() for ref in matches)
    )


def find_option(element: JsonDict, value: str) -> JsonDict:
    """An option of `element` by its value (options or option_groups), or LookupError."""
    options = list(all_options(element))
    for option in options:
        if option.get("value") == value:
            return option
    values = ", ".join(repr(option.get("value")) for option in options) or "none"
    raise LookupError(
        f"{element.get('type')} {element.get('action_id')!r} has no option {value!r}; options: {values}"
    )


def all_options(element: JsonDict) -> Iterator[JsonDict]:
    yield from element.get("options") or []
    for group in element.get("option_groups") or []:
        yield from group.get("options") or []


def initial_value(element: JsonDict) -> JsonDict | None:
    """The `state.values` entry of a stateful element before anyone touches it."""
    element_type = str(element.get("type", ""))
    key = VALUE_KEYS.get(element_type)
    if key is None:
        return None
    initial: Any = element.get(_INITIAL_KEYS[key])
    if initial is None and key in _PLURAL_KEYS:
        initial = []
    return {"type": element_type, key: initial}


def value_of(element: JsonDict, new_value: Any) -> JsonDict:
    element_type = str(element.get("type", ""))
    return {"type": element_type, VALUE_KEYS[element_type]: new_value}


def initial_state(blocks: list[JsonDict]) -> StateValues:
    """`state.values` for a fresh surface: every stateful element at its initial value."""
    values: StateValues = {}
    for ref in interactive_elements(blocks):
        entry = initial_value(ref.element)
        if entry is not None:
            values.setdefault(ref.block_id, {})[ref.action_id] = entry
    return values


def carry_over(previous: StateValues, blocks: list[JsonDict]) -> StateValues:
    """State after the blocks change: kept where block_id, action_id and type are unchanged
    (as Slack keeps input across `views.update`), initial elsewhere."""
    values = initial_state(blocks)
    for block_id, actions in values.items():
        for action_id, entry in actions.items():
            old = previous.get(block_id, {}).get(action_id)
            if old is not None and old.get("type") == entry.get("type"):
                actions[action_id] = old
    return values


def normalize_blocks(blocks: list[JsonDict], *, new_id: Callable[[], str]) -> list[JsonDict]:
    """What Slack stores: a copy with block_ids and action_ids filled in and text objects
    flagged (`emoji: true` on plain_text, `verbatim: false` on mrkdwn)."""
    stored = clone_list(blocks)
    for block in stored:
        block.setdefault("block_id", new_id())
        for ref in interactive_elements([block]):
            ref.element.setdefault("action_id", new_id())
        _flag_text_objects(block)
    return stored


def normalize_text_object(value: JsonDict) -> JsonDict:
    copy = dict(value)
    _flag_text_objects(copy)
    return copy


def _flag_text_objects(node: Any) -> None:
    if isinstance(node, dict):
        if node.get("type") == "rich_text":
            return
        if node.get("type") == "plain_text" and "text" in node:
            node.setdefault("emoji", True)
        elif node.get("type") == "mrkdwn" and "text" in node:
            node.setdefault("verbatim", False)
        for child in node.values():
            _flag_text_objects(child)
    elif isinstance(node, list):
        for child in node:
            _flag_text_objects(child)


def option_payload(option: JsonDict) -> JsonDict:
    """An option as Slack echoes it in `selected_option(s)`."""
    echoed: JsonDict = {"text": option.get("text"), "value": option.get("value")}
    if option.get("description") is not None:
        echoed["description"] = option["description"]
    return echoed
