"""Every Slack interaction we act on, parsed once into one typed command.

`parse(kind, body)` is the only reader of an interaction's payload: the intake parses a
request before its ack, and a replay parses the kept body the same way, so live handling and
replay run the same handler on the same command (`intake.py`). Anything we cannot read, or
that is not ours to act on, is None: logged when it is malformed, never raised, since an
exception near an ack erases it.

Each command has at most one phase before its ack, run by the intake: a `Pick` is *decided*
there when nothing needs looking up; a `SubmitForm` or `SubmitOther` is *checked* there, so
missing answers come back in the ack itself; the rest have none. `kept` says whether the
command is kept in the inbox before its ack: opening a modal is not, because its trigger_id
lives three seconds and a replay could only fail.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import ClassVar, Final, Literal, assert_never

from pydantic import ValidationError

from bot.block_ids import (
    FEEDBACK_NOTE,
    FEEDBACK_RIGHT,
    FEEDBACK_WRONG,
    HOME_FILTERS,
    PICK_PATTERN,
    RULE_REVOKE_PREFIX,
    Action,
    AskRef,
    Callback,
    FeedbackRef,
    OptionRef,
    PageRef,
    PartRef,
    QuestionRef,
    Ref,
    ViewMeta,
)
from bot.payloads import Action as ActionPayload
from bot.payloads import (
    AgentSessionStopped,
    BlockActions,
    MessageEvent,
    SlackModel,
    StateValues,
    User,
    ViewClosed,
    ViewSubmission,
    read,
)
from bot.store import FeedbackVerdict, InboxKind

log = logging.getLogger(__name__)


class _Command:
    """What every command declares: whether it is kept in the inbox before its ack."""

    __slots__ = ()
    kept: ClassVar[bool] = True


# --- commands that change an ask: kept before the ack ------------------------------------


@dataclass(frozen=True, slots=True)
class Pick(_Command):
    """A one-click answer: option `ref.option` of the lone question. Before the ack: decided
    on the spot when nothing needs looking up."""

    user: str
    ref: OptionRef


@dataclass(frozen=True, slots=True)
class AllowSession(_Command):
    """ "Allow for this session" clicked on a tool approval."""

    user: str
    ref: AskRef


@dataclass(frozen=True, slots=True)
class Revoke(_Command):
    """Revoke clicked beside a grant: in `/agent-questions grants` (answered through its
    `response_url`) or on the Home tab (`response_url` None: the tab is published again)."""

    user: str
    grant_id: str
    response_url: str | None


@dataclass(frozen=True, slots=True)
class RevokeRule(_Command):
    """Revoke clicked beside a rule saved with "Always allow" (a Revoke whose value is
    `rule:<name>`), where `Revoke` is."""

    user: str
    name: str
    response_url: str | None


@dataclass(frozen=True, slots=True)
class SubmitPart(_Command):
    """Submit pressed under a form part in the message."""

    user: str
    ref: PartRef
    values: StateValues


@dataclass(frozen=True, slots=True)
class SubmitForm(_Command):
    """A form modal submitted. Before the ack: checked for missing answers."""

    user: str
    meta: ViewMeta
    values: StateValues


@dataclass(frozen=True, slots=True)
class SubmitOther(_Command):
    """A free-text answer submitted: "Other…" of a one-click question, or a plan's requested
    changes. Before the ack: checked for a blank answer."""

    user: str
    meta: ViewMeta
    values: StateValues


@dataclass(frozen=True, slots=True)
class SubmitEdit(_Command):
    """An "Edit and allow" or "Edit and approve" modal submitted. Before the ack: checked,
    so a field whose type changed is refused in the modal itself."""

    user: str
    meta: ViewMeta
    values: StateValues


@dataclass(frozen=True, slots=True)
class SubmitAlways(_Command):
    """An "Always allow" modal submitted. Before the ack: checked, so what is wrong comes
    back inline and a rule reworded is shown again before it is saved."""

    user: str
    meta: ViewMeta
    values: StateValues


@dataclass(frozen=True, slots=True)
class CloseForm(_Command):
    """A form modal closed by the person."""

    user: str
    meta: ViewMeta


@dataclass(frozen=True, slots=True)
class Reply(_Command):
    """A person's plain reply in a thread."""

    user: str
    channel: str
    thread_ts: str
    text: str


@dataclass(frozen=True, slots=True)
class StopSession(_Command):
    """A person pressed Stop on the agent session of a thread (`agent_session_stopped`)."""

    user: str
    channel: str
    thread_ts: str


@dataclass(frozen=True, slots=True)
class Approve(_Command):
    """A reviewer approves a plan."""

    user: str
    ref: AskRef


@dataclass(frozen=True, slots=True)
class Discuss(_Command):
    """A reviewer would rather discuss the plan in the thread."""

    user: str
    ref: AskRef


@dataclass(frozen=True, slots=True)
class Claim(_Command):
    """ "Claim" clicked on an ask sent to a pool: the clicker holds it."""

    user: str
    ref: AskRef


@dataclass(frozen=True, slots=True)
class Release(_Command):
    """ "Release" clicked: the holder gives the ask back to its pool."""

    user: str
    ref: AskRef


@dataclass(frozen=True, slots=True)
class SubmitReassign(_Command):
    """The "Reassign…" modal submitted: the person chosen holds the ask. Before the ack:
    checked, so handing it to someone it may not go to is refused in the modal itself."""

    user: str
    meta: ViewMeta
    values: StateValues


@dataclass(frozen=True, slots=True)
class GiveFeedback(_Command):
    """👍 or 👎 on a decided ask: "Was this the right call?"; `home` when it came from the
    Home tab (which is then drawn again, with the new tally)."""

    user: str
    ask_id: str
    verdict: FeedbackVerdict
    home: bool


@dataclass(frozen=True, slots=True)
class SubmitNote(_Command):
    """A note on a decided ask submitted. Before the ack: checked for a blank note."""

    user: str
    meta: ViewMeta
    values: StateValues


# --- commands that only open a modal: not kept ---------------------------------------------


class _Opening(_Command):
    """A command that only opens or turns a modal."""

    __slots__ = ()
    kept: ClassVar[bool] = False


@dataclass(frozen=True, slots=True)
class OpenForm(_Opening):
    """Open the modal holding one part of an ask, with what the message's form holds."""

    user: str
    ref: PartRef
    trigger_id: str
    values: StateValues = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class OpenOther(_Opening):
    """Open the free-text "Other" modal of a one-click question."""

    user: str
    ref: AskRef
    trigger_id: str


@dataclass(frozen=True, slots=True)
class OpenDetails(_Opening):
    """Show a question in full; `push` when the click came from inside a modal."""

    user: str
    ref: QuestionRef
    trigger_id: str
    push: bool


@dataclass(frozen=True, slots=True)
class OpenChanges(_Opening):
    """Open a plan review's "Request changes" modal."""

    user: str
    ref: AskRef
    trigger_id: str


@dataclass(frozen=True, slots=True)
class OpenPlan(_Opening):
    """Show a page of the whole plan; in the modal it came from (`view_id`) when it did."""

    user: str
    ref: PageRef
    trigger_id: str
    view_id: str | None
    view_hash: str | None


@dataclass(frozen=True, slots=True)
class OpenDiff(_Opening):
    """Show what changed since the declined revision of a plan."""

    user: str
    ref: AskRef
    trigger_id: str


@dataclass(frozen=True, slots=True)
class OpenReassign(_Opening):
    """Open the "Reassign…" modal of an ask sent to a pool."""

    user: str
    ref: AskRef
    trigger_id: str


@dataclass(frozen=True, slots=True)
class OpenEdit(_Opening):
    """Open a review's edit modal; `push` when the click came from inside a modal."""

    user: str
    ref: AskRef
    trigger_id: str
    push: bool


@dataclass(frozen=True, slots=True)
class OpenNote(_Opening):
    """Open the "Add a note" modal of a decided ask."""

    user: str
    ask_id: str
    trigger_id: str


@dataclass(frozen=True, slots=True)
class OpenAlways(_Opening):
    """Open a tool approval's "Always allow" modal; `push` when clicked inside a modal."""

    user: str
    ref: AskRef
    trigger_id: str
    push: bool


Command = (
    Pick
    | AllowSession
    | Revoke
    | RevokeRule
    | SubmitPart
    | SubmitForm
    | SubmitOther
    | SubmitEdit
    | CloseForm
    | Reply
    | StopSession
    | Approve
    | Discuss
    | OpenForm
    | OpenOther
    | OpenDetails
    | OpenChanges
    | OpenPlan
    | OpenDiff
    | OpenEdit
    | Claim
    | Release
    | OpenReassign
    | SubmitReassign
    | GiveFeedback
    | SubmitNote
    | OpenNote
    | SubmitAlways
    | OpenAlways
)


# --- parsing -------------------------------------------------------------------------------


def parse(kind: InboxKind, body: dict[str, object]) -> Command | None:
    """The command `body` (an interaction of `kind`, as Bolt or the inbox hands it) asks for;
    None for what we do not act on or cannot read. Never raises."""
    if kind is InboxKind.BLOCK_ACTIONS:
        return _block_actions(body)
    if kind is InboxKind.VIEW_SUBMISSION:
        return _view_submission(body)
    if kind is InboxKind.VIEW_CLOSED:
        return _view_closed(body)
    if kind is InboxKind.AGENT_SESSION_STOPPED:
        return _session_stopped(body)
    return _message(body)


class Click(SlackModel):
    """The parts of a click that name its control: enough for a pick, which is then parsed
    no further (its decision before the ack reads nothing else)."""

    type: Literal["block_actions"]
    user: User
    actions: list[ActionPayload]


def _block_actions(body: dict[str, object]) -> Command | None:
    click = read(Click, body)
    if click is None or not click.actions:
        return None
    action = click.actions[0]
    control = _control(action.action_id)
    if control is None or control is Action.INPUT or control in HOME_FILTERS:
        # An input sends nothing to act on (it is read from state on submit); a Home tab
        # filter changes only that tab (bot/team.py, registered beside it).
        return None
    if control is Action.REVOKE:
        return _revoke(click.user.id, action, body)  # a grant, not an ask, is its value
    ref = _ref_of(action)
    if ref is None:
        return None
    user = click.user.id
    if control is Action.PICK:
        return Pick(user, OptionRef.of(ref))
    payload = read(BlockActions, body)
    if payload is None:
        return None
    trigger = payload.trigger_id or ""
    if control is Action.SUBMIT:
        return SubmitPart(user, PartRef.of(ref), payload.state.values if payload.state else {})
    if control is Action.APPROVE:
        return Approve(user, AskRef.of(ref))
    if control is Action.DISCUSS:
        return Discuss(user, AskRef.of(ref))
    if control is Action.FORM:
        return OpenForm(
            user, PartRef.of(ref), trigger, payload.state.values if payload.state else {}
        )
    if control is Action.OTHER:
        return OpenOther(user, AskRef.of(ref), trigger)
    in_modal = payload.container.type == "view"
    if control is Action.DETAILS:
        return OpenDetails(user, QuestionRef.of(ref), trigger, push=in_modal)
    if control is Action.CHANGES:
        return OpenChanges(user, AskRef.of(ref), trigger)
    if control is Action.PLAN:
        view = payload.view if in_modal else None
        return OpenPlan(
            user,
            PageRef.of(ref),
            trigger,
            view_id=view.id if view else None,
            view_hash=view.hash if view else None,
        )
    if control is Action.DIFF:
        return OpenDiff(user, AskRef.of(ref), trigger)
    if control is Action.EDIT:
        return OpenEdit(user, AskRef.of(ref), trigger, push=in_modal)
    if control is Action.SESSION:
        return AllowSession(user, AskRef.of(ref))
    if control is Action.CLAIM:
        return Claim(user, AskRef.of(ref))
    if control is Action.RELEASE:
        return Release(user, AskRef.of(ref))
    if control is Action.REASSIGN:
        return OpenReassign(user, AskRef.of(ref), trigger)
    if control is Action.NOTE:
        return OpenNote(user, ref.ask_id, trigger)
    if control is Action.FEEDBACK or control is Action.FEEDBACK_MENU:
        return _feedback(user, FeedbackRef.of(ref), trigger, home=payload.container.type == "view")
    if (
        control is Action.FILTER_AGENT
        or control is Action.FILTER_PERSON
        or control is Action.FILTER_OUTCOME
        or control is Action.FILTER_PERIOD
    ):
        return None  # returned above (HOME_FILTERS); named again for the exhaustiveness check
    if control is Action.ALWAYS:
        return OpenAlways(user, AskRef.of(ref), trigger, push=in_modal)
    assert_never(control)  # a new control needs its command here


def _revoke(
    user: str, action: ActionPayload, body: dict[str, object]
) -> Revoke | RevokeRule | None:
    payload = read(BlockActions, body)
    if payload is None or not action.value:
        return None
    where = None if payload.container.type == "view" else payload.response_url
    if action.value.startswith(RULE_REVOKE_PREFIX):
        name = action.value[len(RULE_REVOKE_PREFIX) :]
        return RevokeRule(user, name, where) if name else None
    return Revoke(user, action.value, where)


_VERDICTS: Final = {FEEDBACK_RIGHT: FeedbackVerdict.RIGHT, FEEDBACK_WRONG: FeedbackVerdict.WRONG}


def _feedback(user: str, ref: FeedbackRef, trigger: str, *, home: bool) -> Command | None:
    if ref.choice == FEEDBACK_NOTE:
        return OpenNote(user, ref.ask_id, trigger)
    verdict = _VERDICTS.get(ref.choice)
    if verdict is None:
        log.warning("ignoring feedback %d on ask %s", ref.choice, ref.ask_id)
        return None
    return GiveFeedback(user, ref.ask_id, verdict, home=home)


def _control(action_id: str) -> Action | None:
    """Which of our controls `action_id` names (option buttons add `.<index>` to a pick)."""
    if PICK_PATTERN.search(action_id):
        return Action.PICK
    try:
        return Action(action_id)
    except ValueError:
        return None


def _ref_of(action: ActionPayload) -> Ref | None:
    """The ask reference a button value or a picked option carries."""
    value = action.value
    if value is None and action.selected_option is not None:
        value = action.selected_option.value
    try:
        return Ref.decode(value or "")
    except ValueError:
        log.warning("ignoring action %s with value %r", action.action_id, value)
        return None


def _view_submission(body: dict[str, object]) -> Command | None:
    payload = read(ViewSubmission, body)
    if payload is None:
        return None
    view = payload.view
    answering = (
        Callback.FORM,
        Callback.OTHER,
        Callback.CHANGES,
        Callback.EDIT,
        Callback.REASSIGN,
        Callback.NOTE,
        Callback.ALWAYS,
    )
    if view.callback_id not in answering:
        return None  # a read-only modal: nothing to do but ack
    meta = _meta_of(view.private_metadata)
    if meta is None:
        return None
    if view.callback_id == Callback.REASSIGN:
        return SubmitReassign(payload.user.id, meta, view.state.values)
    if view.callback_id == Callback.NOTE:
        return SubmitNote(payload.user.id, meta, view.state.values)
    if view.callback_id == Callback.EDIT:
        return SubmitEdit(payload.user.id, meta, view.state.values)
    if view.callback_id == Callback.ALWAYS:
        return SubmitAlways(payload.user.id, meta, view.state.values)
    if view.callback_id == Callback.FORM:
        return SubmitForm(payload.user.id, meta, view.state.values)
    # "Other…" and "Request changes" alike: the typed text is the answer.
    return SubmitOther(payload.user.id, meta, view.state.values)


def _view_closed(body: dict[str, object]) -> Command | None:
    payload = read(ViewClosed, body)
    if payload is None or payload.view.callback_id != Callback.FORM:
        return None
    meta = _meta_of(payload.view.private_metadata)
    return CloseForm(payload.user.id, meta) if meta is not None else None


def _meta_of(private_metadata: str) -> ViewMeta | None:
    """Our modal's private_metadata, or None for a view that is not ours."""
    try:
        return ViewMeta.model_validate_json(private_metadata)
    except ValidationError:
        log.warning("ignoring a view with metadata %r", private_metadata[:100])
        return None


def _message(body: dict[str, object]) -> Command | None:
    event = body.get("event")
    # Told from the raw event first, cheaply: edits, joins and bots' posts (ours among them)
    # are never answers, and are dropped without a word.
    if not (
        isinstance(event, dict)
        and event.get("thread_ts") is not None
        and event.get("subtype") is None
        and event.get("bot_id") is None
        and event.get("user") is not None
    ):
        return None
    message = read(MessageEvent, event)
    if message is None or message.thread_ts is None or message.user is None:
        return None
    return Reply(message.user, message.channel, message.thread_ts, message.text)


def _session_stopped(body: dict[str, object]) -> Command | None:
    event = body.get("event")
    stopped = read(AgentSessionStopped, event) if isinstance(event, dict) else None
    if stopped is None:
        return None
    return StopSession(stopped.user, stopped.channel, stopped.thread_ts)
