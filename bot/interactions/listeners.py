"""The Bolt registrations: each interaction of ours goes to the intake (`intake.py`), which
parses it once, runs its phase before the ack, acks and dispatches it. An input's change and
a read-only modal's submission only need their ack. `/agent-questions` and the Home tab go
to the one `TeamView`.

Bolt injects a listener's arguments by name; that stops here, and the intake takes typed ones.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import BaseModel, ConfigDict
from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncBoltRequest, AsyncRespond

from bot.block_ids import HOME_FILTERS, PICK_PATTERN, Action, Callback
from bot.interactions.intake import Intake
from bot.interactions.origins import Origins
from bot.interactions.team_commands import CommandBody, CommandCall, Subcommands
from bot.payloads import BlockActions, read
from bot.render.home_filters import HomeFilter
from bot.store import InboxKind
from bot.tasks import Tasks
from bot.team import COMMAND, TeamView

log = logging.getLogger(__name__)

Listener = Callable[[AsyncAck, dict[str, Any], AsyncBoltRequest], Awaitable[None]]

# Our controls that do something (option buttons add `.<index>` to a pick's action id).
CONTROLS = (
    PICK_PATTERN,
    *(a for a in Action if a not in (Action.PICK, Action.INPUT) and a not in HOME_FILTERS),
)
# Our modals whose submission is an answer.
ANSWERING_MODALS = (
    Callback.FORM,
    Callback.OTHER,
    Callback.CHANGES,
    Callback.EDIT,
    Callback.NOTE,
    Callback.ALWAYS,
)
# Our modals whose submission changes an ask without answering it.
CHANGING_MODALS = (Callback.REASSIGN,)


def register_listeners(app: AsyncApp, intake: Intake) -> None:
    """Wire our controls, modals and thread replies to `intake`."""
    clicked = _to(intake, InboxKind.BLOCK_ACTIONS)
    for control in CONTROLS:
        app.action(control)(clicked)
    submitted = _to(intake, InboxKind.VIEW_SUBMISSION)
    for callback in (*ANSWERING_MODALS, *CHANGING_MODALS):
        app.view(callback)(submitted)
    # Only a form's closing matters: the ask ends as closed (its modal has notify_on_close).
    app.view_closed(Callback.FORM)(_to(intake, InboxKind.VIEW_CLOSED))
    # Bolt acks an event once its listener returns (`process_before_response`).
    app.event("message")(_to(intake, InboxKind.MESSAGE))
    # Stop pressed on an agent's session (an app declared as an agent): its asks end.
    app.event("agent_session_stopped")(_to(intake, InboxKind.AGENT_SESSION_STOPPED))

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


class PublishedHome(BaseModel):
    """The Home view Slack shows the person, as `app_home_opened` carries it."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    private_metadata: str = ""


class HomeOpened(BaseModel):
    """The parts of `app_home_opened` we read."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    user: str
    tab: str
    view: PublishedHome | None = None  # absent until a Home view was published


def register_team_view(
    app: AsyncApp,
    team: TeamView,
    tasks: Tasks,
    origins: Origins,
    subcommands: Subcommands | None = None,
) -> None:
    """Wire `/agent-questions` and the Home tab to `team`, the one team view (the relay's
    list reads its permalinks too, so a link looked up for one is cached for both), and
    `/agent-questions <word> …` to its subcommand. A request for another workspace or app is
    refused by `origins`, as every interaction is."""
    subs = subcommands or Subcommands()

    @app.command(COMMAND)
    async def on_command(ack: AsyncAck, body: dict[str, Any], respond: AsyncRespond | None) -> None:
        # An empty ack shows nothing; the list follows through the response_url.
        await ack()
        if origins.refused(COMMAND, body):
            return
        fields = read(CommandBody, body)
        if respond is None or respond.response_url is None or fields is None:
            log.warning("ignoring a %s without a response_url or user", COMMAND)
            return
        word, args = subs.split(fields.text)
        if not word:
            tasks.spawn(team.answer_command(respond, fields.user_id), name="team command")
            return
        call = CommandCall(fields.user_id, args, fields.channel_id, fields.trigger_id, respond)
        tasks.spawn(subs.run(word, call), name=f"team command {word}")

    async def on_filter(ack: AsyncAck, body: dict[str, Any]) -> None:
        # A Home tab filter changes only that person's tab: nothing to keep before the ack.
        await ack()
        if origins.refused("home filter", body):
            return
        payload = read(BlockActions, body)
        if payload is None or payload.view is None or not payload.actions:
            return
        action = payload.actions[0]
        value = action.selected_user or (
            action.selected_option.value if action.selected_option else None
        )
        tasks.spawn(
            team.filter_home(
                payload.user.id, payload.view.private_metadata, action.action_id, value
            ),
            name="team home filter",
        )

    for control in HOME_FILTERS:
        app.action(control)(on_filter)

    @app.event("app_home_opened")
    async def on_home_opened(event: dict[str, Any], body: dict[str, Any]) -> None:
        if origins.refused("app_home_opened", body):
            return
        opened = read(HomeOpened, event)
        # The Messages and About tabs send this event too; only Home is ours to draw.
        if opened is not None and opened.tab == "home":
            # The filters the person chose stay: they travel in the published view.
            metadata = opened.view.private_metadata if opened.view else ""
            filters = HomeFilter.read(metadata) if metadata else None
            tasks.spawn(team.publish_home(opened.user, filters), name="team home")
