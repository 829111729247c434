"""The vocabulary of storage: an ask as a record, its events, threads, inbox rows, leases.

Frozen, exact pydantic models that import no behaviour: what a store keeps, and what every
layer above it reads.
"""

from __future__ import annotations

import functools
from collections.abc import Collection
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from bot.outcomes import AskError, AskState, EventKind, Verdict
from provider import (
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionOption,
    AskUserQuestionRequest,
    PlanReviewIntent,
)

__all__ = [
    "Approval",
    "AskError",
    "AskEvent",
    "AskRecord",
    "AskState",
    "Credential",
    "CredentialLimits",
    "Delegation",
    "EventKind",
    "Grant",
    "GrantScope",
    "InboxItem",
    "InboxKind",
    "Lease",
    "PartAnswer",
    "StoredRule",
    "StoredRuleScope",
    "ThreadKey",
    "ThreadRef",
    "Verdict",
    "compact_questions",
    "of_agents",
]

ThreadKey = tuple[str, str]  # (channel, thread ts)


class Record(BaseModel):
    """Base of stored models: frozen, exact about fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class ThreadRef(Record):
    """A Slack conversation, and the thread in it (None: post at the top level)."""

    channel: str
    thread_ts: str | None = None


class PartAnswer(Record):
    """One part of a split ask, answered."""

    by: str
    at: float
    answers: list[AskUserQuestionAnswerItem]


class Approval(Record):
    """One reviewer's approval of a plan or a tool."""

    by: str
    at: float
    # Whom `by` approved for, as their out-of-office delegate (bot/delegation.py): each of
    # them counts as having approved, so one reviewer never counts twice.
    acting_for: tuple[str, ...] = ()


class AskRecord(Record):
    """One ask: the request, where it is shown, and how it ended."""

    id: str
    questions: list[AskUserQuestionItem]
    created_at: float
    agent_id: str | None = None
    agent_name: str | None = None
    # The Slack user id of the person the agent session acts for (`AgentRef.requester`, or
    # the relay credential's): policies may refuse their approval. None: nobody named.
    requester: str | None = None
    idempotency_key: str | None = None
    channel: str | None = None
    thread_ts: str | None = None
    message_ts: list[str] = Field(default_factory=list)  # one per part, once posted
    state: AskState = AskState.PENDING
    verdict: Verdict | None = None
    answer: AskUserQuestionAnswer | None = None
    error: AskError | None = None
    decided_by: str | None = None
    decided_at: float | None = None
    reason: str | None = None  # in people's words, why it ended (withdrawn, failed…)
    parts_done: dict[int, PartAnswer] = Field(default_factory=dict)
    approvals: list[Approval] = Field(default_factory=list)  # reviews, in order
    revision: int = 1  # plan reviews: 2 and up revise a declined plan of the same agent
    revises: str | None = None  # the ask id of that declined plan
    reminded_at: float | None = None
    # When its SLA ladder escalated it (`escalate_to` may answer from then on); None: not yet.
    escalated_at: float | None = None
    # Who holds the ask now, and since when (bot/asks/claim_lapses.py): one person of the
    # pool claimed it (or was handed it), and only they may answer until it is released,
    # lapses or is handed on. None: it is with the pool.
    holder: str | None = None
    claimed_at: float | None = None
    # When the asker stops waiting (the relay's `expires_in`): the ask is withdrawn then.
    expires_at: float | None = None
    # The review policy chosen when the ask was created (`ReviewPolicies.select`), by name;
    # None: stored before asks kept it, so it is chosen again from the record.
    policy: str | None = None
    shown: bool = False  # the decided message shows the decision (controls gone)
    # Bumped by each progress save (`AskStore.advance`): a copy read before another
    # replica's save is stale, and its save is refused instead of overwriting that one.
    version: int = 0

    def evolve(self, **changes: object) -> AskRecord:
        """A copy with `changes`, not validated (like `model_copy`). Every evolved record
        shares one set of "fields set" (nothing here reads it) and one table of field names
        (`_fields_of`): thousands of pending asks carry neither each (0.7 KiB and 0.5 KiB
        less per ask than `model_copy`; `model_copy` of an evolved record keeps the table)."""
        values = {**self.__dict__, **changes}
        evolved = AskRecord.model_construct(_EVERY_FIELD, **values)
        object.__setattr__(evolved, "__dict__", _fields_of(values))
        return evolved

    @property
    def request(self) -> AskUserQuestionRequest:
        """The questions as a seam request (no agent or signal: those are runtime-only)."""
        return AskUserQuestionRequest(questions=self.questions)

    @property
    def settled(self) -> bool:
        """Whether the ask has ended, one way or another."""
        return self.state is not AskState.PENDING

    @property
    def queued(self) -> bool:
        """Pending and not in Slack yet: it waits its turn in its channel (or a retry)."""
        return not self.settled and not self.message_ts

    @property
    def ended_as(self) -> Verdict | None:
        """How the ask ended (None while pending); a settled record without a verdict was
        written before verdicts were kept, and is read by its state."""
        if not self.settled:
            return None
        if self.verdict is not None:
            return self.verdict
        return Verdict.ANSWERED if self.state is AskState.ANSWERED else Verdict.FAILED

    @property
    def is_plan_review(self) -> bool:
        """A lone question with a plan-review intent."""
        return len(self.questions) == 1 and isinstance(self.questions[0].intent, PlanReviewIntent)

    @property
    def approved(self) -> bool:
        """Whether a plan review ended with its approving label chosen."""
        intent = self.questions[0].intent if self.is_plan_review else None
        if self.answer is None or intent is None:
            return False
        return self.answer.answers[0].selected == [intent.label]


_EVERY_FIELD = set(AskRecord.model_fields)


class _RecordFields:
    """Holds an evolved record's values as attributes, in field order, so that its
    `__dict__` is a split dict (PEP 412): the field names live in one key table shared by
    every such dict, which holds only its values (an `AskRecord`'s own `__dict__` is a dict
    of 29 keys, 832 bytes; this one is 296). CPython shares a class's keys up to 30 names;
    past that the dict is an ordinary one again, only bigger (tests/bot/store/test_memory.py
    says so)."""


def _fields_of(values: dict[str, object]) -> dict[str, object]:
    """`values` (every field of `AskRecord`) as a dict that shares its keys (`_RecordFields`)."""
    holder = _RecordFields()
    for name in AskRecord.model_fields:  # always this order: one key table for all
        setattr(holder, name, values[name])
    return holder.__dict__


_QUESTION_FIELDS = set(AskUserQuestionItem.model_fields)
_OPTION_FIELDS = set(AskUserQuestionOption.model_fields)


def compact_questions(questions: list[AskUserQuestionItem]) -> list[AskUserQuestionItem]:
    """The same (validated) questions, rebuilt so that every question and option shares
    its class's one "fields set" (nothing here reads it): a pending ask's questions then
    carry no set per model (0.2 KiB each). Equal options are one shared (frozen) option
    (`shared_option`)."""
    return [
        AskUserQuestionItem.model_construct(
            _QUESTION_FIELDS,
            **{
                **question.__dict__,
                "options": None
                if question.options is None
                else [shared_option(option) for option in question.options],
            },
        )
        for question in questions
    ]


@functools.lru_cache(maxsize=1024)  # at most ~0.5 MiB, whatever labels agents send
def shared_option(option: AskUserQuestionOption) -> AskUserQuestionOption:
    """One frozen option for all options equal to `option` (frozen models hash by their
    fields), among the most recent ones: asks offer the same few ("Yes", "No", "Allow",
    "Deny") again and again, and each copy would be 0.19 KiB per pending ask."""
    return AskUserQuestionOption.model_construct(_OPTION_FIELDS, **option.__dict__)


class AskEvent(Record):
    """One line of an ask's history."""

    ask_id: str
    at: float
    kind: EventKind
    actor: str | None = None
    detail: str = ""


class InboxKind(StrEnum):
    """The Slack interactions that can change an ask, kept in the inbox until handled."""

    BLOCK_ACTIONS = "block_actions"
    VIEW_SUBMISSION = "view_submission"
    VIEW_CLOSED = "view_closed"
    MESSAGE = "message"
    AGENT_SESSION_STOPPED = "agent_session_stopped"  # Stop pressed on an agent's session


class InboxItem(Record):
    """One acked Slack interaction, stored before its ack and deleted once handled.

    `body` is the request body as Slack signed it (Socket Mode: the envelope's payload as
    JSON), so a restart can hand it to the same handler again."""

    id: str
    received_at: float
    kind: InboxKind
    body: str


class Lease(Record):
    """A lease granted (`AskStore.lease`): `lapsed` names the owner whose lease ran out
    while held (it crashed, or was too slow), so its work may be half done."""

    lapsed: str | None = None


def of_agents(agent_id: str | None, agents: Collection[str]) -> bool:
    """Whether `agent_id` is one of `agents` or a session under one (`ci/<session>` is
    under `ci`): a credential for `ci` covers every session a hook or MCP server names so."""
    if agent_id is None:
        return False
    return agent_id in agents or any(agent_id.startswith(f"{agent}/") for agent in agents)


class CredentialLimits(Record):
    """What one credential may hold at once and how fast it may ask (None: no cap).

    The defaults are a credential's unless its creator chose others; the admin token has
    none of these caps (only the service's own cap on held waits)."""

    max_pending: int | None = Field(default=100, ge=1)  # pending asks of its agents
    creates_per_minute: int | None = Field(default=60, ge=1)  # new asks, per replica
    max_waits: int | None = Field(default=20, ge=1)  # held `?wait=` polls, per replica


class Credential(Record):
    """An agent credential of the relay: who may act as which agents, and where they may ask.

    Only the sha256 of its secret is kept; the token (`sqc_<id>_<secret>`) is shown once,
    when it is created. `channels` empty: the configured channels. `admin`: every ask,
    every agent id, like `SLACK_QUESTIONS_RELAY_TOKEN`."""

    id: str
    secret_hash: str
    agents: tuple[str, ...] = ()
    channels: tuple[str, ...] = ()
    limits: CredentialLimits = CredentialLimits()
    label: str = ""
    admin: bool = False
    # The Slack user id every ask made with it is on behalf of: an ask naming another
    # requester is refused, one naming none gets this one.
    requester: str | None = None
    created_at: float
    revoked_at: float | None = None


GrantScope = Literal["session", "agent", "everyone"]


class Grant(Record):
    """A standing allow of a tool call, made by a reviewer: the tool, its argument patterns
    (`bot.review.pattern_matches`), and whose calls it covers (`scope`: the agent session
    or agent named by `subject`, or everyone). Checked when a tool approval is created;
    expired (`expires_at`) or revoked, it covers nothing and the call is asked again."""

    id: str
    tool: str
    args: dict[str, str] = Field(default_factory=dict)  # input field -> pattern
    scope: GrantScope
    subject: str | None = None  # the session (scope session) or agent id (scope agent)
    granted_by: str
    created_at: float
    expires_at: float | None = None
    revoked_at: float | None = None
    revoked_by: str | None = None

    def active(self, now: float) -> bool:
        """Neither revoked nor expired at `now`."""
        return self.revoked_at is None and (self.expires_at is None or now < self.expires_at)


class FeedbackVerdict(StrEnum):
    """A person's answer to "Was this the right call?" on a decided ask."""

    RIGHT = "right"  # 👍
    WRONG = "wrong"  # 👎


class Feedback(Record):
    """One person's review of one decided ask: their verdict and note, the latest of each
    (a second click changes the verdict; a note replaces their earlier note), and when they
    last gave either. None: not given (yet)."""

    ask_id: str
    person: str
    verdict: FeedbackVerdict | None = None
    note: str | None = None
    at: float

    def merged(self, newer: Feedback) -> Feedback:
        """This feedback with `newer`'s verdict and note where `newer` gives them."""
        return self.model_copy(
            update={
                "verdict": newer.verdict or self.verdict,
                "note": newer.note if newer.note is not None else self.note,
                "at": newer.at,
            }
        )


StoredRuleScope = Literal["agent", "everyone"]


class StoredRule(Record):
    """A rule a reviewer saved with "Always allow": from then on it allows, before anyone is
    asked, the calls of `tool` whose input matches every pattern in `args`
    (`bot.review.pattern_matches`), by the agent `subject` names (scope agent) or by any agent.
    Applied after the policy file's deny rules, which always win (`bot/asks/automatic.py`);
    its name is unique among the stored rules and the file's."""

    name: str
    tool: str
    args: dict[str, str] = Field(default_factory=dict)  # input field -> pattern
    scope: StoredRuleScope
    subject: str | None = None  # the agent id (scope agent)
    created_by: str
    created_at: float
    ask_id: str | None = None  # the ask it was proposed from
    expires_at: float | None = None
    revoked_at: float | None = None
    revoked_by: str | None = None

    def active(self, now: float) -> bool:
        """Neither revoked nor expired at `now`."""
        return self.revoked_at is None and (self.expires_at is None or now < self.expires_at)


class Delegation(Record):
    """A person's out-of-office delegate: from `starts_at` until `until`, asks that name
    `delegator` also go to `delegate` (bot/delegation.py resolves chains). One per delegator:
    setting another replaces it; `delegate off` ends it early (`ended_at`), and the record
    is kept. `time_zone` is whose day a date ended in ("UTC" when Slack did not say)."""

    delegator: str
    delegate: str
    starts_at: float
    until: float
    time_zone: str = "UTC"
    set_by: str
    ended_at: float | None = None

    def active(self, now: float) -> bool:
        """Begun, not yet over and not turned off at `now`."""
        ends = self.until if self.ended_at is None else min(self.until, self.ended_at)
        return self.starts_at <= now < ends
