"""Who a Slack user id is, as far as handing an ask over needs: a person, or not (a bot,
an app's user, someone deactivated, an id Slack does not know), from `users.info`."""

from __future__ import annotations

import logging

from pydantic import BaseModel, ConfigDict, ValidationError

from bot.slack.api import SlackCallFailed, SlackClient

log = logging.getLogger(__name__)


class SlackUser(BaseModel):
    """The parts of users.info's `user` we read."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    id: str
    is_bot: bool = False
    deleted: bool = False


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
            user = SlackUser.model_validate(response.get("user"))
        except SlackCallFailed:
            log.exception("could not look up %s", user_id)
            return False
        except ValidationError:
            log.warning("users.info of %s has no user we can read", user_id)
            return False
        return not (user.is_bot or user.deleted)
