"""A person picks someone in a users_select, as Slack's client lets them: the submission
carries `selected_user`, and only a workspace member can be picked."""

from __future__ import annotations

from typing import Any

import pytest
from slack_bolt.async_app import AsyncAck, AsyncApp

from slack_emulator import SlackEmulator

from .conftest import ALICE, BOB
from .test_modals import open_modal

PICKER: dict[str, Any] = {
    "type": "modal",
    "callback_id": "answer",
    "title": {"type": "plain_text", "text": "Hand it over"},
    "submit": {"type": "plain_text", "text": "Send"},
    "blocks": [
        {
            "type": "input",
            "block_id": "to",
            "label": {"type": "plain_text", "text": "To"},
            "element": {"type": "users_select", "action_id": "who"},
        }
    ],
}


async def test_a_picked_user_is_submitted_as_selected_user(
    emu: SlackEmulator, http_app: AsyncApp
) -> None:
    bodies: list[dict[str, Any]] = []

    async def on_submit(ack: AsyncAck, body: dict[str, Any]) -> None:
        bodies.append(body)
        await ack()

    http_app.view("answer")(on_submit)
    view = await open_modal(emu, http_app, PICKER)
    assert await emu.person(ALICE).pick_user(view, block_id="to", user=BOB) is None
    await emu.person(ALICE).submit(view)
    [body] = bodies
    assert body["view"]["state"]["values"] == {
        "to": {"who": {"type": "users_select", "selected_user": BOB}}
    }


async def test_someone_outside_the_workspace_cannot_be_picked(
    emu: SlackEmulator, http_app: AsyncApp
) -> None:
    view = await open_modal(emu, http_app, PICKER)
    with pytest.raises(LookupError, match="no user 'U0NOBODY99'"):
        await emu.person(ALICE).pick_user(view, block_id="to", user="U0NOBODY99")
