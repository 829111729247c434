"""What Slack's client refuses before it sends anything: a Submit with a required input empty."""

from __future__ import annotations

from typing import Any

from slack_emulator import View
from slack_emulator.playground.acts import unfilled_inputs


def text_input(block_id: str, *, optional: bool = False) -> dict[str, Any]:
    return {
        "type": "input",
        "block_id": block_id,
        "optional": optional,
        "label": {"type": "plain_text", "text": block_id},
        "element": {"type": "plain_text_input", "action_id": "sq_input"},
    }


def modal(blocks: list[dict[str, Any]], state: dict[str, Any]) -> View:
    return View(
        id="V0FORM",
        user_id="U0ALICE001",
        type="modal",
        team_id="T0TEAM",
        app_id="A0APP",
        bot_id="B0BOT",
        hash="1",
        blocks=blocks,
        state=state,
    )


def test_the_required_inputs_left_empty_are_named_in_order() -> None:
    view = modal(
        [
            {"type": "section", "block_id": "intro", "text": {"type": "mrkdwn", "text": "Hi"}},
            text_input("name"),
            text_input("note", optional=True),
            text_input("team"),
            text_input("city"),
        ],
        {
            "name": {"sq_input": {"type": "plain_text_input", "value": ""}},
            "city": {"sq_input": {"type": "plain_text_input", "value": "Lisbon"}},
        },
    )
    assert unfilled_inputs(view) == ["name", "team"]


def test_a_form_with_every_required_input_filled_has_none_unfilled() -> None:
    view = modal(
        [text_input("name")], {"name": {"sq_input": {"type": "plain_text_input", "value": "x"}}}
    )
    assert unfilled_inputs(view) == []
