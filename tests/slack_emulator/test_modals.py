"""Modals with a real Bolt app: submissions, response_actions, closing, actions inside views."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any
from unittest.mock import ANY

import pytest
from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from slack_emulator import BlockKitViolation, SlackEmulator, View

from .blocks import answer_modal, plain, stored_option
from .conftest import ALICE, BOB, QUESTIONS

Json = dict[str, Any]
Ack = Callable[[AsyncAck], Awaitable[None]]


async def open_modal(emu: SlackEmulator, app: AsyncApp, view: Json | None = None) -> View:
    """Alice runs a command whose listener opens `view` with the command's trigger."""

    async def on_command(ack: AsyncAck, body: Json, client: AsyncWebClient) -> None:
        await ack()
        await client.views_open(trigger_id=body["trigger_id"], view=view or answer_modal())

    app.command("/answer")(on_command)
    await emu.person(ALICE).command("/answer", channel=QUESTIONS)
    await emu.wait_for(lambda: len(emu.views(ALICE)) == 1, what="the modal")
    return emu.views(ALICE)[0]


def on_submit(app: AsyncApp, answer: Callable[[AsyncAck], Awaitable[None]]) -> list[Json]:
    bodies: list[Json] = []

    async def listener(ack: AsyncAck, body: Json) -> None:
        bodies.append(body)
        await answer(ack)

    app.view("answer")(listener)
    return bodies


async def plain_ack(ack: AsyncAck) -> None:
    await ack()


async def test_a_submission_sends_slacks_view_submission_with_the_persons_input(
    emu: SlackEmulator, http_app: AsyncApp
) -> None:
    bodies = on_submit(http_app, plain_ack)
    view = await open_modal(emu, http_app)
    alice = emu.person(ALICE)
    assert await alice.choose(view, block_id="q1", value="1") is None
    assert await alice.type(emu.views(ALICE)[0], block_id="q2", text="Keep it small") is None
    submitted = emu.views(ALICE)[0]
    delivery = await alice.submit(submitted)
    assert bodies == [delivery.payload]
    assert delivery.payload == {
        "type": "view_submission",
        "team": {"id": emu.team_id, "domain": "emulator"},
        "user": {"id": ALICE, "username": "alice", "name": "alice", "team_id": emu.team_id},
        "api_app_id": emu.app_id,
        "token": emu.identity.verification_token,
        "trigger_id": ANY,
        "view": submitted.to_wire(),
        "response_urls": [],
        "is_enterprise_install": False,
        "enterprise": None,
    }
    view_wire = delivery.payload["view"]
    assert view_wire["state"] == {
        "values": {
            "q1": {
                "choice": {"type": "radio_buttons", "selected_option": stored_option("SQLite", "1")}
            },
            "q2": {"text": {"type": "plain_text_input", "value": "Keep it small"}},
        }
    }
    assert (view_wire["hash"], view_wire["private_metadata"], view_wire["callback_id"]) == (
        view.hash,
        "ask-42",
        "answer",
    )


async def test_a_plain_ack_closes_the_submitted_view(
    emu: SlackEmulator, http_app: AsyncApp
) -> None:
    on_submit(http_app, plain_ack)
    view = await open_modal(emu, http_app)
    await emu.person(ALICE).choose(view, block_id="q1", value="0")
    await emu.person(ALICE).submit(view)
    assert emu.views(ALICE) == []


async def test_errors_keep_the_view_open_and_readable(
    emu: SlackEmulator, http_app: AsyncApp
) -> None:
    async def refuse(ack: AsyncAck) -> None:
        await ack(response_action="errors", errors={"q2": "Say a little more"})

    on_submit(http_app, refuse)
    view = await open_modal(emu, http_app)
    await emu.person(ALICE).choose(view, block_id="q1", value="0")
    await emu.person(ALICE).submit(view)
    (still_open,) = emu.views(ALICE)
    assert (still_open.id, still_open.errors) == (view.id, {"q2": "Say a little more"})


async def test_errors_naming_no_input_block_are_a_violation(
    emu: SlackEmulator, http_app: AsyncApp
) -> None:
    async def refuse(ack: AsyncAck) -> None:
        await ack(response_action="errors", errors={"tools": "not an input"})

    on_submit(http_app, refuse)
    view = await open_modal(emu, http_app)
    await emu.person(ALICE).choose(view, block_id="q1", value="0")
    await emu.person(ALICE).submit(view)
    assert emu.violations == [
        BlockKitViolation(
            "view_submission.ack",
            "response_action.errors",
            "/errors/tools",
            "must name an input block_id",
        )
    ]


async def test_an_update_replaces_the_view_in_place(emu: SlackEmulator, http_app: AsyncApp) -> None:
    async def update(ack: AsyncAck) -> None:
        await ack(
            response_action="update", view={"type": "modal", "title": plain("Thanks"), "blocks": []}
        )

    on_submit(http_app, update)
    view = await open_modal(emu, http_app)
    await emu.person(ALICE).choose(view, block_id="q1", value="0")
    await emu.person(ALICE).submit(view)
    (updated,) = emu.views(ALICE)
    assert (updated.id, updated.title, updated.blocks) == (view.id, "Thanks", [])
    assert updated.hash != view.hash


async def test_an_update_that_breaks_block_kit_rules_is_a_violation_and_changes_nothing(
    emu: SlackEmulator, http_app: AsyncApp
) -> None:
    async def update(ack: AsyncAck) -> None:
        await ack(
            response_action="update", view={"type": "modal", "title": plain("x" * 30), "blocks": []}
        )

    on_submit(http_app, update)
    view = await open_modal(emu, http_app)
    await emu.person(ALICE).choose(view, block_id="q1", value="0")
    await emu.person(ALICE).submit(view)
    assert emu.violations == [
        BlockKitViolation(
            "view_submission.ack",
            "view.title",
            "/view/title/text",
            "must be less than 25 characters",
        )
    ]
    assert emu.views(ALICE)[0].title == "Answer"


async def test_a_push_stacks_a_view_and_clear_closes_them_all(
    emu: SlackEmulator, http_app: AsyncApp
) -> None:
    async def push(ack: AsyncAck) -> None:
        await ack(
            response_action="push",
            view={
                "type": "modal",
                "callback_id": "confirm",
                "title": plain("Sure?"),
                "submit": plain("Yes"),
                "blocks": [],
            },
        )

    async def clear(ack: AsyncAck, body: Json) -> None:
        await ack(response_action="clear")

    on_submit(http_app, push)
    http_app.view("confirm")(clear)
    view = await open_modal(emu, http_app)
    alice = emu.person(ALICE)
    await alice.choose(view, block_id="q1", value="0")
    await alice.submit(view)
    assert [v.title for v in emu.views(ALICE)] == ["Answer", "Sure?"]
    await alice.submit(emu.views(ALICE)[-1])
    assert emu.views(ALICE) == []


async def test_only_the_top_modal_can_be_used(
    emu: SlackEmulator, client: AsyncWebClient, http_app: AsyncApp
) -> None:
    view = await open_modal(emu, http_app)
    trigger = (await emu.person(ALICE).command("/nothing", channel=QUESTIONS)).payload["trigger_id"]
    await client.views_push(
        trigger_id=trigger, view={"type": "modal", "title": plain("Top"), "blocks": []}
    )
    with pytest.raises(LookupError, match="is not the modal alice sees"):
        await emu.person(ALICE).submit(view)


async def test_a_required_input_left_empty_blocks_the_submission(
    emu: SlackEmulator, http_app: AsyncApp
) -> None:
    bodies = on_submit(http_app, plain_ack)
    view = await open_modal(emu, http_app)
    with pytest.raises(ValueError, match="required inputs are empty: q1"):
        await emu.person(ALICE).submit(view)
    assert bodies == []


async def test_someone_elses_modal_is_out_of_reach(emu: SlackEmulator, http_app: AsyncApp) -> None:
    view = await open_modal(emu, http_app)
    with pytest.raises(LookupError, match="bob has no open view"):
        await emu.person(BOB).choose(view, block_id="q1", value="0")


async def test_closing_a_view_without_notify_on_close_tells_the_app_nothing(
    emu: SlackEmulator, http_app: AsyncApp
) -> None:
    view = await open_modal(emu, http_app)
    deliveries_before = len(emu.deliveries)
    assert await emu.person(ALICE).close(view) is None
    assert (emu.views(ALICE), len(emu.deliveries)) == ([], deliveries_before)


async def test_closing_a_view_with_notify_on_close_sends_view_closed(
    emu: SlackEmulator, http_app: AsyncApp
) -> None:
    bodies: list[Json] = []

    async def on_closed(ack: AsyncAck, body: Json) -> None:
        bodies.append(body)
        await ack()

    http_app.view_closed("answer")(on_closed)
    view = await open_modal(emu, http_app, answer_modal(notify_on_close=True))
    delivery = await emu.person(ALICE).close(view)
    assert delivery is not None
    assert delivery.acked
    assert bodies == [
        {
            "type": "view_closed",
            "team": {"id": emu.team_id, "domain": "emulator"},
            "user": {"id": ALICE, "username": "alice", "name": "alice", "team_id": emu.team_id},
            "api_app_id": emu.app_id,
            "token": emu.identity.verification_token,
            "view": view.to_wire(),
            "is_cleared": False,
            "is_enterprise_install": False,
            "enterprise": None,
        }
    ]
    assert emu.views(ALICE) == []


async def test_a_button_in_a_modal_sends_block_actions_with_the_view(
    emu: SlackEmulator, http_app: AsyncApp
) -> None:
    bodies: list[Json] = []

    async def on_detail(ack: AsyncAck, body: Json) -> None:
        bodies.append(body)
        await ack()

    http_app.action("detail")(on_detail)
    view = await open_modal(emu, http_app)
    await emu.person(ALICE).type(view, block_id="q2", text="draft")
    await emu.person(ALICE).click(emu.views(ALICE)[0], text="Show plan")
    (body,) = bodies
    assert body == {
        "type": "block_actions",
        "user": {"id": ALICE, "username": "alice", "name": "alice", "team_id": emu.team_id},
        "api_app_id": emu.app_id,
        "token": emu.identity.verification_token,
        "container": {"type": "view", "view_id": view.id},
        "trigger_id": ANY,
        "team": {"id": emu.team_id, "domain": "emulator"},
        "enterprise": None,
        "is_enterprise_install": False,
        "view": emu.views(ALICE)[0].to_wire(),
        "actions": [
            {
                "action_id": "detail",
                "block_id": "tools",
                "text": {"type": "plain_text", "text": "Show plan", "emoji": True},
                "type": "button",
                "action_ts": ANY,
            }
        ],
    }
    assert body["view"]["state"]["values"]["q2"] == {
        "text": {"type": "plain_text_input", "value": "draft"}
    }
