"""Review policies: who may answer an ask, how many approvals a plan needs, reminders, expiry.

A policy is chosen by what is asked (its *kind*) and by the agent, then by the channel; where
nothing names the case, `[default]` applies. In code, or in a TOML file:

    [default]                                 # where nothing below names the case
    approvals = 1

    [kinds.plan-review]                       # plan-review | tool-approval | question
    reviewers = ["U0123ABCD", "S0456EFGH"]    # users and user groups
    approvals = 2
    remind_after = "2h"                       # mention the reviewers after this long
    expire_after = "1d"                       # then end the review unapproved

    [agents."deploy-bot"]                     # by agent id (the relay's `agent.id`)
    reviewers = ["U0123ABCD"]

    [agents."deploy-bot".kinds.tool-approval]
    reviewers = ["S0456EFGH"]

    [channels.C0123456789]
    reviewers = ["U0789IJKL"]

First match wins, in this order: agent and kind, agent, kind, channel, default. The most
specific statement a team made about an ask wins; the kind ranks above the channel because
the channel is the one thing an asker names (`thread.channel`), so routing an ask elsewhere
must not lighten what its kind requires. A policy is whole: it does not inherit fields from
`[default]`. An agent's own table is a policy only if it sets a key of its own (one with only
`kinds` below it adds no agent-wide policy).

The kind is derived from the questions, never declared: a question with a `plan-review`
intent makes a plan review, else one with a `tool-approval` intent a tool approval, else it
is a question. `reviewers` decides who may answer every kind; `approvals` and the deadlines
count for plan reviews only, so `[kinds.tool-approval]` and `[kinds.question]` refuse them.

Each policy is named by its TOML path (`default`, `kinds.plan-review`,
`agents."deploy-bot".kinds.tool-approval`, `channels.C0123456789`). The policy is chosen once,
when the ask is created, and its name is stored on the record (`AskRecord.policy`);
`ReviewPolicies.of(record)` reads it back, and fails closed to `default` when that name is
no longer in the file.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping, Sequence
from functools import cached_property
from pathlib import Path
from typing import Annotated, Final, Literal, get_args

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    model_validator,
)

from bot.store import AskRecord
from provider import AskUserQuestionItem, PlanReviewIntent, ToolApprovalIntent

_DURATION = re.compile(r"^(\d+(?:\.\d+)?)\s*([smhd]?)$")
_UNIT_SECONDS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}
_ID = re.compile(r"^[UWS][A-Z0-9]{2,}$")
_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")

AskKind = Literal["plan-review", "tool-approval", "question"]
KINDS: Final[tuple[AskKind, ...]] = get_args(AskKind)
DEFAULT: Final = "default"


def _seconds(value: object) -> object:
    if isinstance(value, str):
        match = _DURATION.match(value.strip().lower())
        if match is None:
            raise ValueError(f"{value!r} is not a duration like 90s, 15m, 2h or 1d")
        return float(match.group(1)) * _UNIT_SECONDS[match.group(2)]
    return value


Duration = Annotated[float, BeforeValidator(_seconds), Field(gt=0)]


def kind_of(questions: Sequence[AskUserQuestionItem]) -> AskKind:
    """What an ask is, read from its questions' intents (the asker never names it)."""
    intents = [question.intent for question in questions]
    if any(isinstance(intent, PlanReviewIntent) for intent in intents):
        return "plan-review"
    if any(isinstance(intent, ToolApprovalIntent) for intent in intents):
        return "tool-approval"
    return "question"


class ReviewPolicy(BaseModel):
    """How the asks a policy applies to are answered."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    reviewers: tuple[str, ...] = ()  # empty: whoever may answer questions there
    approvals: int = Field(default=1, ge=1, le=20)
    remind_after: Duration | None = None
    expire_after: Duration | None = None

    @model_validator(mode="after")
    def _check(self) -> ReviewPolicy:
        bad = [r for r in self.reviewers if not _ID.match(r)]
        if bad:
            raise ValueError(f"reviewers must be user (U…/W…) or group (S…) ids, not {bad}")
        if (
            self.remind_after is not None
            and self.expire_after is not None
            and self.remind_after >= self.expire_after
        ):
            raise ValueError("remind_after must come before expire_after")
        return self

    @property
    def plan_only(self) -> list[str]:
        """The keys set here that only a plan review counts."""
        return [
            key
            for key in ("approvals", "remind_after", "expire_after")
            if key in self.model_fields_set
        ]


def _check_kinds(kinds: dict[str, ReviewPolicy]) -> dict[str, ReviewPolicy]:
    """Policies by kind, as a file may give them: known kinds, each with what it counts."""
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        raise ValueError(f"unknown kind {unknown[0]!r}: the kinds are {', '.join(KINDS)}")
    for kind, policy in kinds.items():
        if kind != "plan-review" and policy.plan_only:
            # A setting nothing would enforce must not read as a promise.
            raise ValueError(
                f"{', '.join(policy.plan_only)} count for plan reviews only, not for {kind}"
            )
    return kinds


ByKind = Annotated[dict[str, ReviewPolicy], AfterValidator(_check_kinds)]


class AgentPolicy(ReviewPolicy):
    """An agent's own policy (the keys its table sets) and its policies by kind."""

    kinds: ByKind = Field(default_factory=dict)

    @property
    def own(self) -> ReviewPolicy | None:
        """The agent-wide policy, or None when the table sets nothing but `kinds`: an empty
        policy would let anyone answer, so it must be written, not implied."""
        if not self.model_fields_set - {"kinds"}:
            return None
        return ReviewPolicy.model_validate(self.model_dump(exclude={"kinds"}, exclude_unset=True))


def _key(name: str) -> str:
    """`name` as a TOML key: bare when it can be, else quoted."""
    return name if _BARE_KEY.match(name) else '"' + name.replace('"', '\\"') + '"'


class ReviewPolicies(BaseModel):
    """The default policy, and policies by agent, kind and channel; each named by its path."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    default: ReviewPolicy = ReviewPolicy()
    kinds: ByKind = Field(default_factory=dict)
    agents: dict[str, AgentPolicy] = Field(default_factory=dict)
    channels: dict[str, ReviewPolicy] = Field(default_factory=dict)

    @cached_property
    def _named(self) -> dict[str, ReviewPolicy]:
        """Every policy by its name, built once, so a stored name is looked up, not parsed."""
        named = {DEFAULT: self.default}
        named.update({f"kinds.{kind}": policy for kind, policy in self.kinds.items()})
        named.update({f"channels.{_key(c)}": policy for c, policy in self.channels.items()})
        for agent, table in self.agents.items():
            own = table.own
            if own is not None:
                named[f"agents.{_key(agent)}"] = own
            for kind, policy in table.kinds.items():
                named[f"agents.{_key(agent)}.kinds.{kind}"] = policy
        return named

    def model_copy(
        self, *, update: Mapping[str, object] | None = None, deep: bool = False
    ) -> ReviewPolicies:
        """A copy, its names built again (a cached `_named` would name the old policies)."""
        copy = super().model_copy(update=update, deep=deep)
        copy.__dict__.pop("_named", None)
        return copy

    def select(self, kind: AskKind, agent_id: str | None, channel: str | None) -> str:
        """The name of the policy for an ask of `kind` by `agent_id` in `channel`: agent and
        kind, agent, kind, channel, else default."""
        candidates = []
        if agent_id is not None:
            candidates += [f"agents.{_key(agent_id)}.kinds.{kind}", f"agents.{_key(agent_id)}"]
        candidates.append(f"kinds.{kind}")
        if channel is not None:
            candidates.append(f"channels.{_key(channel)}")
        return next((name for name in candidates if name in self._named), DEFAULT)

    def named(self, name: str | None) -> ReviewPolicy:
        """The policy called `name`; `default` when there is none by that name (fail closed:
        a policy removed from the file after an ask chose it)."""
        return self._named.get(name or DEFAULT, self.default)

    def name_of(self, record: AskRecord) -> str:
        """The policy name `record` chose when it was created; chosen again from the record
        for one stored before asks kept it."""
        if record.policy is not None:
            return record.policy if record.policy in self._named else DEFAULT
        return self.select(kind_of(record.questions), record.agent_id, record.channel)

    def of(self, record: AskRecord) -> ReviewPolicy:
        """The policy that applies to `record` (see `name_of`)."""
        return self.named(self.name_of(record))


class PolicyError(Exception):
    """The policy file cannot be used; the message says where and why."""


def load_policies(path: Path) -> ReviewPolicies:
    """Read a TOML policy file."""
    try:
        data = tomllib.loads(path.read_text())
    except OSError as error:
        raise PolicyError(f"cannot read review policy {path}: {error.strerror}") from error
    except tomllib.TOMLDecodeError as error:
        raise PolicyError(f"review policy {path} is not valid TOML: {error}") from error
    try:
        return ReviewPolicies.model_validate(data)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in error.errors()
        )
        raise PolicyError(f"review policy {path}: {problems}") from error
