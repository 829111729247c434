"""Who a Slack user is, as users.info says (`users:read`): a person or a bot, active or
deactivated, and their time zone."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from bot.slack.api import SlackClient


class Person(BaseModel):
    """The parts of users.info's `user` the bot reads."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    id: str
    is_bot: bool = False
    is_app_user: bool = False
    deleted: bool = False
    tz: str | None = None

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
