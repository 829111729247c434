"""The parts of Slack's payloads we read, typed. Unknown fields are ignored, as Slack adds them."""

from __future__ import annotations

import logging
from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

log = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)


def read(model: type[M], body: object) -> M | None:
    """`body` as `model`, or None (logged) when Slack sent something we do not understand:
    a payload we cannot read is never raised, since an exception near an ack erases it."""
    try:
        return model.model_validate(body)
    except ValidationError as error:
        log.warning("ignoring a %s we cannot read: %s", model.__name__, error)
        return None


class SlackModel(BaseModel):
    """A Slack payload fragment: tolerant of fields we do not read."""

    model_config = ConfigDict(extra="ignore", frozen=True)


class SelectedOption(SlackModel):
    """An option a person chose; we only read its value."""

    value: str


class ElementState(SlackModel):
    """The current value of one stateful element in `state.values`."""

    type: str
    value: str | None = None
    selected_option: SelectedOption | None = None
    selected_options: list[SelectedOption] | None = None
    selected_user: str | None = None  # a users_select ("Reassign…")


StateValues = dict[str, dict[str, ElementState]]


class State(SlackModel):
    """`state` of a message or view: block id -> action id -> element state."""

    values: StateValues = Field(default_factory=dict)


class User(SlackModel):
    """The person who acted."""

    id: str


class Channel(SlackModel):
    """A conversation reference."""

    id: str


class Container(SlackModel):
    """Where the acted-on element lives."""

    type: str
    message_ts: str | None = None
    channel_id: str | None = None
    thread_ts: str | None = None
    view_id: str | None = None


class Action(SlackModel):
    """One entry of `actions` in a block_actions payload."""

    action_id: str
    block_id: str
    type: str
    value: str | None = None
    selected_option: SelectedOption | None = None
    selected_user: str | None = None  # a users_select


class MessageRef(SlackModel):
    """The message an action came from."""

    ts: str
    thread_ts: str | None = None


class ViewPayload(SlackModel):
    """A modal as Slack sends it back."""

    id: str
    callback_id: str = ""
    private_metadata: str = ""
    hash: str | None = None
    state: State = Field(default_factory=State)


class BlockActions(SlackModel):
    """A click, pick or change in a message or modal."""

    type: Literal["block_actions"]
    user: User
    actions: list[Action]
    container: Container
    trigger_id: str | None = None
    channel: Channel | None = None
    message: MessageRef | None = None
    view: ViewPayload | None = None
    state: State | None = None
    response_url: str | None = None


class ViewSubmission(SlackModel):
    """A modal submitted."""

    type: Literal["view_submission"]
    user: User
    view: ViewPayload
    trigger_id: str | None = None


class ViewClosed(SlackModel):
    """A modal closed by the person (sent only with `notify_on_close`)."""

    type: Literal["view_closed"]
    user: User
    view: ViewPayload
    is_cleared: bool = False


class MessageEvent(SlackModel):
    """A `message` event; thread replies carry `thread_ts`."""

    type: Literal["message"]
    channel: str
    ts: str
    user: str | None = None
    text: str = ""
    thread_ts: str | None = None
    subtype: str | None = None
    bot_id: str | None = None


class AgentSessionStopped(SlackModel):
    """An `agent_session_stopped` event: a person pressed Stop on the app's agent session
    (https://docs.slack.dev/reference/events/agent_session_stopped)."""

    type: Literal["agent_session_stopped"]
    channel: str
    user: str
    thread_ts: str
    event_ts: str
    streaming_message_ts: list[str] = Field(default_factory=list)


class Team(SlackModel):
    """A workspace reference (`team` of an interaction)."""

    id: str


class Enterprise(SlackModel):
    """An Enterprise Grid organization reference (`enterprise` of an interaction)."""

    id: str


class Origin(SlackModel):
    """Which workspace, organization and app a request says it is for.

    Interactions (block_actions, view_submission, view_closed) carry `team`, `enterprise`
    (null outside Enterprise Grid) and `api_app_id`; the Events API envelope and slash
    commands carry them flat as `team_id`, `enterprise_id` and `api_app_id` (docs/slack-facts.md
    §6-9). An org-wide install may send `team: null`. Read both ways; absent means None.
    """

    team: Team | None = None
    enterprise: Enterprise | None = None
    team_id: str | None = None
    enterprise_id: str | None = None
    api_app_id: str | None = None

    @property
    def team_of(self) -> str | None:
        """The workspace id, wherever this kind of payload puts it ('' is none)."""
        return (self.team.id if self.team else self.team_id) or None

    @property
    def enterprise_of(self) -> str | None:
        """The organization id, wherever this kind of payload puts it ('' is none)."""
        return (self.enterprise.id if self.enterprise else self.enterprise_id) or None
