"""Block Kit payloads the tests post, and what Slack stores for them."""

from __future__ import annotations

from typing import Any

Json = dict[str, Any]


def plain(text: str) -> Json:
    return {"type": "plain_text", "text": text}


def stored_plain(text: str) -> Json:
    """A plain_text object as Slack stores and echoes it."""
    return {"type": "plain_text", "text": text, "emoji": True}


def option(label: str, value: str) -> Json:
    return {"text": plain(label), "value": value}


def stored_option(label: str, value: str) -> Json:
    return {"text": stored_plain(label), "value": value}


DATABASES = [option("Postgres (Recommended)", "0"), option("SQLite", "1"), option("DuckDB", "2")]

QUESTION_BLOCKS: list[Json] = [
    {
        "type": "section",
        "block_id": "intro",
        "text": {"type": "mrkdwn", "text": "*Which database?*"},
    },
    {
        "type": "actions",
        "block_id": "q1",
        "elements": [
            {
                "type": "button",
                "action_id": "approve",
                "text": plain("Approve"),
                "value": "0",
                "style": "primary",
            },
            {"type": "button", "action_id": "decline", "text": plain("Decline"), "value": "1"},
            {
                "type": "static_select",
                "action_id": "pick",
                "placeholder": plain("Choose"),
                "options": DATABASES,
            },
            {"type": "multi_static_select", "action_id": "many", "options": DATABASES},
        ],
    },
    {
        "type": "actions",
        "block_id": "q2",
        "elements": [
            {"type": "checkboxes", "action_id": "boxes", "options": DATABASES},
            {"type": "radio_buttons", "action_id": "radio", "options": DATABASES},
        ],
    },
    {
        "type": "input",
        "block_id": "q3",
        "label": plain("Other"),
        "element": {"type": "plain_text_input", "action_id": "other"},
    },
    {
        "type": "input",
        "block_id": "q4",
        "dispatch_action": True,
        "label": plain("Say it and press Enter"),
        "element": {"type": "plain_text_input", "action_id": "enter"},
    },
]

INITIAL_STATE: Json = {
    "q1": {
        "pick": {"type": "static_select", "selected_option": None},
        "many": {"type": "multi_static_select", "selected_options": []},
    },
    "q2": {
        "boxes": {"type": "checkboxes", "selected_options": []},
        "radio": {"type": "radio_buttons", "selected_option": None},
    },
    "q3": {"other": {"type": "plain_text_input", "value": None}},
    "q4": {"enter": {"type": "plain_text_input", "value": None}},
}


def answer_modal(**extra: Any) -> Json:
    return {
        "type": "modal",
        "callback_id": "answer",
        "title": plain("Answer"),
        "submit": plain("Send"),
        "close": plain("Cancel"),
        "private_metadata": "ask-42",
        "blocks": [
            {
                "type": "input",
                "block_id": "q1",
                "label": plain("Which database?"),
                "element": {"type": "radio_buttons", "action_id": "choice", "options": DATABASES},
            },
            {
                "type": "input",
                "block_id": "q2",
                "optional": True,
                "label": plain("Anything else?"),
                "element": {"type": "plain_text_input", "action_id": "text", "multiline": True},
            },
            {
                "type": "actions",
                "block_id": "tools",
                "elements": [{"type": "button", "action_id": "detail", "text": plain("Show plan")}],
            },
        ],
        **extra,
    }
