"""Telling a person from a bot by users.info, failing closed: an id Slack does not know is no
person to hand an ask to."""

from __future__ import annotations

from bot.slack.users import Users
from slack_emulator import SlackEmulator

from ..harness import ALICE, Bot


async def test_a_workspace_member_is_a_person(bot: Bot) -> None:
    assert await Users(bot.provider.client).is_person(ALICE)


async def test_a_bot_is_not_a_person(bot: Bot, emu: SlackEmulator) -> None:
    assert not await Users(bot.provider.client).is_person(emu.bot_user_id)


async def test_an_id_slack_does_not_know_is_not_a_person(bot: Bot, emu: SlackEmulator) -> None:
    assert not await Users(bot.provider.client).is_person("U0NOBODY99")
    [call] = [c for c in emu.calls_to("users.info") if c.params.get("user") == "U0NOBODY99"]
    assert call.response["error"] == "user_not_found"


async def test_slackbot_is_not_a_person_and_is_not_looked_up(bot: Bot, emu: SlackEmulator) -> None:
    assert not await Users(bot.provider.client).is_person("USLACKBOT")
    assert [c for c in emu.calls_to("users.info") if c.params.get("user") == "USLACKBOT"] == []
