"""Each Slack interaction parses once into the exact command it asks for; what is not ours,
or cannot be read, parses to None and never raises."""

from __future__ import annotations

import logging
from typing import Any, get_args

import pytest

from bot.block_ids import AskRef, OptionRef, PageRef, PartRef, QuestionRef, ViewMeta
from bot.interactions.commands import (
    Approve,
    CloseForm,
    Command,
    Discuss,
    OpenChanges,
    OpenDetails,
    OpenDiff,
    OpenForm,
    OpenOther,
    OpenPlan,
    Pick,
    Reply,
    Revoke,
    RevokeRule,
    SubmitForm,
    SubmitOther,
    SubmitPart,
    parse,
)
from bot.payloads import ElementState, SelectedOption
from bot.store import InboxKind

ALICE = "U0ALICE001"
CHANNEL = "C0QUESTION"
TRIGGER = "1337.42.abcdef"
FORM_META = ViewMeta(ask="a1", part=0, channel=CHANNEL)
STATE = {"db": {"sq_input": {"type": "radio_buttons", "selected_option": {"value": "1"}}}}
VALUES = {
    "db": {
        "sq_input": ElementState(type="radio_buttons", selected_option=SelectedOption(value="1"))
    }
}


def click(
    action_id: str, value: str | None, *, in_modal: bool = False, **action: Any
) -> dict[str, Any]:
    """A block_actions body as Slack sends it, for one control of ours."""
    body: dict[str, Any] = {
        "type": "block_actions",
        "user": {"id": ALICE, "username": "alice", "team_id": "T0TEAM0001"},
        "api_app_id": "A0APP00001",
        "trigger_id": TRIGGER,
        "container": {"type": "view", "view_id": "V1"}
        if in_modal
        else {"type": "message", "message_ts": "1.1", "channel_id": CHANNEL},
        "actions": [
            {"action_id": action_id, "block_id": "b", "type": "button", "value": value, **action}
        ],
        "state": {"values": STATE},
    }
    if in_modal:
        body["view"] = {"id": "V1", "hash": "h1", "callback_id": "sq_plan", "state": {}}
    return body


def submission(callback_id: str, meta: ViewMeta | str) -> dict[str, Any]:
    """A view_submission body for one of our modals."""
    metadata = meta if isinstance(meta, str) else meta.model_dump_json(exclude_none=True)
    return {
        "type": "view_submission",
        "user": {"id": ALICE},
        "trigger_id": TRIGGER,
        "view": {
            "id": "V1",
            "callback_id": callback_id,
            "private_metadata": metadata,
            "state": {"values": STATE},
        },
    }


def closed(callback_id: str) -> dict[str, Any]:
    """A view_closed body for one of our modals."""
    return {
        "type": "view_closed",
        "user": {"id": ALICE},
        "view": {
            "id": "V1",
            "callback_id": callback_id,
            "private_metadata": FORM_META.model_dump_json(exclude_none=True),
        },
        "is_cleared": False,
    }


def message(**event: Any) -> dict[str, Any]:
    """An event_callback body carrying a message event."""
    base = {"type": "message", "channel": CHANNEL, "ts": "2.2", "user": ALICE, "text": "svc"}
    return {"type": "event_callback", "event": {**base, **event}}


EACH_KIND = [
    pytest.param(
        InboxKind.BLOCK_ACTIONS,
        click("sq_pick.1", "a1/1"),
        Pick(ALICE, OptionRef("a1", 1)),
        id="a pick button",
    ),
    pytest.param(
        InboxKind.BLOCK_ACTIONS,
        click("sq_pick", None, selected_option={"value": "a1/7"}),
        Pick(ALICE, OptionRef("a1", 7)),
        id="a pick from a menu",
    ),
    pytest.param(
        InboxKind.BLOCK_ACTIONS,
        click("sq_submit", "a1/2"),
        SubmitPart(ALICE, PartRef("a1", 2), VALUES),
        id="Submit under a part",
    ),
    pytest.param(
        InboxKind.BLOCK_ACTIONS,
        click("sq_approve", "a1/0"),
        Approve(ALICE, AskRef("a1")),
        id="approve a plan",
    ),
    pytest.param(
        InboxKind.BLOCK_ACTIONS,
        click("sq_discuss", "a1/0"),
        Discuss(ALICE, AskRef("a1")),
        id="discuss a plan",
    ),
    pytest.param(
        InboxKind.BLOCK_ACTIONS,
        click("sq_form", "a1/1"),
        OpenForm(ALICE, PartRef("a1", 1), TRIGGER, VALUES),
        id="open a form",
    ),
    pytest.param(
        InboxKind.BLOCK_ACTIONS,
        click("sq_other", "a1/0"),
        OpenOther(ALICE, AskRef("a1"), TRIGGER),
        id="open Other",
    ),
    pytest.param(
        InboxKind.BLOCK_ACTIONS,
        click("sq_details", "a1/3"),
        OpenDetails(ALICE, QuestionRef("a1", 3), TRIGGER, push=False),
        id="view all, in the message",
    ),
    pytest.param(
        InboxKind.BLOCK_ACTIONS,
        click("sq_details", "a1/3", in_modal=True),
        OpenDetails(ALICE, QuestionRef("a1", 3), TRIGGER, push=True),
        id="view all, in a modal",
    ),
    pytest.param(
        InboxKind.BLOCK_ACTIONS,
        click("sq_changes", "a1/0"),
        OpenChanges(ALICE, AskRef("a1"), TRIGGER),
        id="request changes",
    ),
    pytest.param(
        InboxKind.BLOCK_ACTIONS,
        click("sq_plan", "a1/0"),
        OpenPlan(ALICE, PageRef("a1", 0), TRIGGER, view_id=None, view_hash=None),
        id="the whole plan, from the message",
    ),
    pytest.param(
        InboxKind.BLOCK_ACTIONS,
        click("sq_plan", "a1/2", in_modal=True),
        OpenPlan(ALICE, PageRef("a1", 2), TRIGGER, view_id="V1", view_hash="h1"),
        id="a page of the plan, in its modal",
    ),
    pytest.param(
        InboxKind.BLOCK_ACTIONS,
        click("sq_diff", "a1/0"),
        OpenDiff(ALICE, AskRef("a1"), TRIGGER),
        id="what changed",
    ),
    pytest.param(
        InboxKind.VIEW_SUBMISSION,
        submission("sq_form", FORM_META),
        SubmitForm(ALICE, FORM_META, VALUES),
        id="a form submitted",
    ),
    pytest.param(
        InboxKind.VIEW_SUBMISSION,
        submission("sq_other", ViewMeta(ask="a1", question=0)),
        SubmitOther(ALICE, ViewMeta(ask="a1", question=0), VALUES),
        id="Other submitted",
    ),
    pytest.param(
        InboxKind.VIEW_SUBMISSION,
        submission("sq_changes", ViewMeta(ask="a1")),
        SubmitOther(ALICE, ViewMeta(ask="a1"), VALUES),
        id="changes requested",
    ),
    pytest.param(
        InboxKind.VIEW_CLOSED, closed("sq_form"), CloseForm(ALICE, FORM_META), id="a form closed"
    ),
    pytest.param(
        InboxKind.MESSAGE,
        message(thread_ts="1.1"),
        Reply(ALICE, CHANNEL, "1.1", "svc"),
        id="a thread reply",
    ),
]


@pytest.mark.parametrize(("kind", "body", "command"), EACH_KIND)
def test_each_interaction_parses_to_its_exact_command(
    kind: InboxKind, body: dict[str, Any], command: Command
) -> None:
    assert parse(kind, body) == command


NOT_OURS = [
    pytest.param(InboxKind.BLOCK_ACTIONS, click("sq_input", None), id="an input's change"),
    pytest.param(
        InboxKind.BLOCK_ACTIONS, click("someone_elses", "a1/0"), id="another app's action"
    ),
    pytest.param(InboxKind.BLOCK_ACTIONS, click("sq_pick.x", "a1/0"), id="a pick with no index"),
    pytest.param(
        InboxKind.VIEW_SUBMISSION,
        submission("sq_details", ViewMeta(ask="a1")),
        id="a read-only modal submitted",
    ),
    pytest.param(InboxKind.VIEW_CLOSED, closed("sq_other"), id="an Other modal closed"),
    pytest.param(InboxKind.MESSAGE, message(), id="a top-level message"),
    pytest.param(
        InboxKind.MESSAGE, message(thread_ts="1.1", subtype="message_changed"), id="an edit"
    ),
    pytest.param(InboxKind.MESSAGE, message(thread_ts="1.1", bot_id="B1"), id="a bot's post"),
    pytest.param(InboxKind.MESSAGE, message(thread_ts="1.1", user=None), id="a message by nobody"),
]


@pytest.mark.parametrize(("kind", "body"), NOT_OURS)
def test_what_is_not_ours_to_act_on_parses_to_none_without_a_word(
    kind: InboxKind, body: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    assert parse(kind, body) is None
    assert caplog.records == []


MALFORMED = [
    pytest.param(InboxKind.BLOCK_ACTIONS, {}, id="an empty click"),
    pytest.param(
        InboxKind.BLOCK_ACTIONS,
        {**click("sq_pick.1", "a1/1"), "user": "alice"},
        id="a user that is a string",
    ),
    pytest.param(
        InboxKind.BLOCK_ACTIONS,
        {**click("sq_pick.1", "a1/1"), "actions": "x"},
        id="actions that are a string",
    ),
    pytest.param(
        InboxKind.BLOCK_ACTIONS,
        {**click("sq_submit", "a1/1"), "container": None},
        id="a Submit without its container",
    ),
    pytest.param(InboxKind.BLOCK_ACTIONS, click("sq_pick.1", "a1/01"), id="a value we never write"),
    pytest.param(InboxKind.BLOCK_ACTIONS, click("sq_pick.1", None), id="a pick without a value"),
    pytest.param(
        InboxKind.VIEW_SUBMISSION, submission("sq_form", "{not json"), id="metadata not ours"
    ),
    pytest.param(
        InboxKind.VIEW_SUBMISSION,
        {"type": "view_submission", "view": []},
        id="a view that is a list",
    ),
    pytest.param(InboxKind.VIEW_CLOSED, {"type": "view_closed"}, id="a close without its view"),
    pytest.param(
        InboxKind.MESSAGE, message(thread_ts="1.1", channel=None), id="a reply without its channel"
    ),
]


@pytest.mark.parametrize(("kind", "body"), MALFORMED)
def test_a_malformed_body_parses_to_none_and_is_logged_as_a_warning(
    kind: InboxKind, body: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    assert parse(kind, body) is None
    assert [r.levelno for r in caplog.records] == [logging.WARNING]


def test_a_body_handed_over_as_another_kind_parses_to_none() -> None:
    bodies = {
        InboxKind.BLOCK_ACTIONS: click("sq_pick.1", "a1/1"),
        InboxKind.VIEW_SUBMISSION: submission("sq_form", FORM_META),
        InboxKind.VIEW_CLOSED: closed("sq_form"),
        InboxKind.MESSAGE: message(thread_ts="1.1"),
    }
    for kind in InboxKind:
        for other, body in bodies.items():
            if other is not kind:
                assert parse(kind, body) is None, (kind, other)


def test_only_what_opens_a_modal_is_not_kept_before_its_ack() -> None:
    unkept = {command.__name__ for command in get_args(Command) if not command.kept}
    assert unkept == {
        "OpenNote",
        "OpenForm",
        "OpenOther",
        "OpenDetails",
        "OpenChanges",
        "OpenPlan",
        "OpenDiff",
        "OpenEdit",
        "OpenReassign",
        "OpenAlways",
    }


def test_revoke_on_a_message_parses_to_its_grant_and_response_url_and_is_kept() -> None:
    body = {**click("sq_revoke", "g1"), "response_url": "https://hooks.slack.test/actions/1"}
    command = parse(InboxKind.BLOCK_ACTIONS, body)
    assert command == Revoke(ALICE, "g1", "https://hooks.slack.test/actions/1")
    assert command.kept


def test_revoke_on_the_home_tab_parses_with_no_response_url() -> None:
    assert parse(InboxKind.BLOCK_ACTIONS, click("sq_revoke", "g1", in_modal=True)) == Revoke(
        ALICE, "g1", None
    )


def test_revoke_naming_no_grant_parses_to_none() -> None:
    assert parse(InboxKind.BLOCK_ACTIONS, click("sq_revoke", "")) is None


def test_revoke_of_a_rule_parses_to_the_rules_name_and_is_kept() -> None:
    body = {**click("sq_revoke", "rule:git-status"), "response_url": "https://hooks.slack.test/1"}
    command = parse(InboxKind.BLOCK_ACTIONS, body)
    assert command == RevokeRule(ALICE, "git-status", "https://hooks.slack.test/1")
    assert command.kept


def test_revoke_of_a_rule_with_no_name_parses_to_none() -> None:
    assert parse(InboxKind.BLOCK_ACTIONS, click("sq_revoke", "rule:")) is None
