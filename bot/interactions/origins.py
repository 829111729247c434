"""Whose requests we act on: only those for the bot's own app, workspace or organization.

A request's signature proves it was signed with our secret, not that it is for us: the ids
inside it (`team`, `enterprise`, `api_app_id`) must also be the bot's, as `auth.test` named
them at start-up (`BotIdentity`). Anything else is refused at the intake's one door, before
any phase of its command, so a live and a replayed interaction are checked alike; a refused
request is still acked (Slack would send it again) and leaves one WARNING line.

Enterprise Grid: a workspace install belongs to one workspace, so the request's team must be
ours and its organization ours (or none, outside a Grid). An org-wide install
(`is_enterprise_install`) serves every workspace of its organization, so there the
organization must be ours and the workspace may be any of it. Until auth.test has answered,
nothing is accepted (fail closed).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass

from bot.payloads import Origin, read

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True, kw_only=True)
class BotIdentity:
    """The bot's own app, workspace and organization, as auth.test names them."""

    app_id: str
    team_id: str
    enterprise_id: str | None = None
    org_wide: bool = False  # auth.test's `is_enterprise_install`

    @classmethod
    def of_auth_test(cls, auth: Mapping[str, object]) -> BotIdentity:
        """Read an auth.test answer; ValueError naming what is missing from it."""
        missing = [key for key in ("app_id", "team_id") if not isinstance(auth.get(key), str)]
        if missing:
            raise ValueError(f"auth.test did not name the bot's {' and '.join(missing)}")
        enterprise = auth.get("enterprise_id")
        org_wide = auth.get("is_enterprise_install") is True
        if org_wide and not (isinstance(enterprise, str) and enterprise):
            raise ValueError("auth.test says the install is org-wide but names no enterprise_id")
        return cls(
            app_id=str(auth["app_id"]),
            team_id=str(auth["team_id"]),
            enterprise_id=enterprise if isinstance(enterprise, str) and enterprise else None,
            org_wide=org_wide,
        )

    def describe(self) -> str:
        """Who may send us requests, for a refusal's log line."""
        if self.org_wide:
            return f"app {self.app_id} in any workspace of enterprise {self.enterprise_id}"
        grid = f" of enterprise {self.enterprise_id}" if self.enterprise_id else ""
        return f"app {self.app_id} in team {self.team_id}{grid}"

    def why_not(self, origin: Origin) -> str | None:
        """Why a request from `origin` is not ours (None: it is)."""
        app, team, enterprise = origin.api_app_id, origin.team_of, origin.enterprise_of
        if app != self.app_id:
            return f"app {app}"
        if enterprise != self.enterprise_id:
            return f"enterprise {enterprise}"
        if not self.org_wide and team != self.team_id:
            return f"team {team}"
        return None


class Origins:
    """The one check of a request's team, enterprise and app ids against the bot's own."""

    def __init__(self) -> None:
        self._bot: BotIdentity | None = None

    def know(self, bot: BotIdentity) -> None:
        """Accept requests for `bot` from now on (set once auth.test has answered)."""
        self._bot = bot

    def refused(self, what: str, body: Mapping[str, object]) -> bool:
        """Whether the request `body` (a `what`, for the log) is not for this bot; when so,
        one WARNING line names whose it is and whose we accept."""
        origin = read(Origin, body) or Origin()
        bot = self._bot
        if bot is None:
            log.warning(
                "refusing a %s from team %s, app %s: the bot's own ids are not known yet "
                "(auth.test has not answered)",
                what,
                origin.team_of,
                origin.api_app_id,
            )
            return True
        why = bot.why_not(origin)
        if why is None:
            return False
        log.warning(
            "refusing a %s from another %s (team %s, enterprise %s, app %s): only %s may act",
            what,
            why,
            origin.team_of,
            origin.enterprise_of,
            origin.api_app_id,
            bot.describe(),
        )
        return True
