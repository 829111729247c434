"""views.open/push/update/publish: triggers, hashes, the modal stack, and Home tabs."""

from __future__ import annotations

from typing import Any

import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from slack_emulator import BlockKitViolation, ManualClock, SlackEmulator, View

from .conftest import ALICE, BOB

Json = dict[str, Any]


def modal(title: str = "Answer", **extra: Any) -> Json:
    return {
        "type": "modal",
        "callback_id": "answer",
        "title": {"type": "plain_text", "text": title},
        "submit": {"type": "plain_text", "text": "Send"},
        "private_metadata": "ask-1",
        "blocks": [
            {
                "type": "input",
                "block_id": "q1",
                "label": {"type": "plain_text", "text": "Why?"},
                "element": {"type": "plain_text_input", "action_id": "text"},
            }
        ],
        **extra,
    }


async def trigger_for(emu: SlackEmulator, user_id: str) -> str:
    """A real trigger_id: the one a slash command by `user_id` carries (no app needed)."""
    delivery = await emu.person(user_id).command("/agent-questions")
    return str(delivery.payload["trigger_id"])


async def error_of(call: Any) -> Json:
    with pytest.raises(SlackApiError) as caught:
        await call
    return dict(caught.value.response.data)


async def test_a_trigger_opens_a_modal_for_the_person_who_caused_it(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    response = await client.views_open(trigger_id=await trigger_for(emu, ALICE), view=modal())
    (view,) = emu.views(ALICE)
    assert emu.views(BOB) == []
    assert response["view"] == view.to_wire()
    assert (view.title, view.submit, view.callback_id, view.private_metadata, view.type) == (
        "Answer",
        "Send",
        "answer",
        "ask-1",
        "modal",
    )
    assert view.state == {"q1": {"text": {"type": "plain_text_input", "value": None}}}
    wire = response["view"]
    assert (wire["root_view_id"], wire["previous_view_id"], wire["app_id"], wire["bot_id"]) == (
        view.id,
        None,
        emu.app_id,
        emu.bot_id,
    )
    assert wire["title"] == {"type": "plain_text", "text": "Answer", "emoji": True}


async def test_a_trigger_expires_three_seconds_after_it_was_issued(
    emu: SlackEmulator, client: AsyncWebClient, clock: ManualClock
) -> None:
    trigger = await trigger_for(emu, ALICE)
    clock.advance(3.01)
    assert await error_of(client.views_open(trigger_id=trigger, view=modal())) == {
        "ok": False,
        "error": "expired_trigger_id",
    }
    assert emu.views(ALICE) == []


async def test_a_trigger_is_still_good_at_exactly_three_seconds(
    emu: SlackEmulator, client: AsyncWebClient, clock: ManualClock
) -> None:
    trigger = await trigger_for(emu, ALICE)
    clock.advance(3.0)
    assert (await client.views_open(trigger_id=trigger, view=modal()))["ok"] is True


async def test_a_trigger_can_be_exchanged_only_once(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    trigger = await trigger_for(emu, ALICE)
    await client.views_open(trigger_id=trigger, view=modal())
    assert (await error_of(client.views_open(trigger_id=trigger, view=modal())))[
        "error"
    ] == "exchanged_trigger_id"


async def test_a_made_up_trigger_is_invalid_trigger_id(client: AsyncWebClient) -> None:
    assert (await error_of(client.views_open(trigger_id="123.456.abc", view=modal())))["error"] == (
        "invalid_trigger_id"
    )


async def test_a_view_breaking_block_kit_rules_is_invalid_arguments_and_keeps_the_trigger(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    trigger = await trigger_for(emu, ALICE)
    refusal = await error_of(client.views_open(trigger_id=trigger, view=modal(title="x" * 25)))
    assert refusal == {
        "ok": False,
        "error": "invalid_arguments",
        "response_metadata": {
            "messages": ["[ERROR] must be less than 25 characters [json-pointer:/view/title/text]"]
        },
    }
    assert emu.violations == [
        BlockKitViolation(
            "views.open", "view.title", "/view/title/text", "must be less than 25 characters"
        )
    ]
    assert (await client.views_open(trigger_id=trigger, view=modal()))["ok"] is True


async def test_an_update_with_a_stale_hash_is_hash_conflict(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    opened = (await client.views_open(trigger_id=await trigger_for(emu, ALICE), view=modal()))[
        "view"
    ]
    updated = (
        await client.views_update(
            view_id=opened["id"], hash=opened["hash"], view=modal(title="Second")
        )
    )["view"]
    assert (updated["id"], emu.views(ALICE)[0].title) == (opened["id"], "Second")
    assert updated["hash"] != opened["hash"]
    stale = await error_of(
        client.views_update(view_id=opened["id"], hash=opened["hash"], view=modal())
    )
    assert stale == {"ok": False, "error": "hash_conflict"}


async def test_an_update_keeps_input_whose_block_and_action_ids_stay(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    opened = (await client.views_open(trigger_id=await trigger_for(emu, ALICE), view=modal()))[
        "view"
    ]
    await emu.person(ALICE).type(emu.views(ALICE)[0], block_id="q1", text="because")
    await client.views_update(view_id=opened["id"], view=modal(title="Still"))
    assert emu.views(ALICE)[0].state == {
        "q1": {"text": {"type": "plain_text_input", "value": "because"}}
    }


async def test_updating_an_unknown_view_is_not_found(client: AsyncWebClient) -> None:
    assert (await error_of(client.views_update(view_id="V0NOPE", view=modal())))[
        "error"
    ] == "not_found"


async def test_a_view_can_be_updated_by_its_external_id(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    await client.views_open(
        trigger_id=await trigger_for(emu, ALICE), view=modal(external_id="ask-1")
    )
    await client.views_update(
        external_id="ask-1", view=modal(title="By external id", external_id="ask-1")
    )
    assert emu.views(ALICE)[0].title == "By external id"


async def test_pushed_views_stack_up_to_three(emu: SlackEmulator, client: AsyncWebClient) -> None:
    root = (await client.views_open(trigger_id=await trigger_for(emu, ALICE), view=modal("One")))[
        "view"
    ]
    second = (await client.views_push(trigger_id=await trigger_for(emu, ALICE), view=modal("Two")))[
        "view"
    ]
    await client.views_push(trigger_id=await trigger_for(emu, ALICE), view=modal("Three"))
    fourth = await error_of(
        client.views_push(trigger_id=await trigger_for(emu, ALICE), view=modal("Four"))
    )
    assert fourth == {"ok": False, "error": "push_limit_reached"}
    assert [v.title for v in emu.views(ALICE)] == ["One", "Two", "Three"]
    assert (second["root_view_id"], second["previous_view_id"]) == (root["id"], root["id"])


async def test_a_home_tab_is_published_per_person(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    home = {
        "type": "home",
        "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": "Welcome"}}],
    }
    published = (await client.views_publish(user_id=ALICE, view=home))["view"]
    view = emu.home(ALICE)
    assert isinstance(view, View)
    assert (view.type, view.id, published["close"], published["submit"]) == (
        "home",
        published["id"],
        None,
        None,
    )
    assert emu.home(BOB) is None
    again = (await client.views_publish(user_id=ALICE, view=home, hash=published["hash"]))["view"]
    assert again["id"] == published["id"]
    stale = await error_of(client.views_publish(user_id=ALICE, view=home, hash=published["hash"]))
    assert stale == {"ok": False, "error": "hash_conflict"}


async def test_publishing_to_an_unknown_person_is_invalid_arguments(client: AsyncWebClient) -> None:
    refusal = await error_of(
        client.views_publish(user_id="U0NOBODY", view={"type": "home", "blocks": []})
    )
    assert refusal == {
        "ok": False,
        "error": "invalid_arguments",
        "response_metadata": {"messages": ["invalid `user_id`"]},
    }
