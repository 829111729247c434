"""block_actions listeners: one table from action id to the interaction it starts, and to
what the number in the control's value means (the typed ref the interaction takes).

Each listener acks and spawns; the payload is parsed inside the spawned task, so Slack hears
back before any of our work (parsing included) runs, and nothing after `ack()` can raise.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp

from ..actions import (
    PICK_PATTERN,
    Action,
    AskRef,
    OptionRef,
    PageRef,
    PartRef,
    QuestionRef,
    Ref,
)
from ..interactions import Interactions
from ..payloads import BlockActions
from ..plan_reviews import PlanReviews
from ..tasks import Tasks
from .parsing import parse, ref_of

Handler = Callable[[BlockActions, Ref], Awaitable[None]]


def register_actions(
    app: AsyncApp, interactions: Interactions, plan_reviews: PlanReviews, tasks: Tasks
) -> None:
    """Wire the ask's buttons and menus to `interactions` (a plan review's to `plan_reviews`)."""
    i, plans = interactions, plan_reviews

    def trigger(p: BlockActions) -> str:
        return p.trigger_id or ""

    def modal(p: BlockActions) -> tuple[str | None, str | None]:
        view = p.view if p.container.type == "view" else None
        return (view.id, view.hash) if view else (None, None)

    handlers: dict[str | re.Pattern[str], Handler] = {
        PICK_PATTERN: lambda p, r: i.pick(p.user.id, OptionRef.of(r)),
        Action.SUBMIT: lambda p, r: i.submit_part(
            p.user.id, PartRef.of(r), p.state.values if p.state else {}
        ),
        Action.FORM: lambda p, r: i.open_form(p.user.id, PartRef.of(r), trigger(p)),
        Action.OTHER: lambda p, r: i.open_other(p.user.id, AskRef.of(r), trigger(p)),
        Action.DETAILS: lambda p, r: i.open_details(
            p.user.id, QuestionRef.of(r), trigger(p), push=p.container.type == "view"
        ),
        Action.APPROVE: lambda p, r: plans.approve(p.user.id, AskRef.of(r)),
        Action.DISCUSS: lambda p, r: plans.discuss(p.user.id, AskRef.of(r)),
        Action.CHANGES: lambda p, r: plans.open_changes(p.user.id, AskRef.of(r), trigger(p)),
        Action.PLAN: lambda p, r: plans.open_plan(
            p.user.id, PageRef.of(r), trigger(p), view_id=modal(p)[0], view_hash=modal(p)[1]
        ),
        Action.DIFF: lambda p, r: plans.open_diff(p.user.id, AskRef.of(r), trigger(p)),
    }
    for matcher, handler in handlers.items():
        app.action(matcher)(_listener(handler, tasks))

    @app.action(Action.INPUT)
    async def on_input(ack: AsyncAck) -> None:
        # Inputs are read from state on submit; an event from one needs only its ack.
        await ack()


def _listener(handler: Handler, tasks: Tasks) -> Callable[..., Awaitable[None]]:
    async def listener(ack: AsyncAck, body: dict[str, Any]) -> None:
        await ack()
        tasks.spawn(_handle(handler, body), name="block_actions")

    return listener


async def _handle(handler: Handler, body: dict[str, Any]) -> None:
    payload = parse(BlockActions, body)
    if payload is None or not payload.actions:
        return
    ref = ref_of(payload.actions[0])
    if ref is not None:
        await handler(payload, ref)
