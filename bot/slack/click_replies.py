"""Answering a click through its response_url: replace the ephemeral message it came from,
or show the person a new one, in whatever channel they clicked (the bot need not be in it).

A response_url works for 30 minutes, five times (Slack's guide to handling user
interaction); past that, or on any failure, the answer is logged and dropped: the person
who clicked is no longer waiting on a request.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import aiohttp
from slack_sdk.webhook.async_client import AsyncWebhookClient

log = logging.getLogger(__name__)


async def respond_at(
    response_url: str, *, text: str, blocks: Sequence[dict[str, Any]] = (), replace: bool
) -> bool:
    """Show `text` and `blocks` ephemerally: in place of the message clicked (`replace`),
    else as a new message to the person alone; whether Slack took it."""
    client = AsyncWebhookClient(response_url)
    try:
        response = await client.send(
            text=text,
            blocks=list(blocks),
            response_type="ephemeral",
            replace_original=replace,
        )
    except (aiohttp.ClientError, TimeoutError):
        log.exception("could not answer a click through its response_url")
        return False
    if response.status_code != 200:
        log.error("could not answer a click: HTTP %s %s", response.status_code, response.body)
        return False
    return True
