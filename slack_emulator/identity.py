"""Who the emulated app and workspace are: ids and tokens every payload and response repeats."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

DEFAULT_SIGNING_SECRET: Final = "e0a1e0a1e0a1e0a1e0a1e0a1e0a1e0a1"
"""Shaped like the 32 hexadecimal characters Slack issues, so an app that checks the shape
of its signing secret (as `python -m bot` does) accepts the emulator's default."""


@dataclass(frozen=True)
class AppIdentity:
    """The single workspace and the single app installed in it."""

    team_id: str = "T00EMULATE"
    team_domain: str = "emulator"
    team_name: str = "Emulated Workspace"
    app_id: str = "A00EMULATE"
    bot_id: str = "B00EMULATE"
    bot_user_id: str = "U00EMUBOT0"
    bot_name: str = "slack-questions"
    bot_token: str = "xoxb-emulator"
    app_token: str = "xapp-emulator"
    verification_token: str = "emulator-verification-token"

    @property
    def workspace_url(self) -> str:
        return f"https://{self.team_domain}.slack.com/"
