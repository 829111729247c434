"""Slack's documented Block Kit limits, as a typed table, and the vocabulary the checker uses.

Each `Limit` row names the docs.slack.dev page it comes from. `slack_emulator.block_checks` walks
payloads against this table; tests prove every rule with one valid and one invalid payload.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, Literal, TypeAlias

Surface: TypeAlias = Literal["message", "modal", "home"]
Unit: TypeAlias = Literal["characters", "items"]

_REF = "https://docs.slack.dev/reference"
BLOCKS_DOC: Final = f"{_REF}/block-kit/blocks"
SECTION_DOC: Final = f"{_REF}/block-kit/blocks/section-block"
HEADER_DOC: Final = f"{_REF}/block-kit/blocks/header-block"
CONTEXT_DOC: Final = f"{_REF}/block-kit/blocks/context-block"
ACTIONS_DOC: Final = f"{_REF}/block-kit/blocks/actions-block"
INPUT_DOC: Final = f"{_REF}/block-kit/blocks/input-block"
IMAGE_DOC: Final = f"{_REF}/block-kit/blocks/image-block"
MARKDOWN_DOC: Final = f"{_REF}/block-kit/blocks/markdown-block"
BUTTON_DOC: Final = f"{_REF}/block-kit/block-elements/button-element"
CHECKBOXES_DOC: Final = f"{_REF}/block-kit/block-elements/checkboxes-element"
RADIO_DOC: Final = f"{_REF}/block-kit/block-elements/radio-button-group-element"
SELECT_DOC: Final = f"{_REF}/block-kit/block-elements/select-menu-element"
MULTI_SELECT_DOC: Final = f"{_REF}/block-kit/block-elements/multi-select-menu-element"
OVERFLOW_DOC: Final = f"{_REF}/block-kit/block-elements/overflow-menu-element"
TEXT_INPUT_DOC: Final = f"{_REF}/block-kit/block-elements/plain-text-input-element"
OPTION_DOC: Final = f"{_REF}/block-kit/composition-objects/option-object"
OPTION_GROUP_DOC: Final = f"{_REF}/block-kit/composition-objects/option-group-object"
CONFIRM_DOC: Final = f"{_REF}/block-kit/composition-objects/confirmation-dialog-object"
MODAL_DOC: Final = f"{_REF}/views/modal-views"
MESSAGE_TEXT_DOC: Final = f"{_REF}/methods/chat.postMessage"
CONTEXT_ACTIONS_DOC: Final = f"{_REF}/block-kit/blocks/context-actions-block"
FEEDBACK_BUTTONS_DOC: Final = f"{_REF}/block-kit/block-elements/feedback-buttons-element"


@dataclass(frozen=True)
class Limit:
    """One documented limit: at most `max` (and at least `min`) characters or items."""

    rule: str
    unit: Unit
    max: int
    min: int = 0
    doc: str = BLOCKS_DOC


def _table(*limits: Limit) -> dict[str, Limit]:
    return {limit.rule: limit for limit in limits}


LIMITS: Final[dict[str, Limit]] = _table(
    # "You can include up to 50 blocks in each message, and 100 blocks in modals or Home tabs."
    Limit("message.blocks", "items", 50, doc=BLOCKS_DOC),
    Limit("modal.blocks", "items", 100, doc=MODAL_DOC),
    Limit("home.blocks", "items", 100, doc=BLOCKS_DOC),
    # chat.postMessage: "msg_too_long"; Slack documents 40,000 characters as the ceiling.
    Limit("message.text", "characters", 40_000, doc=MESSAGE_TEXT_DOC),
    Limit("block_id", "characters", 255, min=1, doc=BLOCKS_DOC),
    Limit("action_id", "characters", 255, min=1, doc=BUTTON_DOC),
    Limit("section.text", "characters", 3000, min=1, doc=SECTION_DOC),
    Limit("section.fields", "items", 10, min=1, doc=SECTION_DOC),
    Limit("section.field", "characters", 2000, min=1, doc=SECTION_DOC),
    Limit("header.text", "characters", 150, min=1, doc=HEADER_DOC),
    Limit("context.elements", "items", 10, min=1, doc=CONTEXT_DOC),
    Limit("context.text", "characters", 3000, min=1, doc=CONTEXT_DOC),
    Limit("actions.elements", "items", 25, min=1, doc=ACTIONS_DOC),
    Limit("input.label", "characters", 2000, min=1, doc=INPUT_DOC),
    Limit("input.hint", "characters", 2000, min=1, doc=INPUT_DOC),
    Limit("image.image_url", "characters", 3000, min=1, doc=IMAGE_DOC),
    Limit("image.alt_text", "characters", 2000, min=1, doc=IMAGE_DOC),
    Limit("image.title", "characters", 2000, min=1, doc=IMAGE_DOC),
    # "The cumulative limit for all markdown blocks in a single payload is 12,000 characters."
    Limit("markdown.text", "characters", 12_000, min=1, doc=MARKDOWN_DOC),
    Limit("button.text", "characters", 75, min=1, doc=BUTTON_DOC),
    Limit("button.value", "characters", 2000, doc=BUTTON_DOC),
    Limit("button.url", "characters", 3000, min=1, doc=BUTTON_DOC),
    Limit("button.accessibility_label", "characters", 75, min=1, doc=BUTTON_DOC),
    Limit("placeholder", "characters", 150, min=1, doc=SELECT_DOC),
    Limit("static_select.options", "items", 100, min=1, doc=SELECT_DOC),
    Limit("static_select.option_groups", "items", 100, min=1, doc=SELECT_DOC),
    Limit("multi_static_select.options", "items", 100, min=1, doc=MULTI_SELECT_DOC),
    Limit("multi_static_select.option_groups", "items", 100, min=1, doc=MULTI_SELECT_DOC),
    # slack_sdk's models do not enforce these two caps.
    Limit("checkboxes.options", "items", 10, min=1, doc=CHECKBOXES_DOC),
    Limit("radio_buttons.options", "items", 10, min=1, doc=RADIO_DOC),
    # "Maximum number of options is 5, minimum is 2" (the current page says "up to five").
    Limit("overflow.options", "items", 5, min=2, doc=OVERFLOW_DOC),
    Limit("plain_text_input.max_length", "characters", 3000, doc=TEXT_INPUT_DOC),
    Limit("option.text", "characters", 75, min=1, doc=OPTION_DOC),
    Limit("option.value", "characters", 150, min=1, doc=OPTION_DOC),
    Limit("option.description", "characters", 75, min=1, doc=OPTION_DOC),
    Limit("option.url", "characters", 3000, min=1, doc=OPTION_DOC),
    Limit("option_group.label", "characters", 75, min=1, doc=OPTION_GROUP_DOC),
    Limit("option_group.options", "items", 100, min=1, doc=OPTION_GROUP_DOC),
    Limit("confirm.title", "characters", 100, min=1, doc=CONFIRM_DOC),
    Limit("confirm.text", "characters", 300, min=1, doc=CONFIRM_DOC),
    Limit("confirm.confirm", "characters", 30, min=1, doc=CONFIRM_DOC),
    Limit("confirm.deny", "characters", 30, min=1, doc=CONFIRM_DOC),
    Limit("view.title", "characters", 24, min=1, doc=MODAL_DOC),
    Limit("view.submit", "characters", 24, min=1, doc=MODAL_DOC),
    Limit("view.close", "characters", 24, min=1, doc=MODAL_DOC),
    Limit("view.private_metadata", "characters", 3000, doc=MODAL_DOC),
    Limit("view.callback_id", "characters", 255, doc=MODAL_DOC),
    Limit("view.external_id", "characters", 255, doc=MODAL_DOC),
    # "An array of feedback buttons elements and icon button elements. Maximum number of
    # items is 5."
    Limit("context_actions.elements", "items", 5, min=1, doc=CONTEXT_ACTIONS_DOC),
    # Both buttons of a feedback_buttons element: text (plain_text) at most 75 characters,
    # value (required) at most 2000, accessibility_label at most 75.
    Limit("feedback_button.text", "characters", 75, min=1, doc=FEEDBACK_BUTTONS_DOC),
    Limit("feedback_button.value", "characters", 2000, min=1, doc=FEEDBACK_BUTTONS_DOC),
    Limit("feedback_button.accessibility_label", "characters", 75, min=1, doc=FEEDBACK_BUTTONS_DOC),
)

# Structural rules, alongside the numeric ones in LIMITS.
RULE_BLOCK_TYPE: Final = "block.type"
RULE_ELEMENT_TYPE: Final = "element.type"
RULE_VIEW_TYPE: Final = "view.type"
RULE_REQUIRED: Final = "required_field"
RULE_TEXT_TYPE: Final = "text.type"
RULE_SHAPE: Final = "shape"
RULE_UNIQUE_BLOCK_ID: Final = "block_id.unique"
RULE_UNIQUE_ACTION_ID: Final = "action_id.unique"
RULE_INPUT_NEEDS_SUBMIT: Final = "modal.submit_required"

TEXT_TYPES: Final = frozenset({"plain_text", "mrkdwn"})
PLAIN: Final = frozenset({"plain_text"})

SELECT_TYPES: Final = frozenset(
    {
        "static_select",
        "external_select",
        "users_select",
        "conversations_select",
        "channels_select",
        "multi_static_select",
        "multi_external_select",
        "multi_users_select",
        "multi_conversations_select",
        "multi_channels_select",
    }
)
ACTIONS_ELEMENTS: Final = SELECT_TYPES | {
    "button",
    "checkboxes",
    "datepicker",
    "datetimepicker",
    "overflow",
    "radio_buttons",
    "timepicker",
    "workflow_button",
    "rich_text_input",
}
ACCESSORY_ELEMENTS: Final = SELECT_TYPES | {
    "button",
    "checkboxes",
    "datepicker",
    "image",
    "overflow",
    "radio_buttons",
    "timepicker",
    "workflow_button",
}
INPUT_ELEMENTS: Final = SELECT_TYPES | {
    "checkboxes",
    "datepicker",
    "datetimepicker",
    "email_text_input",
    "file_input",
    "number_input",
    "plain_text_input",
    "radio_buttons",
    "rich_text_input",
    "timepicker",
    "url_text_input",
}
CONTEXT_ELEMENTS: Final = frozenset({"image", "plain_text", "mrkdwn"})
CONTEXT_ACTIONS_ELEMENTS: Final = frozenset({"feedback_buttons", "icon_button"})

# Blocks Slack knows whose inner structure the emulator does not check beyond block_id.
UNCHECKED_BLOCKS: Final = frozenset(
    {
        "divider",
        "file",
        "call",
        "video",
        "rich_text",
        "table",
        "task_card",
        "plan",
        "alert",
        "card",
        "container",
        "carousel",
    }
)


def rules() -> Iterable[str]:
    """Every rule the checker can report: the LIMITS keys and the structural rules."""
    structural = (
        RULE_BLOCK_TYPE,
        RULE_ELEMENT_TYPE,
        RULE_VIEW_TYPE,
        RULE_REQUIRED,
        RULE_TEXT_TYPE,
        RULE_SHAPE,
        RULE_UNIQUE_BLOCK_ID,
        RULE_UNIQUE_ACTION_ID,
        RULE_INPUT_NEEDS_SUBMIT,
    )
    return (*LIMITS, *structural)
