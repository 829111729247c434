"""The workspace's URL (`https://acme.slack.com/`), as auth.test names it: what permalinks
are built from when there are too many to ask `chat.getPermalink` for each."""

from __future__ import annotations

import logging

from bot.slack.api import SlackCallFailed, SlackClient

log = logging.getLogger(__name__)


class WorkspaceUrl:
    """auth.test's `url`, asked once and kept; a failed call is asked again next time."""

    def __init__(self, client: SlackClient) -> None:
        self._client = client
        self._url: str | None = None

    async def get(self) -> str | None:
        """The URL; None (logged) when Slack cannot say now."""
        if self._url is None:
            try:
                auth = await self._client.auth_test()
            except SlackCallFailed as failed:
                log.warning("no workspace URL for permalinks: auth.test: %s", failed.error)
                return None
            url = auth.get("url")
            self._url = url if isinstance(url, str) and url else None
        return self._url
