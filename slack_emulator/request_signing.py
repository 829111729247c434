"""Slack's v0 request signing: HMAC-SHA256 over `v0:<timestamp>:<body>` with the signing secret.

https://docs.slack.dev/authentication/verifying-requests-from-slack/
"""

from __future__ import annotations

import hashlib
import hmac


def signature(*, secret: str, timestamp: int, body: str) -> str:
    base = f"v0:{timestamp}:{body}".encode()
    return "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()


def signed_headers(*, secret: str, timestamp: int, body: str, content_type: str) -> dict[str, str]:
    """The headers Slack puts on every request to an app's Request URL."""
    return {
        "Content-Type": content_type,
        "X-Slack-Request-Timestamp": str(timestamp),
        "X-Slack-Signature": signature(secret=secret, timestamp=timestamp, body=body),
        "User-Agent": "Slackbot 1.0 (+https://api.slack.com/robots)",
    }
