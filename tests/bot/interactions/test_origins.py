"""Whose requests the bot acts on: the ids auth.test names, compared with a request's own."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from bot.interactions.origins import BotIdentity, Origins

WORKSPACE = {"team_id": "T1", "app_id": "A1", "is_enterprise_install": False}
IN_A_GRID = {**WORKSPACE, "enterprise_id": "E1"}
ORG_WIDE = {**IN_A_GRID, "is_enterprise_install": True}


def click(team: str | None, app: str = "A1", enterprise: str | None = None) -> dict[str, Any]:
    """The ids a block_actions payload carries."""
    return {
        "type": "block_actions",
        "team": None if team is None else {"id": team, "domain": "x"},
        "enterprise": None if enterprise is None else {"id": enterprise, "name": "Org"},
        "api_app_id": app,
    }


def event(team: str, app: str = "A1", enterprise: str | None = None) -> dict[str, Any]:
    """The ids an Events API envelope (or a slash command's form) carries."""
    return {
        "type": "event_callback",
        "team_id": team,
        "enterprise_id": enterprise,
        "api_app_id": app,
    }


def origins(auth: dict[str, object]) -> Origins:
    known = Origins()
    known.know(BotIdentity.of_auth_test(auth))
    return known


@pytest.mark.parametrize(
    ("auth", "body"),
    [
        pytest.param(WORKSPACE, click("T1"), id="a click in our workspace"),
        pytest.param(WORKSPACE, event("T1"), id="an event in our workspace"),
        pytest.param(IN_A_GRID, click("T1", enterprise="E1"), id="our workspace of a grid"),
        pytest.param(ORG_WIDE, click("T2", enterprise="E1"), id="any workspace of our org"),
        pytest.param(ORG_WIDE, click(None, enterprise="E1"), id="an org-wide click without team"),
        pytest.param(
            WORKSPACE, {**event("T1"), "enterprise_id": ""}, id="a slash command's empty enterprise"
        ),
    ],
)
def test_a_request_for_our_app_team_and_enterprise_is_accepted(
    auth: dict[str, object], body: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    assert origins(auth).refused("block_actions", body) is False
    assert caplog.records == []


@pytest.mark.parametrize(
    ("auth", "body", "why"),
    [
        pytest.param(WORKSPACE, click("T2"), "another team T2", id="another team"),
        pytest.param(WORKSPACE, event("T1", app="A2"), "another app A2", id="another app"),
        pytest.param(WORKSPACE, click(None), "another team None", id="no team"),
        pytest.param(WORKSPACE, {"type": "block_actions"}, "another app None", id="no ids at all"),
        pytest.param(
            WORKSPACE,
            click("T1", enterprise="E9"),
            "another enterprise E9",
            id="a grid we are not in",
        ),
        pytest.param(
            IN_A_GRID,
            click("T2", enterprise="E1"),
            "another team T2",
            id="another workspace of our grid",
        ),
        pytest.param(
            ORG_WIDE, click("T2", enterprise="E9"), "another enterprise E9", id="another org"
        ),
    ],
)
def test_a_request_for_another_app_team_or_enterprise_is_refused_in_one_warning(
    auth: dict[str, object], body: dict[str, Any], why: str, caplog: pytest.LogCaptureFixture
) -> None:
    assert origins(auth).refused("block_actions", body) is True
    [warning] = caplog.records
    assert warning.levelno == logging.WARNING
    assert f"refusing a block_actions from {why} " in warning.getMessage()


def test_the_warning_says_whose_requests_are_accepted(caplog: pytest.LogCaptureFixture) -> None:
    origins(IN_A_GRID).refused("view_submission", click("TEVIL", app="AEVIL"))
    assert caplog.messages == [
        "refusing a view_submission from another app AEVIL (team TEVIL, enterprise None, "
        "app AEVIL): only app A1 in team T1 of enterprise E1 may act"
    ]


def test_before_auth_test_has_answered_every_request_is_refused(
    caplog: pytest.LogCaptureFixture,
) -> None:
    assert Origins().refused("message", event("T1")) is True
    assert caplog.messages == [
        "refusing a message from team T1, app A1: the bot's own ids are not known yet "
        "(auth.test has not answered)"
    ]


@pytest.mark.parametrize(
    ("auth", "error"),
    [
        ({"team_id": "T1"}, "auth.test did not name the bot's app_id"),
        ({}, "auth.test did not name the bot's app_id and team_id"),
        (
            {**WORKSPACE, "is_enterprise_install": True},
            "auth.test says the install is org-wide but names no enterprise_id",
        ),
    ],
)
def test_an_auth_test_answer_without_the_bots_ids_is_a_clear_error(
    auth: dict[str, object], error: str
) -> None:
    with pytest.raises(ValueError, match=r"^auth\.test ") as failed:
        BotIdentity.of_auth_test(auth)
    assert str(failed.value) == error
