"""block_actions listeners: one table from action id to the interaction it starts, and to
what the number in the control's value means (the typed ref the interaction takes).

Each listener acks and spawns; the payload is parsed inside the spawned task, so Slack hears
back before any of our work (parsing included) runs, and nothing after `ack()` can raise.
A control that can change an ask is kept in the inbox before the ack (bot/interactions/inbox.py), and
handled through the inbox, so a replay after a crash takes the very same path. The one
exception is a one-click answer that can be decided on the spot (`Interactions.pick_now`):
it is settled before the ack instead, in one store write that keeps it as durably as the
inbox would, and the waiting agent is woken without a second write or a task in between.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any, Literal

from pydantic import ValidationError
from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncBoltRequest

from bot.block_ids import (
    PICK_PATTERN,
    Action,
    AskRef,
    OptionRef,
    PageRef,
    PartRef,
    QuestionRef,
    Ref,
)
from bot.interactions.answering import Interactions
from bot.interactions.inbox import Inbox
from bot.interactions.listeners.parsing import parse, ref_of
from bot.interactions.plan_reviews import PlanReviews
from bot.payloads import Action as ActionPayload
from bot.payloads import BlockActions, SlackModel, User
from bot.store import InboxKind
from bot.tasks import Tasks

log = logging.getLogger(__name__)

Handler = Callable[[BlockActions, Ref], Awaitable[None]]
Matcher = str | re.Pattern[str]


def register_actions(
    app: AsyncApp,
    interactions: Interactions,
    plan_reviews: PlanReviews,
    tasks: Tasks,
    inbox: Inbox,
) -> None:
    """Wire the ask's buttons and menus to `interactions` (a plan review's to `plan_reviews`)."""
    i, plans = interactions, plan_reviews

    def trigger(p: BlockActions) -> str:
        return p.trigger_id or ""

    def modal(p: BlockActions) -> tuple[str | None, str | None]:
        view = p.view if p.container.type == "view" else None
        return (view.id, view.hash) if view else (None, None)

    # Controls that can change an ask: kept in the inbox before the ack.
    answering: dict[Matcher, Handler] = {
        PICK_PATTERN: lambda p, r: i.pick(p.user.id, OptionRef.of(r)),
        Action.SUBMIT: lambda p, r: i.submit_part(
            p.user.id, PartRef.of(r), p.state.values if p.state else {}
        ),
        Action.APPROVE: lambda p, r: plans.approve(p.user.id, AskRef.of(r)),
        Action.DISCUSS: lambda p, r: plans.discuss(p.user.id, AskRef.of(r)),
    }
    # Controls that only open a modal: a replay could not (the trigger_id is long dead).
    opening: dict[Matcher, Handler] = {
        Action.FORM: lambda p, r: i.open_form(p.user.id, PartRef.of(r), trigger(p)),
        Action.OTHER: lambda p, r: i.open_other(p.user.id, AskRef.of(r), trigger(p)),
        Action.DETAILS: lambda p, r: i.open_details(
            p.user.id, QuestionRef.of(r), trigger(p), push=p.container.type == "view"
        ),
        Action.CHANGES: lambda p, r: plans.open_changes(p.user.id, AskRef.of(r), trigger(p)),
        Action.PLAN: lambda p, r: plans.open_plan(
            p.user.id, PageRef.of(r), trigger(p), view_id=modal(p)[0], view_hash=modal(p)[1]
        ),
        Action.DIFF: lambda p, r: plans.open_diff(p.user.id, AskRef.of(r), trigger(p)),
    }
    inbox.route(InboxKind.BLOCK_ACTIONS, lambda body: _answer(answering, body))
    app.action(PICK_PATTERN)(_picked(inbox, interactions))
    for matcher in answering:
        if matcher is not PICK_PATTERN:
            app.action(matcher)(_kept(inbox))
    for matcher, handler in opening.items():
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


def _kept(inbox: Inbox) -> Callable[..., Awaitable[None]]:
    async def listener(ack: AsyncAck, body: dict[str, Any], request: AsyncBoltRequest) -> None:
        item = await inbox.keep(InboxKind.BLOCK_ACTIONS, body, request.raw_body)
        await ack()
        inbox.handle(InboxKind.BLOCK_ACTIONS, item, body)

    return listener


class _Click(SlackModel):
    """The parts of a click a decision on the spot reads (the whole payload is parsed
    only on the kept path)."""

    type: Literal["block_actions"]
    user: User
    actions: list[ActionPayload]


def _picked(inbox: Inbox, interactions: Interactions) -> Callable[..., Awaitable[None]]:
    kept = _kept(inbox)

    async def listener(ack: AsyncAck, body: dict[str, Any], request: AsyncBoltRequest) -> None:
        if await _decided(interactions, body):
            await ack()
            return
        await kept(ack, body, request)

    return listener


async def _decided(interactions: Interactions, body: dict[str, Any]) -> bool:
    """Whether the pick in `body` was decided on the spot (saved, its agent woken)."""
    try:
        click = _Click.model_validate(body)
    except ValidationError:
        return False  # the kept path logs what it cannot read
    if not click.actions:
        return False
    action = click.actions[0]
    value = action.selected_option.value if action.selected_option else action.value
    try:
        ref = Ref.decode(value or "")
    except ValueError:
        return False  # not ours: the kept path logs it
    try:
        return await interactions.pick_now(click.user.id, OptionRef.of(ref))
    except Exception:
        # Nothing was decided (a settlement that fails is undone): keep it and try again.
        log.exception("could not decide a pick of ask %s on the spot", ref.ask_id)
        return False


async def _answer(answering: dict[Matcher, Handler], body: dict[str, Any]) -> None:
    """Run the handler of the clicked control, matched as Bolt matches it."""
    payload = parse(BlockActions, body)
    if payload is None or not payload.actions:
        return
    action = payload.actions[0]
    ref = ref_of(action)
    for matcher, handler in answering.items():
        if ref is not None and _matches(matcher, action.action_id):
            await handler(payload, ref)
            return


def _matches(matcher: Matcher, action_id: str) -> bool:
    if isinstance(matcher, str):
        return matcher == action_id
    return matcher.search(action_id) is not None


async def _handle(handler: Handler, body: dict[str, Any]) -> None:
    payload = parse(BlockActions, body)
    if payload is None or not payload.actions:
        return
    ref = ref_of(payload.actions[0])
    if ref is not None:
        await handler(payload, ref)
