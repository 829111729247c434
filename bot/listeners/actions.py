"""block_actions listeners: picks, Submit, form and detail buttons."""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp

from ..actions import PICK_PATTERN, Action
from ..interactions import Interactions
from ..payloads import BlockActions
from ..tasks import Tasks
from .parsing import parse, ref_of


def register_actions(app: AsyncApp, interactions: Interactions, tasks: Tasks) -> None:
    """Wire the ask's buttons and menus to `interactions`."""

    @app.action(PICK_PATTERN)
    async def on_pick(ack: AsyncAck, body: dict[str, Any]) -> None:
        await ack()
        payload = parse(BlockActions, body)
        if payload and (ref := ref_of(payload.actions[0])):
            tasks.spawn(interactions.pick(payload.user.id, ref), name="pick")

    @app.action(Action.SUBMIT)
    async def on_submit(ack: AsyncAck, body: dict[str, Any]) -> None:
        await ack()
        payload = parse(BlockActions, body)
        if payload and (ref := ref_of(payload.actions[0])):
            values = payload.state.values if payload.state else {}
            tasks.spawn(interactions.submit_part(payload.user.id, ref, values), name="submit")

    @app.action(Action.FORM)
    async def on_form(ack: AsyncAck, body: dict[str, Any]) -> None:
        await ack()
        payload = parse(BlockActions, body)
        if payload and payload.trigger_id and (ref := ref_of(payload.actions[0])):
            tasks.spawn(
                interactions.open_form(payload.user.id, ref, payload.trigger_id), name="open form"
            )

    @app.action(Action.OTHER)
    async def on_other(ack: AsyncAck, body: dict[str, Any]) -> None:
        await ack()
        payload = parse(BlockActions, body)
        if payload and payload.trigger_id and (ref := ref_of(payload.actions[0])):
            tasks.spawn(
                interactions.open_other(payload.user.id, ref, payload.trigger_id), name="open other"
            )

    @app.action(Action.DETAILS)
    async def on_details(ack: AsyncAck, body: dict[str, Any]) -> None:
        await ack()
        payload = parse(BlockActions, body)
        if payload and payload.trigger_id and (ref := ref_of(payload.actions[0])):
            in_modal = payload.container.type == "view"
            tasks.spawn(
                interactions.open_details(payload.user.id, ref, payload.trigger_id, push=in_modal),
                name="open details",
            )

    @app.action(Action.APPROVE)
    async def on_approve(ack: AsyncAck, body: dict[str, Any]) -> None:
        await ack()
        payload = parse(BlockActions, body)
        if payload and (ref := ref_of(payload.actions[0])):
            tasks.spawn(interactions.approve(payload.user.id, ref), name="approve")

    @app.action(Action.DISCUSS)
    async def on_discuss(ack: AsyncAck, body: dict[str, Any]) -> None:
        await ack()
        payload = parse(BlockActions, body)
        if payload and (ref := ref_of(payload.actions[0])):
            tasks.spawn(interactions.discuss(payload.user.id, ref), name="discuss")

    @app.action(Action.CHANGES)
    async def on_changes(ack: AsyncAck, body: dict[str, Any]) -> None:
        await ack()
        payload = parse(BlockActions, body)
        if payload and payload.trigger_id and (ref := ref_of(payload.actions[0])):
            tasks.spawn(
                interactions.open_changes(payload.user.id, ref, payload.trigger_id),
                name="open changes",
            )

    @app.action(Action.PLAN)
    async def on_plan(ack: AsyncAck, body: dict[str, Any]) -> None:
        await ack()
        payload = parse(BlockActions, body)
        if payload and payload.trigger_id and (ref := ref_of(payload.actions[0])):
            view = payload.view if payload.container.type == "view" else None
            tasks.spawn(
                interactions.open_plan(
                    payload.user.id,
                    ref,
                    payload.trigger_id,
                    view_id=view.id if view else None,
                    view_hash=view.hash if view else None,
                ),
                name="open plan",
            )

    @app.action(Action.DIFF)
    async def on_diff(ack: AsyncAck, body: dict[str, Any]) -> None:
        await ack()
        payload = parse(BlockActions, body)
        if payload and payload.trigger_id and (ref := ref_of(payload.actions[0])):
            tasks.spawn(
                interactions.open_diff(payload.user.id, ref, payload.trigger_id), name="open diff"
            )

    @app.action(Action.INPUT)
    async def on_input(ack: AsyncAck) -> None:
        # Inputs are read from state on submit; an event from one needs only its ack.
        await ack()
