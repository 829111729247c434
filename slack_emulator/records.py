"""What the emulator saw: Web API calls, deliveries to the app, and rule violations.

These are the records a test asserts on: `emu.calls`, `emu.deliveries`, `emu.violations`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

from slack_emulator.changes import Changes
from slack_emulator.wire import JsonDict

Transport: TypeAlias = Literal["http", "socket"]

ACK_DEADLINE_SECONDS = 3.0
"""Slack gives an app 3 s to acknowledge a request ("you only have 3 seconds to respond").
https://docs.slack.dev/tools/bolt-python/concepts/acknowledge
"""


@dataclass(frozen=True)
class ApiCall:
    """One Web API call (or one POST to a response_url, recorded as method "response_url")."""

    method: str
    params: JsonDict
    """JSON-decoded arguments; `blocks`, `view`, `metadata`, `attachments` parsed; no token."""
    response: JsonDict
    status: int = 200

    @property
    def ok(self) -> bool:
        return self.response.get("ok") is True

    @property
    def error(self) -> str | None:
        error = self.response.get("error")
        return error if isinstance(error, str) else None


@dataclass(frozen=True)
class BlockKitViolation:
    """A request Slack would have refused (or, for rule "late_ack", an ack Slack never saw).

    `path` is the JSON pointer Slack names; `message` the sentence Slack prints after "[ERROR]".
    """

    method: str
    rule: str
    path: str
    message: str

    @property
    def slack_message(self) -> str:
        """The string Slack puts in `response_metadata.messages`."""
        return f"[ERROR] {self.message} [json-pointer:{self.path}]"


@dataclass(frozen=True)
class Delivery:
    """One request the emulator made to the app, as Slack would, and how the app answered."""

    kind: str
    """The payload's type: block_actions, view_submission, view_closed, event_callback,
    slash_command."""
    payload: JsonDict
    transport: Transport
    acked: bool
    """The app answered: HTTP 200, or a Socket Mode ack carrying the envelope_id."""
    status: int | None
    """The HTTP status of the app's answer; None over Socket Mode or when nothing came back."""
    ack: JsonDict | None
    """The parsed ack body (a text body becomes {"text": ...}, as Bolt does over Socket Mode)."""
    ack_seconds: float | None
    error: str | None = None
    """Why nothing usable came back: connection refused, timeout, socket dropped."""
    deadline: float = ACK_DEADLINE_SECONDS
    """The ack deadline it was delivered under: Slack's 3 s unless a test set `ack_deadline`."""

    @property
    def late(self) -> bool:
        return self.ack_seconds is not None and self.ack_seconds > self.deadline

    @property
    def in_time(self) -> bool:
        """Acknowledged within Slack's deadline, so Slack would act on the ack."""
        return self.acked and not self.late


class Recorder:
    """Append-only logs; every append wakes tests waiting on the emulator."""

    def __init__(self, changes: Changes) -> None:
        self.changes = changes
        self.calls: list[ApiCall] = []
        self.deliveries: list[Delivery] = []
        self.violations: list[BlockKitViolation] = []
        self.held: list[str] = []  # methods whose call a `Slow` fault is holding, or held

    def call(self, call: ApiCall) -> None:
        self.calls.append(call)
        self.changes.notify()

    def hold(self, method: str) -> None:
        """A call of `method` arrived and a `Slow` fault now holds it (recorded at arrival,
        so a test can act while the call is in flight)."""
        self.held.append(method)
        self.changes.notify()

    def delivery(self, delivery: Delivery) -> None:
        self.deliveries.append(delivery)
        self.changes.notify()

    def violation(self, violation: BlockKitViolation) -> None:
        self.violations.append(violation)
        self.changes.notify()
