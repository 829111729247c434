"""controls: what the terminal lets a person do with each element, derived from the emulator's
element table, so the terminal offers exactly what `Person` can do."""

from __future__ import annotations

from slack_emulator.elements import GESTURES
from slack_emulator.terminal.controls import control_kind


def test_every_element_a_person_can_use_gets_a_usable_kind() -> None:
    assert {kind: control_kind(kind) for kind in GESTURES} == {
        "button": "button",
        "workflow_button": "button",
        "static_select": "one",
        "overflow": "one",
        "radio_buttons": "one",
        "multi_static_select": "many",
        "checkboxes": "many",
        "plain_text_input": "text",
        "email_text_input": "text",
        "url_text_input": "text",
        "number_input": "text",
        # Given in tests with `Person.give_feedback`; the terminal does not offer it yet.
        "feedback_buttons": "other",
        "users_select": "other",
    }


def test_an_element_the_emulator_cannot_use_is_shown_but_not_usable() -> None:
    assert control_kind("datepicker") == "other"
    assert control_kind("users_select") == "other"
