"""The relay API's JSON bodies, shared by the relay server (bot) and RelayProvider."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Final

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .errors import ErrorCode
from .types import (
    AskUserQuestionAnswer,
    AskUserQuestionItem,
    AskUserQuestionRequest,
    NonEmptyStr,
    Text,
    WireModel,
    check_unique_ids,
)

IdempotencyKey = Annotated[Text, Field(min_length=1, max_length=200)]
MAX_WAIT_SECONDS = 60
# `expires_in`: at least a second, at most a day (a longer wait is a plan review's policy).
MAX_EXPIRES_IN_SECONDS = 86400
# 409: an idempotency key already made an ask with a different body.
IDEMPOTENCY_CONFLICT = "IDEMPOTENCY_CONFLICT"
NOT_UNIQUE = "NOT_UNIQUE"
# The validation errors (their pydantic types) that make NOT_UNIQUE, not INVALID_BODY.
UNIQUENESS_ERRORS: Final = frozenset({"duplicate_id", "duplicate_label"})

# The only place an error code becomes an HTTP status: the relay answers with it and its
# OpenAPI document lists each status's codes from it.
STATUS_OF_CODE: Final[dict[str, int]] = {
    ErrorCode.EMPTY_QUESTIONS: 400,
    # Well formed by the OpenAPI document, but its values contradict each other (a yes label
    # naming no option, a plan review without its plan): no schema can say so, so not 400.
    ErrorCode.BAD_INTENT: 422,
    ErrorCode.CALLER_NOT_LIVE: 400,
    ErrorCode.DELEGATED_CALLER: 400,
    ErrorCode.ASK_FAILED: 422,
    "INVALID_RANGE": 422,  # the audit export: each time well formed, but until <= since
    "INVALID_BODY": 400,
    # Well formed, but two questions share an id or two options a label: JSON Schema cannot
    # require a property to be unique across items, so the document states it in words.
    NOT_UNIQUE: 422,
    "UNAUTHORIZED": 401,
    "AGENT_NOT_ALLOWED": 403,
    "ROUTE_NOT_ALLOWED": 403,
    "ADMIN_ONLY": 403,  # the audit export: the admin token or an admin credential only
    "NOT_FOUND": 404,
    IDEMPOTENCY_CONFLICT: 409,
    "BODY_TOO_LARGE": 413,
    "UPGRADE_REQUIRED": 426,  # a plain GET of the watch route, a WebSocket
    "RATE_LIMITED": 429,
    "RELAY_DISABLED": 503,
    "STORE_UNAVAILABLE": 503,
}


class AgentRef(WireModel):
    """The agent asking, as the relay knows it (its session gets one Slack thread)."""

    id: NonEmptyStr
    name: Text | None = None
    requester: Text | None = Field(
        default=None,
        description="The Slack user id of the person this agent session acts for: where a "
        "policy keeps requesters from approving their own agent, their Allow is refused.",
        # Stated for the document; the relay checks it itself, with a message naming it.
        json_schema_extra={"pattern": "^[UW][A-Z0-9]{2,}$"},
    )


class ThreadRoute(WireModel):
    """Post in this channel (and thread) instead of the agent session's own thread."""

    channel: NonEmptyStr
    thread_ts: Text | None = None


class CreateAsk(WireModel):
    """`POST /v1/asks`."""

    # Not enforced here: an empty list is the seam's EMPTY_QUESTIONS, not a malformed body.
    questions: list[AskUserQuestionItem] = Field(
        json_schema_extra={"minItems": 1},
        description="At least one (else EMPTY_QUESTIONS); question ids unique.",
    )
    agent: AgentRef | None = None
    idempotency_key: IdempotencyKey | None = None
    thread: ThreadRoute | None = None
    expires_in: int | None = Field(
        default=None,
        ge=1,
        le=MAX_EXPIRES_IN_SECONDS,
        description="Seconds after which the relay withdraws the ask if nobody answered: the "
        "asking process will have stopped waiting by then (a hook killed at its timeout runs "
        "no handler to withdraw it). A later click is refused as withdrawn.",
    )

    @field_validator("questions")
    @classmethod
    def _ids_are_unique(cls, questions: list[AskUserQuestionItem]) -> list[AskUserQuestionItem]:
        check_unique_ids(questions)  # one rule, one place
        return questions

    def request(self) -> AskUserQuestionRequest:
        """The questions as a seam request."""
        return AskUserQuestionRequest(questions=self.questions)


class AskState(StrEnum):
    """Where an ask stands: the bot's store keeps it and the relay reports it (one enum)."""

    PENDING = "pending"
    ANSWERED = "answered"
    FAILED = "failed"


class AskDetail(StrEnum):
    """More about where a pending ask stands (optional; clients ignore values they do not know)."""

    # Stored, not in Slack yet: it waits its turn in its channel (Slack's posting rate).
    QUEUED = "queued"


class ResponseModel(BaseModel):
    """A relay response: clients ignore fields newer servers add."""

    model_config = ConfigDict(frozen=True, extra="ignore", defer_build=True)  # built on first use

    def to_wire(self) -> dict[str, object]:
        """The JSON-ready form, absent optionals left out."""
        return self.model_dump(mode="json", exclude_none=True)


class ErrorBody(ResponseModel):
    """A structured error: route on `code`, show `message`."""

    name: str
    code: str
    message: str


class FieldProblem(ResponseModel):
    """One invalid field of a request body."""

    field: str
    message: str


class Problem(ResponseModel):
    """The body of every 4xx/5xx the relay answers."""

    error: ErrorBody
    fields: list[FieldProblem] = Field(default_factory=list)


class AskView(ResponseModel):
    """An ask as the relay reports it."""

    id: str
    state: AskState
    answer: AskUserQuestionAnswer | None = None
    error: ErrorBody | None = None
    decided_by: str | None = None  # who answered, approved, declined or moved it to discussion
    detail: AskDetail | None = None  # pending only: "queued" until its message is in Slack
    policy: str | None = None  # the review policy that applied, e.g. "kinds.plan-review"


class AskSummary(AskView):
    """An ask in `GET /v1/asks`: also who asked, what, where it is in Slack, how long ago."""

    agent: AgentRef | None = None
    questions: list[str] = Field(default_factory=list)  # each question's text, in order
    permalink: str | None = None  # its first Slack message, once posted
    age_seconds: float | None = None  # since it was created


class AskList(ResponseModel):
    """`GET /v1/asks`."""

    asks: list[AskSummary]


WatchedId = Annotated[str, Field(min_length=1, max_length=255)]


class WatchAsks(WireModel):
    """A text frame to `GET /v1/asks/watch` (a WebSocket): wait on these asks, or stop."""

    watch: list[WatchedId] = Field(default_factory=list)
    unwatch: list[WatchedId] = Field(default_factory=list)


class Watched(ResponseModel):
    """A text frame from `GET /v1/asks/watch`: one watched ask's wait is over, either with
    the ask once settled (`ask`, what `GET /v1/asks/{id}` answers) or refused as that GET
    would refuse it (`error`: NOT_FOUND; RATE_LIMITED with `retry_after` seconds)."""

    id: str
    ask: AskView | None = None
    error: ErrorBody | None = None
    retry_after: int | None = None
