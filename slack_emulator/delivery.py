"""Delivering payloads to the app, over HTTP to its Request URL or over Socket Mode.

HTTP requests are signed with the signing secret and the current real time, exactly as
Slack signs them; interactions go form-encoded as `payload=<json>`, slash commands as form
fields, events as JSON. Every delivery is recorded with the app's ack and how long it took;
an ack later than Slack's 3 s is recorded as a `late_ack` violation.
https://docs.slack.dev/authentication/verifying-requests-from-slack/
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Final
from urllib.parse import urlencode

import aiohttp

from slack_emulator import app_payloads
from slack_emulator.records import (
    ACK_DEADLINE_SECONDS,
    BlockKitViolation,
    Delivery,
    Recorder,
    Transport,
)
from slack_emulator.request_signing import signed_headers
from slack_emulator.socket_mode_server import SocketModeServer
from slack_emulator.timekeeping import Clock, WallClock
from slack_emulator.wire import JsonDict

FORM: Final = "application/x-www-form-urlencoded"
JSON: Final = "application/json"


@dataclass
class DeliverySettings:
    """Where and how people's actions reach the app; tests may change these at any time."""

    signing_secret: str
    mode: Transport = "http"
    request_url: str | None = None
    request_clock: Clock = field(default_factory=WallClock)
    """Source of `X-Slack-Request-Timestamp`: real time, unless a test wants a stale one."""
    ack_timeout: float = 10.0
    """How long the emulator waits for an ack (longer than Slack's 3 s, to measure late ones)."""
    ack_deadline: float = ACK_DEADLINE_SECONDS
    """When an ack is late (Slack's 3 s); a test of lateness may set it shorter, so that the
    app under test need not be slow for seconds."""


@dataclass(frozen=True)
class _Answer:
    acked: bool
    status: int | None
    ack: JsonDict | None
    seconds: float | None
    error: str | None = None


def parse_ack(body: str, content_type: str) -> JsonDict | None:
    """An ack body as Slack reads it: JSON as is, other text as a message text."""
    if not body.strip():
        return None
    if content_type == JSON or body.lstrip().startswith("{"):
        try:
            parsed = json.loads(body)
        except ValueError:
            return {"text": body}
        return parsed if isinstance(parsed, dict) else {"text": body}
    return {"text": body}


# Where HTTP deliveries go in this context instead of `request_url` (`delivering_to`): a
# request URL per task, so concurrent people can reach different replicas of one app.
_TARGET: ContextVar[str | None] = ContextVar("delivery_target", default=None)


@contextmanager
def delivering_to(url: str) -> Iterator[None]:
    """Within the block (and tasks started in it), deliver over HTTP to `url`."""
    token = _TARGET.set(url)
    try:
        yield
    finally:
        _TARGET.reset(token)


# How long an idle connection to the app is kept for the next delivery: well inside an
# app's own keep-alive (ours closes idle ones after SLACK_QUESTIONS_HEADER_TIMEOUT, 10 s
# by default; aiohttp's default is 75 s), so the two never race.
KEEP_ALIVE_S: Final = 1.0


class Deliverer:
    def __init__(
        self, settings: DeliverySettings, socket: SocketModeServer, recorder: Recorder
    ) -> None:
        self.settings = settings
        self._socket = socket
        self._recorder = recorder
        self._session: aiohttp.ClientSession | None = None

    async def start(self) -> None:
        # Idle connections are let go well before an app lets go of them: a delivery sent on
        # a connection the app is closing as idle is reset in transit, never seen by the app
        # (Slack would not send it again either). A fresh connection per delivery would cost
        # every click 0.4 ms (bench.click_latency: bare Bolt 1.30 -> 1.71 ms).
        connector = aiohttp.TCPConnector(keepalive_timeout=KEEP_ALIVE_S)
        self._session = aiohttp.ClientSession(connector=connector)

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def interaction(self, payload: JsonDict) -> Delivery:
        # Only a view_submission's ack can carry a response (response_action).
        accepts = payload.get("type") == "view_submission"
        if self.settings.mode == "socket":
            answer = await self._over_socket(app_payloads.INTERACTIVE, payload, accepts)
        else:
            answer = await self._over_http(urlencode({"payload": json.dumps(payload)}), FORM)
        return self._record(str(payload.get("type")), payload, answer)

    async def event(self, envelope: JsonDict) -> Delivery:
        if self.settings.mode == "socket":
            answer = await self._over_socket(app_payloads.EVENTS_API, envelope, False)
        else:
            answer = await self._over_http(json.dumps(envelope), JSON)
        return self._record("event_callback", envelope, answer)

    async def command(self, fields: dict[str, str]) -> Delivery:
        if self.settings.mode == "socket":
            answer = await self._over_socket(app_payloads.SLASH_COMMANDS, dict(fields), True)
        else:
            answer = await self._over_http(urlencode(fields), FORM)
        return self._record("slash_command", dict(fields), answer)

    def _record(self, kind: str, payload: JsonDict, answer: _Answer) -> Delivery:
        delivery = Delivery(
            kind=kind,
            payload=payload,
            transport=self.settings.mode,
            acked=answer.acked,
            status=answer.status,
            ack=answer.ack,
            ack_seconds=answer.seconds,
            error=answer.error,
            deadline=self.settings.ack_deadline,
        )
        if delivery.late and delivery.ack_seconds is not None:
            self._recorder.violation(
                BlockKitViolation(
                    kind,
                    "late_ack",
                    "",
                    f"acknowledged after {delivery.ack_seconds:.2f} s; "
                    f"Slack gives up after {delivery.deadline:g} s",
                )
            )
        self._recorder.delivery(delivery)
        return delivery

    async def _over_http(self, body: str, content_type: str) -> _Answer:
        settings = self.settings
        request_url = _TARGET.get() or settings.request_url
        if request_url is None:
            return _Answer(False, None, None, None, "no request_url is set")
        if self._session is None:
            return _Answer(False, None, None, None, "the emulator is not running")
        headers = signed_headers(
            secret=settings.signing_secret,
            timestamp=int(settings.request_clock.now()),
            body=body,
            content_type=content_type,
        )
        started = time.monotonic()
        try:
            async with self._session.post(
                request_url,
                data=body.encode(),
                headers=headers,
                timeout=aiohttp.ClientTimeout(total=settings.ack_timeout),
            ) as response:
                text = await response.text()
                seconds = time.monotonic() - started
                return _Answer(
                    response.status == 200,
                    response.status,
                    parse_ack(text, response.content_type),
                    seconds,
                )
        except TimeoutError:
            return _Answer(False, None, None, None, f"no answer within {settings.ack_timeout} s")
        except aiohttp.ClientError as error:
            return _Answer(False, None, None, None, f"{type(error).__name__}: {error}")

    async def _over_socket(self, envelope_type: str, payload: JsonDict, accepts: bool) -> _Answer:
        within = self.settings.ack_timeout
        try:
            # A reconnecting app gets a moment to come back, as a test would want.
            await self._socket.wait_connected(within)
        except TimeoutError:
            return _Answer(False, None, None, None, f"no Socket Mode connection within {within} s")
        started = time.monotonic()
        try:
            ack = await self._socket.send(
                envelope_type=envelope_type,
                payload=payload,
                accepts_response_payload=accepts,
                within=self.settings.ack_timeout,
            )
        except TimeoutError:
            return _Answer(False, None, None, None, f"no ack within {self.settings.ack_timeout} s")
        except ConnectionError as error:
            return _Answer(False, None, None, None, str(error))
        return _Answer(True, None, ack.payload, time.monotonic() - started)
