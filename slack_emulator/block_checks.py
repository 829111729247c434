"""Block Kit checks: walks `blocks` and views against the limits table in `limits.py`.

Every `blocks` array and `view` the emulator receives is checked here before it is stored.
slack_sdk's models catch many rules at `to_dict()`, but not the 50-block cap, the 10-option
caps of checkboxes and radio buttons, or block_id uniqueness, and they say nothing about how
Slack words a refusal. So the whole rule set lives in one table (`limits.LIMITS`), each row citing
the page it comes from, and the checker below walks a payload against it.

A finding is an `Issue`: a stable `rule` (the `LIMITS` key or one of the structural rules
below), the JSON pointer Slack names, and the sentence Slack prints, e.g.
`[ERROR] must be less than 3001 characters [json-pointer:/blocks/0/text/text]`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from slack_emulator.block_limits import (
    ACCESSORY_ELEMENTS,
    ACTIONS_ELEMENTS,
    CONTEXT_ACTIONS_ELEMENTS,
    CONTEXT_ELEMENTS,
    INPUT_ELEMENTS,
    LIMITS,
    PLAIN,
    RULE_BLOCK_TYPE,
    RULE_ELEMENT_TYPE,
    RULE_INPUT_NEEDS_SUBMIT,
    RULE_REQUIRED,
    RULE_SHAPE,
    RULE_TEXT_TYPE,
    RULE_UNIQUE_ACTION_ID,
    RULE_UNIQUE_BLOCK_ID,
    RULE_VIEW_TYPE,
    TEXT_TYPES,
    UNCHECKED_BLOCKS,
    Limit,
    Surface,
)


@dataclass(frozen=True)
class Issue:
    """One reason Slack would refuse a payload."""

    rule: str
    pointer: str
    message: str

    @property
    def slack_message(self) -> str:
        return f"[ERROR] {self.message} [json-pointer:{self.pointer}]"


def too_long(limit: Limit) -> str:
    return f"must be less than {limit.max + 1} characters"


def check_blocks(blocks: object, *, surface: Surface, pointer: str = "/blocks") -> list[Issue]:
    """Check a `blocks` array as a message (or a view's `blocks`) would carry it."""
    checker = _Checker(surface)
    checker.blocks(blocks, pointer)
    return checker.issues


def check_message_text(text: str, *, pointer: str = "/text") -> list[Issue]:
    limit = LIMITS["message.text"]
    if len(text) > limit.max:
        return [Issue(limit.rule, pointer, too_long(limit))]
    return []


def check_view(view: object, *, pointer: str = "/view") -> list[Issue]:
    """Check a modal or Home tab view object."""
    checker = _Checker("modal")
    if not isinstance(view, dict):
        checker.fail(RULE_SHAPE, pointer, "must be an object")
        return checker.issues
    view_type = view.get("type")
    if view_type not in ("modal", "home"):
        checker.fail(RULE_VIEW_TYPE, f"{pointer}/type", f"unsupported type: {view_type}")
        return checker.issues
    surface: Surface = "modal" if view_type == "modal" else "home"
    checker.surface = surface
    if surface == "modal":
        checker.text(view, "title", pointer, LIMITS["view.title"], kinds=PLAIN, required=True)
        checker.text(view, "submit", pointer, LIMITS["view.submit"], kinds=PLAIN)
        checker.text(view, "close", pointer, LIMITS["view.close"], kinds=PLAIN)
    for name in ("private_metadata", "callback_id", "external_id"):
        checker.string(view, name, pointer, LIMITS[f"view.{name}"])
    checker.blocks(view.get("blocks"), f"{pointer}/blocks")
    blocks = view.get("blocks")
    if surface == "modal" and view.get("submit") is None and isinstance(blocks, list):
        # "submit is required when an input block is within the blocks array." (modal views)
        for index, block in enumerate(blocks):
            if isinstance(block, dict) and block.get("type") == "input":
                checker.fail(
                    RULE_INPUT_NEEDS_SUBMIT,
                    f"{pointer}/blocks/{index}",
                    "must define `submit` to use an `input` block in modals",
                )
                break
    return checker.issues


_BlockCheck = Callable[["_Checker", dict[str, object], str, set[str]], None]
_ElementCheck = Callable[["_Checker", dict[str, object], str], None]


class _Checker:
    """Walks one payload, collecting issues; the per-type checks are the methods below."""

    def __init__(self, surface: Surface) -> None:
        self.surface: Surface = surface
        self.issues: list[Issue] = []
        self.markdown_chars = 0

    def fail(self, rule: str, pointer: str, message: str) -> None:
        self.issues.append(Issue(rule, pointer, message))

    # primitives -------------------------------------------------------------------------

    def chars(self, value: object, pointer: str, limit: Limit) -> None:
        if not isinstance(value, str):
            self.fail(RULE_SHAPE, pointer, "must be a string")
            return
        if len(value) > limit.max:
            self.fail(limit.rule, pointer, too_long(limit))
        elif len(value) < limit.min:
            self.fail(limit.rule, pointer, f"must be more than {limit.min - 1} characters")

    def items(self, value: object, pointer: str, limit: Limit) -> list[object] | None:
        if not isinstance(value, list):
            self.fail(RULE_SHAPE, pointer, "must be an array")
            return None
        if len(value) > limit.max:
            self.fail(limit.rule, pointer, f"no more than {limit.max} items allowed")
        elif len(value) < limit.min:
            self.fail(limit.rule, pointer, f"must provide at least {limit.min} items")
        return value

    def required(self, parent: dict[str, object], name: str, pointer: str) -> bool:
        if parent.get(name) is None:
            self.fail(RULE_REQUIRED, pointer, f"missing required field: {name}")
            return False
        return True

    def string(self, parent: dict[str, object], name: str, pointer: str, limit: Limit) -> None:
        """An optional plain string field."""
        if parent.get(name) is not None:
            self.chars(parent[name], f"{pointer}/{name}", limit)

    def text(
        self,
        parent: dict[str, object],
        name: str,
        pointer: str,
        limit: Limit,
        *,
        kinds: frozenset[str] = TEXT_TYPES,
        required: bool = False,
    ) -> None:
        """A text object field (`{"type": "plain_text", "text": ...}`)."""
        value = parent.get(name)
        if value is None:
            if required:
                self.required(parent, name, pointer)
            return
        self.text_object(value, f"{pointer}/{name}", limit, kinds=kinds)

    def text_object(
        self, value: object, pointer: str, limit: Limit, *, kinds: frozenset[str] = TEXT_TYPES
    ) -> None:
        if not isinstance(value, dict):
            self.fail(RULE_SHAPE, pointer, "must provide an object")
            return
        if value.get("type") not in kinds:
            self.fail(RULE_TEXT_TYPE, pointer, "failed to match all allowed schemas")
            return
        if self.required(value, "text", pointer):
            self.chars(value["text"], f"{pointer}/text", limit)

    def objects(
        self, value: object, pointer: str, limit: Limit
    ) -> list[tuple[str, dict[str, object]]]:
        """An array of objects with a count limit; returns (pointer, object) pairs."""
        found = self.items(value, pointer, limit)
        pairs: list[tuple[str, dict[str, object]]] = []
        for index, item in enumerate(found or []):
            item_pointer = f"{pointer}/{index}"
            if isinstance(item, dict):
                pairs.append((item_pointer, item))
            else:
                self.fail(RULE_SHAPE, item_pointer, "must provide an object")
        return pairs

    # blocks -----------------------------------------------------------------------------

    def blocks(self, blocks: object, pointer: str) -> None:
        limit = LIMITS[f"{self.surface}.blocks"]
        seen_block_ids: set[str] = set()
        for block_pointer, block in self.objects(blocks, pointer, limit):
            block_type = block.get("type")
            check = _BLOCK_CHECKS.get(block_type) if isinstance(block_type, str) else None
            if check is None and block_type not in UNCHECKED_BLOCKS:
                self.fail(
                    RULE_BLOCK_TYPE, f"{block_pointer}/type", f"unsupported type: {block_type}"
                )
                continue
            block_id = block.get("block_id")
            if block_id is not None:
                self.chars(block_id, f"{block_pointer}/block_id", LIMITS["block_id"])
                if isinstance(block_id, str):
                    if block_id in seen_block_ids:
                        self.fail(
                            RULE_UNIQUE_BLOCK_ID,
                            f"{block_pointer}/block_id",
                            f'`block_id` "{block_id}" already exists',
                        )
                    seen_block_ids.add(block_id)
            if check is not None:
                check(self, block, block_pointer, set())
        markdown = LIMITS["markdown.text"]
        if self.markdown_chars > markdown.max:
            self.fail(
                markdown.rule,
                pointer,
                f"cumulative markdown text must be less than {markdown.max + 1} characters",
            )

    def section(self, block: dict[str, object], pointer: str, action_ids: set[str]) -> None:
        if block.get("text") is None and block.get("fields") is None:
            self.required(block, "text", pointer)
        self.text(block, "text", pointer, LIMITS["section.text"])
        if block.get("fields") is not None:
            for field_pointer, field in self.objects(
                block["fields"], f"{pointer}/fields", LIMITS["section.fields"]
            ):
                self.text_object(field, field_pointer, LIMITS["section.field"])
        if block.get("accessory") is not None:
            self.element(block["accessory"], f"{pointer}/accessory", ACCESSORY_ELEMENTS, action_ids)

    def header(self, block: dict[str, object], pointer: str, action_ids: set[str]) -> None:
        self.text(block, "text", pointer, LIMITS["header.text"], kinds=PLAIN, required=True)

    def context(self, block: dict[str, object], pointer: str, action_ids: set[str]) -> None:
        if not self.required(block, "elements", pointer):
            return
        for element_pointer, element in self.objects(
            block["elements"], f"{pointer}/elements", LIMITS["context.elements"]
        ):
            element_type = element.get("type")
            if element_type not in CONTEXT_ELEMENTS:
                self.fail(
                    RULE_ELEMENT_TYPE,
                    f"{element_pointer}/type",
                    f"unsupported type: {element_type}",
                )
            elif element_type == "image":
                self.image_element(element, element_pointer)
            else:
                self.text_object(element, element_pointer, LIMITS["context.text"])

    def actions(self, block: dict[str, object], pointer: str, action_ids: set[str]) -> None:
        if not self.required(block, "elements", pointer):
            return
        for element_pointer, element in self.objects(
            block["elements"], f"{pointer}/elements", LIMITS["actions.elements"]
        ):
            self.element(element, element_pointer, ACTIONS_ELEMENTS, action_ids)

    def context_actions(self, block: dict[str, object], pointer: str, action_ids: set[str]) -> None:
        if not self.required(block, "elements", pointer):
            return
        for element_pointer, element in self.objects(
            block["elements"], f"{pointer}/elements", LIMITS["context_actions.elements"]
        ):
            self.element(element, element_pointer, CONTEXT_ACTIONS_ELEMENTS, action_ids)

    def input(self, block: dict[str, object], pointer: str, action_ids: set[str]) -> None:
        self.text(block, "label", pointer, LIMITS["input.label"], kinds=PLAIN, required=True)
        self.text(block, "hint", pointer, LIMITS["input.hint"], kinds=PLAIN)
        if self.required(block, "element", pointer):
            self.element(block["element"], f"{pointer}/element", INPUT_ELEMENTS, action_ids)

    def image_block(self, block: dict[str, object], pointer: str, action_ids: set[str]) -> None:
        self.image_element(block, pointer)
        self.text(block, "title", pointer, LIMITS["image.title"], kinds=PLAIN)

    def markdown(self, block: dict[str, object], pointer: str, action_ids: set[str]) -> None:
        if self.required(block, "text", pointer):
            text = block["text"]
            self.chars(text, f"{pointer}/text", LIMITS["markdown.text"])
            if isinstance(text, str):
                self.markdown_chars += len(text)

    # elements ---------------------------------------------------------------------------

    def element(
        self, value: object, pointer: str, allowed: frozenset[str], action_ids: set[str]
    ) -> None:
        if not isinstance(value, dict):
            self.fail(RULE_SHAPE, pointer, "must provide an object")
            return
        element_type = value.get("type")
        if element_type not in allowed:
            self.fail(RULE_ELEMENT_TYPE, f"{pointer}/type", f"unsupported type: {element_type}")
            return
        action_id = value.get("action_id")
        if action_id is not None:
            self.chars(action_id, f"{pointer}/action_id", LIMITS["action_id"])
            if isinstance(action_id, str):
                # "Should be unique among all other action_ids in the containing block."
                if action_id in action_ids:
                    self.fail(
                        RULE_UNIQUE_ACTION_ID,
                        f"{pointer}/action_id",
                        f'`action_id` "{action_id}" already exists',
                    )
                action_ids.add(action_id)
        if value.get("placeholder") is not None:
            self.text(value, "placeholder", pointer, LIMITS["placeholder"], kinds=PLAIN)
        if value.get("confirm") is not None:
            self.confirm(value["confirm"], f"{pointer}/confirm")
        check = _ELEMENT_CHECKS.get(str(element_type))
        if check is not None:
            check(self, value, pointer)

    def button(self, element: dict[str, object], pointer: str) -> None:
        self.text(element, "text", pointer, LIMITS["button.text"], kinds=PLAIN, required=True)
        for name in ("value", "url", "accessibility_label"):
            self.string(element, name, pointer, LIMITS[f"button.{name}"])

    def feedback_buttons(self, element: dict[str, object], pointer: str) -> None:
        for side in ("positive_button", "negative_button"):
            if not self.required(element, side, pointer):
                continue
            button = element[side]
            side_pointer = f"{pointer}/{side}"
            if not isinstance(button, dict):
                self.fail(RULE_SHAPE, side_pointer, "must provide an object")
                continue
            self.text(
                button,
                "text",
                side_pointer,
                LIMITS["feedback_button.text"],
                kinds=PLAIN,
                required=True,
            )
            if self.required(button, "value", side_pointer):
                self.chars(
                    button["value"], f"{side_pointer}/value", LIMITS["feedback_button.value"]
                )
            self.string(
                button,
                "accessibility_label",
                side_pointer,
                LIMITS["feedback_button.accessibility_label"],
            )

    def image_element(self, element: dict[str, object], pointer: str) -> None:
        if element.get("slack_file") is None and self.required(element, "image_url", pointer):
            self.chars(element["image_url"], f"{pointer}/image_url", LIMITS["image.image_url"])
        if self.required(element, "alt_text", pointer):
            self.chars(element["alt_text"], f"{pointer}/alt_text", LIMITS["image.alt_text"])

    def image_accessory(self, element: dict[str, object], pointer: str) -> None:
        self.image_element(element, pointer)

    def static_select(self, element: dict[str, object], pointer: str) -> None:
        element_type = str(element.get("type"))
        if element.get("option_groups") is not None:
            for group_pointer, group in self.objects(
                element["option_groups"],
                f"{pointer}/option_groups",
                LIMITS[f"{element_type}.option_groups"],
            ):
                self.text(
                    group,
                    "label",
                    group_pointer,
                    LIMITS["option_group.label"],
                    kinds=PLAIN,
                    required=True,
                )
                if self.required(group, "options", group_pointer):
                    self.options(
                        group["options"],
                        f"{group_pointer}/options",
                        LIMITS["option_group.options"],
                        PLAIN,
                    )
        elif self.required(element, "options", pointer):
            self.options(
                element["options"], f"{pointer}/options", LIMITS[f"{element_type}.options"], PLAIN
            )

    def choices(self, element: dict[str, object], pointer: str) -> None:
        """checkboxes and radio_buttons: options whose text may be mrkdwn."""
        if self.required(element, "options", pointer):
            limit = LIMITS[f"{element.get('type')}.options"]
            self.options(element["options"], f"{pointer}/options", limit, TEXT_TYPES)

    def overflow(self, element: dict[str, object], pointer: str) -> None:
        if self.required(element, "options", pointer):
            self.options(
                element["options"], f"{pointer}/options", LIMITS["overflow.options"], PLAIN
            )

    def text_input(self, element: dict[str, object], pointer: str) -> None:
        for name in ("min_length", "max_length"):
            value = element.get(name)
            limit = LIMITS["plain_text_input.max_length"]
            if isinstance(value, int) and not 0 <= value <= limit.max:
                self.fail(limit.rule, f"{pointer}/{name}", f"must be less than {limit.max + 1}")

    def options(self, value: object, pointer: str, limit: Limit, kinds: frozenset[str]) -> None:
        for option_pointer, option in self.objects(value, pointer, limit):
            self.text(
                option, "text", option_pointer, LIMITS["option.text"], kinds=kinds, required=True
            )
            if self.required(option, "value", option_pointer):
                self.chars(option["value"], f"{option_pointer}/value", LIMITS["option.value"])
            self.text(
                option, "description", option_pointer, LIMITS["option.description"], kinds=kinds
            )
            self.string(option, "url", option_pointer, LIMITS["option.url"])

    def confirm(self, value: object, pointer: str) -> None:
        if not isinstance(value, dict):
            self.fail(RULE_SHAPE, pointer, "must provide an object")
            return
        for name in ("title", "text", "confirm", "deny"):
            kinds = TEXT_TYPES if name == "text" else PLAIN
            self.text(value, name, pointer, LIMITS[f"confirm.{name}"], kinds=kinds, required=True)


_BLOCK_CHECKS: Final[dict[str, _BlockCheck]] = {
    "section": _Checker.section,
    "header": _Checker.header,
    "context": _Checker.context,
    "context_actions": _Checker.context_actions,
    "actions": _Checker.actions,
    "input": _Checker.input,
    "image": _Checker.image_block,
    "markdown": _Checker.markdown,
}

_ELEMENT_CHECKS: Final[dict[str, _ElementCheck]] = {
    "button": _Checker.button,
    "workflow_button": _Checker.button,
    "feedback_buttons": _Checker.feedback_buttons,
    "image": _Checker.image_accessory,
    "static_select": _Checker.static_select,
    "multi_static_select": _Checker.static_select,
    "checkboxes": _Checker.choices,
    "radio_buttons": _Checker.choices,
    "overflow": _Checker.overflow,
    "plain_text_input": _Checker.text_input,
}
