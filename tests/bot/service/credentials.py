"""Agent credentials for relay tests, made in the running service's store."""

from __future__ import annotations

import time

from bot.service.principals import mint
from bot.service.server import Server
from bot.store import CredentialLimits


async def credential(
    server: Server,
    *agents: str,
    channels: tuple[str, ...] = (),
    limits: CredentialLimits | None = None,
    requester: str | None = None,
) -> str:
    """A new credential acting as `agents` (on behalf of `requester`, if given), stored
    where the service reads them; its token."""
    token, made = mint(
        agents=agents, channels=channels, limits=limits, requester=requester, now=time.time()
    )
    await server.store.add_credential(made)
    return token
