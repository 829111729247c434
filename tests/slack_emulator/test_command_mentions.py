"""A slash command's typed `@name` arrives as Slack sends it with `should_escape` on."""

from __future__ import annotations

from slack_emulator.app_payloads import escaped_mentions
from slack_emulator.slack_objects import User

PEOPLE = [User("U0BOB00002", "bob"), User("U0GONE0009", "gone", deleted=True)]


def test_a_typed_name_of_a_member_arrives_as_their_id_and_name() -> None:
    assert escaped_mentions("delegate @bob until 2026-12-24", PEOPLE) == (
        "delegate <@U0BOB00002|bob> until 2026-12-24"
    )


def test_an_unknown_or_deactivated_name_and_an_email_stay_as_typed() -> None:
    text = "@nobody @gone bob@bob.example <@U0BOB00002|bob>"
    assert escaped_mentions(text, PEOPLE) == text
