"""Socket Mode: Bolt's handler, and a watchdog that rebuilds a connection that stays dead.

slack_sdk's aiohttp client reconnects by itself on `disconnect` messages, but it has been
seen looping forever after its session closed (python-slack-sdk #1922); the watchdog does
not trust it and replaces the whole client when it is not connected for a while.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable

from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.async_app import AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

log = logging.getLogger(__name__)

# How often the SDK client pings Slack, and so how soon it notices a dropped socket and
# opens a new one (slack_sdk's default).
PING_INTERVAL_S = 5.0


class SocketModeRunner:
    """Keeps one working Socket Mode connection for `app`."""

    def __init__(
        self,
        app: AsyncApp,
        app_token: str,
        *,
        api_url: str,
        ping_interval: float = PING_INTERVAL_S,
        check_every: float = 5.0,
        dead_after: float = 20.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._app = app
        self._app_token = app_token
        self._api_url = api_url
        self._ping_interval = ping_interval
        self._check_every = check_every
        self._dead_after = dead_after
        self._clock = clock
        self._handler: AsyncSocketModeHandler | None = None
        self._watchdog: asyncio.Task[None] | None = None
        self.rebuilds = 0

    def _new_handler(self) -> AsyncSocketModeHandler:
        # Built here, inside the running loop: the aiohttp client binds to it.
        return AsyncSocketModeHandler(
            self._app,
            app_token=self._app_token,
            web_client=AsyncWebClient(base_url=self._api_url),
            ping_interval=self._ping_interval,
        )

    async def start(self) -> None:
        """Open apps.connections.open's socket and start watching it."""
        self._handler = self._new_handler()
        await self._handler.connect_async()  # type: ignore[no-untyped-call]
        self._watchdog = asyncio.create_task(self._watch(), name="socket mode watchdog")

    @property
    def handler(self) -> AsyncSocketModeHandler | None:
        """Bolt's current Socket Mode handler (replaced when the watchdog rebuilds it)."""
        return self._handler

    async def connected(self) -> bool:
        """Whether the current client reports a live connection."""
        return self._handler is not None and bool(await self._handler.client.is_connected())

    async def _watch(self) -> None:
        down_since: float | None = None
        while True:
            await asyncio.sleep(self._check_every)
            if await self.connected():
                down_since = None
                continue
            now = self._clock()
            down_since = down_since if down_since is not None else now
            if now - down_since >= self._dead_after:
                log.warning("Socket Mode down for %.0f s; rebuilding the client", now - down_since)
                await self._rebuild()
                down_since = None

    async def _rebuild(self) -> None:
        old, self._handler = self._handler, None
        if old is not None:
            with contextlib.suppress(Exception):
                await old.close_async()  # type: ignore[no-untyped-call]
        self._handler = self._new_handler()
        self.rebuilds += 1
        try:
            await self._handler.connect_async()  # type: ignore[no-untyped-call]
        except Exception:
            log.exception("Socket Mode reconnect failed; the watchdog will try again")

    async def close(self) -> None:
        """Stop watching and close the connection."""
        if self._watchdog is not None:
            self._watchdog.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watchdog
        if self._handler is not None:
            await self._handler.close_async()  # type: ignore[no-untyped-call]
