"""How an ask can end, named once: each ending's state, event and seam error in one table.

Every other vocabulary is read from here: the store keeps `Verdict` and `AskState`, the event
log writes the ending's `EventKind`, the agent gets its `ErrorCode` and message, and each
Slack surface words the `Verdict` in its own table (render/). Nothing here renders or does I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from provider import ErrorCode
from provider.errors import ABORTED_MESSAGE
from provider.relay_wire import AskState

__all__ = ["ENDINGS", "AskError", "AskState", "Ending", "EventKind", "Verdict"]


class Verdict(StrEnum):
    """How an ask ended."""

    ANSWERED = "answered"
    WITHDRAWN = "withdrawn"  # the agent side ended it: signal, cancellation, dispose, shutdown
    CLOSED = "closed"  # a person closed the form
    CANCELLED = "cancelled"  # a person chose to discuss instead
    EXPIRED = "expired"  # a plan review's deadline passed without a decision
    FAILED = "failed"  # Slack could not show it, or its answer could not be read


class EventKind(StrEnum):
    """Every transition the event log records."""

    CREATED = "created"
    THREAD_OPENED = "thread_opened"
    POSTED = "posted"
    PART_ANSWERED = "part_answered"
    ANSWERED = "answered"
    WITHDRAWN = "withdrawn"
    CLOSED = "closed"
    CANCELLED = "cancelled"
    EXPIRED = "expired"
    FAILED = "failed"
    # Read only: logs written before withdrawn, closed and expired were told apart.
    LEGACY_ABORTED = "aborted"
    REFUSED = "refused"
    APPROVED = "approved"  # one approval of a plan that needs more
    REMINDED = "reminded"
    SHOWN = "shown"  # the message now shows the decision


class AskError(BaseModel):
    """Why an ask failed, in the seam's terms."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = "UserQuestionError"
    code: ErrorCode
    message: str


@dataclass(frozen=True)
class Ending:
    """One way an ask ends: where it then stands, what the log says, what the agent gets."""

    state: AskState
    event: EventKind
    code: ErrorCode | None  # None: the agent gets an answer, not an error
    # The stable seam message the detail is appended to (None: the detail is the message).
    message: str | None = None

    def error(self, detail: str | None) -> AskError | None:
        """The seam error of this ending, with `detail` saying what happened."""
        if self.code is None:
            return None
        if self.message is None:
            return AskError(code=self.code, message=detail or self.code.value)
        return AskError(
            code=self.code, message=f"{self.message}: {detail}" if detail else self.message
        )


ENDINGS: dict[Verdict, Ending] = {
    Verdict.ANSWERED: Ending(AskState.ANSWERED, EventKind.ANSWERED, None),
    Verdict.WITHDRAWN: Ending(
        AskState.FAILED, EventKind.WITHDRAWN, ErrorCode.ASK_ABORTED, ABORTED_MESSAGE
    ),
    Verdict.CLOSED: Ending(
        AskState.FAILED, EventKind.CLOSED, ErrorCode.ASK_ABORTED, ABORTED_MESSAGE
    ),
    Verdict.CANCELLED: Ending(AskState.FAILED, EventKind.CANCELLED, ErrorCode.ASK_CANCELLED),
    Verdict.EXPIRED: Ending(
        AskState.FAILED, EventKind.EXPIRED, ErrorCode.ASK_ABORTED, ABORTED_MESSAGE
    ),
    Verdict.FAILED: Ending(AskState.FAILED, EventKind.FAILED, ErrorCode.ASK_FAILED),
}
