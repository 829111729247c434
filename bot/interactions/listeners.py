"""The Bolt registrations: each interaction of ours goes to the intake (`intake.py`), which
parses it once, runs its phase before the ack, acks and dispatches it. An input's change and
a read-only modal's submission only need their ack.

Bolt injects a listener's arguments by name; that stops here, and the intake takes typed ones.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncBoltRequest

from bot.block_ids import PICK_PATTERN, Action, Callback
from bot.interactions.intake import Intake
from bot.store import InboxKind

Listener = Callable[[AsyncAck, dict[str, Any], AsyncBoltRequest], Awaitable[None]]

# Our controls that do something (option buttons add `.<index>` to a pick's action id).
CONTROLS = (PICK_PATTERN, *(a for a in Action if a not in (Action.PICK, Action.INPUT)))
# Our modals whose submission is an answer.
ANSWERING_MODALS = (Callback.FORM, Callback.OTHER, Callback.CHANGES)


def register_listeners(app: AsyncApp, intake: Intake) -> None:
    """Wire our controls, modals and thread replies to `intake`."""
    clicked = _to(intake, InboxKind.BLOCK_ACTIONS)
    for control in CONTROLS:
        app.action(control)(clicked)
    submitted = _to(intake, InboxKind.VIEW_SUBMISSION)
    for callback in ANSWERING_MODALS:
        app.view(callback)(submitted)
    # Only a form's closing matters: the ask ends as closed (its modal has notify_on_close).
    app.view_closed(Callback.FORM)(_to(intake, InboxKind.VIEW_CLOSED))
    # Bolt acks an event once its listener returns (`process_before_response`).
    app.event("message")(_to(intake, InboxKind.MESSAGE))

    @app.action(Action.INPUT)
    async def on_input(ack: AsyncAck) -> None:
        # Inputs are read from state on submit; an event from one needs only its ack.
        await ack()

    @app.view(Callback.DETAILS)
    async def on_read_only_submitted(ack: AsyncAck) -> None:
        await ack()


def _to(intake: Intake, kind: InboxKind) -> Listener:
    async def listener(ack: AsyncAck, body: dict[str, Any], request: AsyncBoltRequest) -> None:
        await intake.accept(kind, body, request.raw_body, ack)

    return listener
