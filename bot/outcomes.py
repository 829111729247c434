"""How an ask can end, named once: each ending's state, event and seam error in one table.

Every other vocabulary is read from here: the store keeps `Verdict` and `AskState`, the event
log writes the ending's `EventKind`, the agent gets its `ErrorCode` and message, and each
Slack surface words the `Verdict` in its own table (render/). A plan review's endings are
rows too (`PLAN_ENDINGS`): which one a decided review had is told here once, and every surface
that shows a review heads it with that row's emoji and words. Nothing here renders or does I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from provider import AskUserQuestionAnswerItem, ErrorCode
from provider.errors import ABORTED_MESSAGE
from provider.relay_wire import AskState

__all__ = [
    "ENDINGS",
    "PLAN_ENDINGS",
    "AskError",
    "AskState",
    "Ending",
    "EventKind",
    "PlanEnding",
    "PlanOutcome",
    "Verdict",
    "plan_outcome",
]


class Verdict(StrEnum):
    """How an ask ended."""

    ANSWERED = "answered"
    WITHDRAWN = "withdrawn"  # the agent side ended it: signal, cancellation, dispose, shutdown
    CLOSED = "closed"  # a person closed the form
    CANCELLED = "cancelled"  # a person chose to discuss instead
    EXPIRED = "expired"  # a plan review's deadline passed without a decision
    FAILED = "failed"  # Slack could not show it, or its answer could not be read
    STOPPED = "stopped"  # a person pressed Stop on the agent's session in Slack


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
    ESCALATED = "escalated"  # its SLA ladder asked the policy's `escalate_to` too
    SHOWN = "shown"  # the message now shows the decision
    CLAIMED = "claimed"  # one person of the pool holds it (`AskRecord.holder`)
    RELEASED = "released"  # its holder gave it back to the pool
    CLAIM_LAPSED = "claim_lapsed"  # its claim ran out (`claim_lapse`): back with the pool
    REASSIGNED = "reassigned"  # handed to a named person, who holds it now
    STOPPED = "stopped"  # a person pressed Stop on the agent's session (agent_session_stopped)


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
    # Not "nobody answered": someone in Slack told the agent to stop; never an approval.
    Verdict.STOPPED: Ending(
        AskState.FAILED, EventKind.STOPPED, ErrorCode.ASK_ABORTED, ABORTED_MESSAGE
    ),
}


class PlanOutcome(StrEnum):
    """How a plan review ended, as the people who decide one see it."""

    APPROVED = "approved"
    CHANGES_REQUESTED = "changes_requested"
    DECLINED = "declined"  # a label other than the approving one
    DISCUSSED = "discussed"
    EXPIRED = "expired"
    WITHDRAWN = "withdrawn"
    FAILED = "failed"  # failed, or (a review has no form) closed
    STOPPED = "stopped"  # Stop pressed on the agent's session in Slack


@dataclass(frozen=True)
class PlanEnding:
    """One way a plan review ends: the verdict it is, and the emoji and words it is headed
    with (plain words: each surface adds its own markup and who and when)."""

    verdict: Verdict
    emoji: str
    words: str


PLAN_ENDINGS: dict[PlanOutcome, PlanEnding] = {
    PlanOutcome.APPROVED: PlanEnding(Verdict.ANSWERED, ":white_check_mark:", "Approved"),
    PlanOutcome.CHANGES_REQUESTED: PlanEnding(Verdict.ANSWERED, ":memo:", "Changes requested"),
    PlanOutcome.DECLINED: PlanEnding(Verdict.ANSWERED, ":no_entry:", "Declined"),
    PlanOutcome.DISCUSSED: PlanEnding(
        Verdict.CANCELLED, ":speech_balloon:", "moved this plan to a discussion in the thread"
    ),
    PlanOutcome.EXPIRED: PlanEnding(
        Verdict.EXPIRED, ":alarm_clock:", "Expired unapproved: nobody answered"
    ),
    PlanOutcome.WITHDRAWN: PlanEnding(
        Verdict.WITHDRAWN, ":heavy_minus_sign:", "Withdrawn, nobody answered"
    ),
    PlanOutcome.FAILED: PlanEnding(Verdict.FAILED, ":warning:", "Could not be collected"),
    PlanOutcome.STOPPED: PlanEnding(
        Verdict.STOPPED, ":octagonal_sign:", "Stopped in Slack, not approved"
    ),
}

_PLAN_OUTCOME_OF: dict[Verdict, PlanOutcome] = {
    Verdict.CANCELLED: PlanOutcome.DISCUSSED,
    Verdict.EXPIRED: PlanOutcome.EXPIRED,
    Verdict.WITHDRAWN: PlanOutcome.WITHDRAWN,
    Verdict.FAILED: PlanOutcome.FAILED,
    Verdict.CLOSED: PlanOutcome.FAILED,
    Verdict.STOPPED: PlanOutcome.STOPPED,
}


def plan_outcome(
    verdict: Verdict, item: AskUserQuestionAnswerItem | None, approve: str | None
) -> PlanOutcome:
    """How a review ended with `verdict` and answer `item`, `approve` its approving label: an
    answer is an approval when it is that label alone, requested changes when it has a
    comment, and a decline otherwise (fail closed)."""
    if verdict is not Verdict.ANSWERED:
        return _PLAN_OUTCOME_OF[verdict]
    if item is not None and approve is not None and item.selected == [approve]:
        return PlanOutcome.APPROVED
    if item is not None and item.custom is not None:
        return PlanOutcome.CHANGES_REQUESTED
    return PlanOutcome.DECLINED
