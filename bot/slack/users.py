"""Who a Slack user is, as users.info says (`users:read`): a person or a bot, active or
deactivated, and their time zone. Handing an ask over needs a person; a delegation's end of
day needs their time zone."""

from __future__ import annotations

import logging

from pydantic import BaseModel, ConfigDict, ValidationError

from bot.slack.api import SlackCallFailed, SlackClient

log = logging.getLogger(__name__)


class Profile(BaseModel):
    """The parts of a user's `profile` the bot reads."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    display_name: str = ""


class Person(BaseModel):
    """The parts of users.info's `user` the bot reads."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    id: str
    is_bot: bool = False
    is_app_user: bool = False
    deleted: bool = False
    tz: str | None = None
    name: str = ""  # the handle
    profile: Profile = Profile()

    @property
    def automated(self) -> bool:
        """A bot or an app's user: nobody who could answer an ask."""
        return self.is_bot or self.is_app_user


async def look_up(client: SlackClient, user: str) -> Person:
    """The user `user`; `SlackCallFailed` when Slack cannot say (`user_not_found`: no such
    user in this workspace)."""
    response = await client.users_info(user=user)
    found = response.get("user")
    return Person.model_validate(found if isinstance(found, dict) else {"id": user})


class Users:
    """Tells people from bots, one `users.info` call each."""

    def __init__(self, client: SlackClient) -> None:
        self._client = client

    async def is_person(self, user_id: str) -> bool:
        """Whether `user_id` is an active person; False for a bot, a deactivated user, or
        one Slack cannot tell us about (fail closed: an ask is never handed to a bot)."""
        if user_id == "USLACKBOT":
            return False  # Slackbot is no bot by users.info, and answers nothing
        try:
            response = await self._client.users_info(user=user_id)
            person = Person.model_validate(response.get("user"))
        except SlackCallFailed:
            log.exception("could not look up %s", user_id)
            return False
        except ValidationError:
            log.warning("users.info of %s has no user we can read", user_id)
            return False
        return not (person.is_bot or person.deleted)

    async def handle_of(self, user_id: str) -> str | None:
        """What people call `user_id` in Slack (the display name, else the handle), to name
        them without a mention; None when Slack cannot tell us (the caller shows the id)."""
        try:
            person = await look_up(self._client, user_id)
        except SlackCallFailed:
            log.warning("could not look up the name of %s", user_id)
            return None
        except ValidationError:
            return None
        return person.profile.display_name or person.name or None
