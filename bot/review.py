"""Review policies: who may answer an ask, how many approvals a review needs, who may not
approve their own agent, reminders, expiry; and rules for tool approvals by tool and arguments.

A policy is chosen by what is asked (its *kind*) and by the agent, then by the channel; where
nothing names the case, `[default]` applies. A tool approval is first matched against the
`[[tools]]` rules. In code, or in a TOML file:

    announce_automatic = true                 # a line in the thread per rule/grant decision

    [default]                                 # where nothing below names the case
    approvals = 1

    [kinds.plan-review]                       # plan-review | tool-approval | question
    reviewers = ["U0123ABCD", "S0456EFGH"]    # users and user groups
    approvals = 2
    remind_after = "2h"                       # mention the reviewers after this long
    escalate_after = "4h"                     # then ask a backup group too…
    escalate_to = ["S0789BACKUP"]
    expire_after = "1d"                       # then end it: nobody answered (never approved)
    working_hours = { time_zone = "Europe/Paris", start = "09:00", end = "18:00" }  # mon-fri
    claim_lapse = "30m"                       # "Claim" on asks sent to a pool; lapses after

    [agents."deploy-bot"]                     # by agent id (the relay's `agent.id`)
    reviewers = ["U0123ABCD"]

    [agents."deploy-bot".kinds.tool-approval]
    reviewers = ["S0456EFGH"]

    [channels.C0123456789]
    reviewers = ["U0789IJKL"]

    [[tools]]                                 # tool approvals, by tool and arguments
    tool = "Bash"                             # a tool name or a glob: "mcp__deploy__*"
    args = { command = "git push*" }          # every field named must match its glob
    reviewers = ["S0456EFGH"]
    approvals = 2                             # two different reviewers allow it
    confirm = true                            # a confirm dialog on Allow (the default)
    requester_may_approve = false             # the default: not the agent's own person

    [[tools]]
    tool = "mcp__prod__*"
    approve_in_slack = false                  # never approved from chat…
    where = "in the change board, https://cab.example/"   # "Approve it …": where instead

    [[tools]]
    tool = "Edit"
    args = { file_path = "docs/*" }
    grant_ttl = "30m"                         # "Allow for this session" lasts this long

    [[tools]]
    name = "git-read-only"                    # the rule's id, shown where it decides
    tool = "Bash"
    args = { command = "re:git (status|log|diff)( .*)?" }   # `re:`: a regular expression
    decision = "allow"                        # allow | ask (the default) | deny

    [[tools]]
    name = "no-force-push"
    tool = "Bash"
    args = { command = "*git push*--force*" }
    decision = "deny"                         # wins over every other rule and approval
    reason = "force-pushing is not allowed from an agent"

A `[[tools]]` rule matches a tool approval when its `tool` glob matches the tool's name and
each of its `args` globs matches that field of the tool's input: the field's string value,
or the canonical JSON (sorted keys, no spaces) of any other value; a field the input lacks
does not match. A glob (`fnmatch`, case-sensitive) matches the whole value: `git push*`
does not match `cd x && git push`, `*git push*` does; a pattern `re:<regex>` is a regular
expression that must match the whole value (`re.fullmatch`). A rule's `decision` is `ask`
(the default: people are asked, under the rule's reviewers and approvals), `allow` or `deny`
(decided before anyone is pinged; `reason` is what a deny tells the agent); `name` is the
rule's id as shown (default `tools.<n>`), and `always_allow = false` keeps "Always allow"
off the card for what it matches (and a rule saved with it before allows nothing it matches). A matching deny rule wins wherever it stands; otherwise
the first matching rule in file order wins, and ranks above every other policy for a tool approval: it names the tool, the most
specific statement a team made about it. The rules are named `tools.0`, `tools.1`… in file
order, so inserting a rule renames those below it for asks created afterwards (an open ask
keeps the name it stored; see below).

Every call a rule or a grant decides leaves one context line in its agent session's thread
("✅ auto-allowed by rule `git-read-only`: Bash `git status`", `bot/asks/announcements.py`),
so the team sees what ran; the file's top-level `announce_automatic = false` turns the lines
off (the decisions are still stored, logged and in the team view).

Otherwise the first match wins, in this order: agent and kind, agent, kind, channel, default.
The kind ranks above the channel because the channel is the one thing an asker names
(`thread.channel`), so routing an ask elsewhere must not lighten what its kind requires. A
policy is whole: it does not inherit fields from `[default]`. An agent's own table is a
policy only if it sets a key of its own (one with only `kinds` below it adds no agent-wide
policy).

The kind is derived from the questions, never declared: a question with a `plan-review`
intent makes a plan review, else one with a `tool-approval` intent a tool approval, else it
is a question. What each key counts for:

- `reviewers`: who may answer, every kind;
- `approvals` (quorum: that many different reviewers), `confirm` and `requester_may_approve`
  (default false: the person an agent session acts for, its *requester*, may not approve
  it; their decline counts): plan reviews and tool approvals;
- `remind_after`, `escalate_after` with `escalate_to`, `expire_after` (the SLA ladder, in
  that order, each counted from the ask's creation; in working time when `working_hours` is
  set): every kind. Escalation widens who may answer to `escalate_to`; it never approves;
- `claim_lapse`: every kind. An ask sent to a pool (a user group, or several people) offers
  "Claim" (and "Reassign…"); the holder alone may answer until they release it, hand it on,
  or the claim lapses after this long. Unset: no claims. Not on a review that needs more
  than one approval (only its holder could approve: the quorum could never be met);
- `approve_in_slack` (default true; false: no approval from chat counts, a decline does) and
  `where` (read after "Approve it", e.g. "in the deploy console"): tool approvals, so only in
  `[[tools]]` and `kinds.tool-approval` tables;
- `grant_ttl` (a duration, as the SLA steps): how long a grant made with "Allow for this
  session" lasts, tool approvals only. The ask's own policy's, else `[default]`'s (the one
  key `[default]` lends to other policies: a team's ceiling on every grant), else 8 hours.

A table of one kind refuses a key that does not count for it: a setting nothing would enforce
must not read as a promise.

Each policy is named by its TOML path (`default`, `kinds.plan-review`,
`agents."deploy-bot".kinds.tool-approval`, `channels.C0123456789`, `tools.0`). The policy is
chosen once, when the ask is created, and its name is stored on the record
(`AskRecord.policy`); `ReviewPolicies.of(record)` reads it back, and fails closed to
`default` when that name is no longer in the file.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from functools import cached_property, lru_cache
from itertools import pairwise
from pathlib import Path
from typing import Annotated, Final, Literal, get_args

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    JsonValue,
    StrictBool,
    StrictStr,
    ValidationError,
    model_validator,
)

from bot.sla import Due, WorkingHours, ladder
from bot.store import AskRecord
from provider import AskUserQuestionItem, PlanReviewIntent, ToolApprovalIntent

_DURATION = re.compile(r"^(\d+(?:\.\d+)?)\s*([smhd]?)$")
_UNIT_SECONDS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}
_ID = re.compile(r"^[UWS][A-Z0-9]{2,}$")
_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
# A requester is one person, so a user id (U… or W…), never a group: the hook's rule too.
REQUESTER_ID: Final = re.compile(r"^[UW][A-Z0-9]{2,}$")

AskKind = Literal["plan-review", "tool-approval", "question"]
KINDS: Final[tuple[AskKind, ...]] = get_args(AskKind)
REVIEWS: Final[frozenset[AskKind]] = frozenset({"plan-review", "tool-approval"})
DEFAULT: Final = "default"
# How long a grant made with "Allow for this session" lasts where no policy sets `grant_ttl`.
DEFAULT_GRANT_TTL: Final = 8 * 3600.0
TOOLS: Final = "tools"
WHERE_MAX: Final = 500

# The kinds each key counts for (`reviewers`: every kind).
_COUNTS_FOR: Final[dict[str, frozenset[AskKind]]] = {
    "approvals": REVIEWS,
    "confirm": REVIEWS,
    "requester_may_approve": REVIEWS,
    "approve_in_slack": frozenset({"tool-approval"}),
    "where": frozenset({"tool-approval"}),
    "grant_ttl": frozenset({"tool-approval"}),
}
_KIND_WORDS: Final[dict[frozenset[AskKind], str]] = {
    REVIEWS: "plan reviews and tool approvals",
    frozenset({"plan-review"}): "plan reviews",
    frozenset({"tool-approval"}): "tool approvals",
}


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


def tools_of(questions: Sequence[AskUserQuestionItem]) -> list[ToolApprovalIntent]:
    """The tool-approval intents of an ask's questions, in order."""
    return [q.intent for q in questions if isinstance(q.intent, ToolApprovalIntent)]


class ReviewPolicy(BaseModel):
    """How the asks a policy applies to are answered."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    reviewers: tuple[str, ...] = ()  # empty: whoever may answer questions there
    approvals: int = Field(default=1, ge=1, le=20)
    confirm: StrictBool = True
    requester_may_approve: StrictBool = False
    approve_in_slack: StrictBool = True
    where: StrictStr | None = Field(default=None, min_length=1, max_length=WHERE_MAX)
    # The SLA ladder, every kind: each step counted from the ask's creation, in working time
    # when `working_hours` is set (bot/asks/escalation.py runs it).
    remind_after: Duration | None = None
    escalate_after: Duration | None = None
    escalate_to: tuple[str, ...] = ()  # users and user groups asked too once escalated
    expire_after: Duration | None = None
    working_hours: WorkingHours | None = None
    # Tool approvals: how long a grant made on their card lasts (None: `[default]`'s, else 8 h).
    grant_ttl: Duration | None = None
    # Claims, every kind: an ask sent to a pool offers "Claim", and a claim lapses after
    # this long (bot/asks/claim_lapses.py). None: no claims, so none can hold an ask forever.
    claim_lapse: Duration | None = None

    @model_validator(mode="after")
    def _check(self) -> ReviewPolicy:
        bad = [r for r in self.reviewers if not _ID.match(r)]
        if bad:
            raise ValueError(f"reviewers must be user (U…/W…) or group (S…) ids, not {bad}")
        _check_ladder(self)
        if self.claim_lapse is not None and self.approvals > 1:
            # A claimed ask is its holder's alone: a second approver could never approve.
            raise ValueError(
                f"claim_lapse: a claimed review is approved by its holder alone, so it could "
                f"never collect {self.approvals} approvals; drop one of the two"
            )
        if self.where is not None and self.approve_in_slack:
            raise ValueError(
                "where says where to approve instead of Slack: set approve_in_slack = false"
            )
        return self

    def ladder(self, created_at: float) -> list[Due]:
        """This policy's SLA steps for an ask created at `created_at`, in order."""
        return ladder(
            created_at,
            remind_after=self.remind_after,
            escalate_after=self.escalate_after,
            expire_after=self.expire_after,
            hours=self.working_hours,
        )

    def not_counted_for(self, kind: AskKind) -> list[str]:
        """The keys set here that nothing enforces for an ask of `kind`."""
        return [
            key
            for key, kinds in _COUNTS_FOR.items()
            if key in self.model_fields_set and kind not in kinds
        ]


def _check_ladder(policy: ReviewPolicy) -> None:
    """The SLA steps set come in order, and an escalation names whom it asks."""
    bad = [r for r in policy.escalate_to if not _ID.match(r)]
    if bad:
        raise ValueError(f"escalate_to must be user (U…/W…) or group (S…) ids, not {bad}")
    if (policy.escalate_after is None) != (not policy.escalate_to):
        raise ValueError("escalate_after and escalate_to go together: when, and to whom")
    steps = [
        (name, after)
        for name, after in (
            ("remind_after", policy.remind_after),
            ("escalate_after", policy.escalate_after),
            ("expire_after", policy.expire_after),
        )
        if after is not None
    ]
    for (earlier, first), (later, second) in pairwise(steps):
        if first >= second:
            raise ValueError(f"{earlier} must come before {later}")
    if policy.working_hours is not None and not steps:
        raise ValueError(
            "working_hours move the SLA steps: set remind_after, escalate_after or expire_after"
        )


def _check_kinds(kinds: dict[str, ReviewPolicy]) -> dict[str, ReviewPolicy]:
    """Policies by kind, as a file may give them: known kinds, each with what it counts."""
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        raise ValueError(f"unknown kind {unknown[0]!r}: the kinds are {', '.join(KINDS)}")
    for kind, policy in kinds.items():
        unused = policy.not_counted_for(kind)  # type: ignore[arg-type]  # checked above
        if unused:
            # A setting nothing would enforce must not read as a promise.
            what = _KIND_WORDS[_COUNTS_FOR[unused[0]]]
            raise ValueError(f"{', '.join(unused)} count for {what} only, not for {kind}")
    return kinds


ByKind = Annotated[dict[str, ReviewPolicy], AfterValidator(_check_kinds)]


Decision = Literal["allow", "ask", "deny"]
REGEX_PREFIX: Final = "re:"
RULE_NAME: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
REASON_MAX: Final = 500


def _check_pattern(pattern: str) -> str:
    """A glob, or `re:` and a regular expression that compiles (refused at load, not at
    the first call it would have had to match)."""
    if pattern.startswith(REGEX_PREFIX):
        try:
            re.compile(pattern[len(REGEX_PREFIX) :])
        except re.error as error:
            raise ValueError(f"{pattern!r} is not a regular expression: {error}") from error
    return pattern


ArgPattern = Annotated[StrictStr, AfterValidator(_check_pattern)]


def pattern_matches(pattern: str, value: str) -> bool:
    """Whether `value` matches an argument pattern: `re:<regex>` must match the whole value
    (`re.fullmatch`, like a glob); anything else is an `fnmatch` glob (case-sensitive)."""
    if pattern.startswith(REGEX_PREFIX):
        return _regex(pattern[len(REGEX_PREFIX) :]).fullmatch(value) is not None
    return fnmatchcase(value, pattern)


@lru_cache(maxsize=4096)
def _regex(body: str) -> re.Pattern[str]:
    # `re`'s own cache holds 512 patterns: past that many saved rules, every tool approval
    # compiled them all again (1,000 rules, none matching: 166 ms to decide; 2.5 ms cached).
    return re.compile(body)


class ToolRule(ReviewPolicy):
    """A policy for the tool approvals whose tool and arguments match its patterns, and
    what it decides before anyone is asked: `allow`, `ask` (the default) or `deny`."""

    tool: StrictStr = Field(min_length=1)  # a tool name or an fnmatch glob
    args: dict[str, ArgPattern] = Field(default_factory=dict)  # input field -> pattern
    decision: Decision = "ask"
    # The rule's id, shown on the card, in the log and to the agent; default `tools.<n>`.
    name: StrictStr | None = Field(default=None, pattern=RULE_NAME.pattern)
    reason: StrictStr | None = Field(default=None, min_length=1, max_length=REASON_MAX)
    # False: "Always allow" is not offered for what this rule matches (a high-risk tool).
    always_allow: StrictBool = True

    @model_validator(mode="after")
    def _tool_keys(self) -> ToolRule:
        unused = self.not_counted_for("tool-approval")
        if unused:
            raise ValueError(f"{', '.join(unused)} count for plan reviews only, not for tools")
        if self.reason is not None and self.decision != "deny":
            raise ValueError("reason is what a deny rule tells the agent: set decision = 'deny'")
        if self.grant_ttl is not None and self.decision != "ask":
            # Only an asking rule shows a card, where a grant is made.
            raise ValueError(
                "grant_ttl is how long a grant made on a card lasts: this rule asks nobody"
            )
        return self

    def matches(self, intent: ToolApprovalIntent) -> bool:
        """Whether this rule is about `intent`'s tool, run with these arguments."""
        if intent.tool is None or not fnmatchcase(intent.tool, self.tool):
            return False
        return args_match(self.args, intent.input or {})


def args_match(patterns: Mapping[str, str], given: Mapping[str, JsonValue]) -> bool:
    """Whether every field `patterns` names is in `given` and matches its pattern (a rule's
    `args`, or a grant's)."""
    return all(
        field in given and pattern_matches(pattern, _arg_text(given[field]))
        for field, pattern in patterns.items()
    )


def _arg_text(value: JsonValue) -> str:
    """What an argument glob is matched against: a string as it is, anything else as
    canonical JSON (so `timeout = "6*"` and `sandbox = "false"` can be written)."""
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def agent_root(agent_id: str) -> str:
    """The agent an agent id is a session of: `ci` for `ci/<session>` (a credential's agent
    and its sessions), the id itself when it names no sessions."""
    return agent_id.split("/", 1)[0]


def of_agent(agent_id: str | None, root: str | None) -> bool:
    """Whether `agent_id` is the agent `root` or one of its sessions (`root/<session>`)."""
    if agent_id is None or root is None:
        return False
    return agent_id == root or agent_id.startswith(f"{root}/")


def rule_name(rule: ToolRule, index: int) -> str:
    """The name a rule is shown by: its own `name`, else its place, `tools.<index>`."""
    return rule.name or f"{TOOLS}.{index}"


@dataclass(frozen=True)
class RuleDecision:
    """What a `[[tools]]` rule decided of a tool approval, and which rule it was."""

    policy: str  # the policy name stored on the ask: `tools.<index>`
    name: str  # the rule's name as shown (its `name`, else the policy name)
    decision: Decision
    reason: str | None  # a deny rule's words for the agent
    rule: ToolRule

    @property
    def automatic(self) -> bool:
        """Whether the rule decides on its own: nobody is asked."""
        return self.decision != "ask"


@dataclass(frozen=True)
class GrantReach:
    """A policy a call covered by a grant may be asked under, where that grant decides it:
    who may approve such a call there is who may see and revoke the grant."""

    name: str
    policy: ReviewPolicy
    channel: str | None  # the channel of a `channels.<id>` policy; None: the asks' channel


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


def _for_every_kind(policy: ReviewPolicy) -> ReviewPolicy:
    """A policy every kind may choose (default, channel, an agent's own) sets only keys
    that count for more than one kind: `approve_in_slack = false` there would also stop
    every plan from being approved."""
    unused = [key for key in ("approve_in_slack", "where") if key in policy.model_fields_set]
    if unused:
        raise ValueError(
            f"{', '.join(unused)} count for tool approvals only: set them in [[tools]] "
            "or [kinds.tool-approval]"
        )
    return policy


AnyKind = Annotated[ReviewPolicy, AfterValidator(_for_every_kind)]
AnyKindAgent = Annotated[AgentPolicy, AfterValidator(_for_every_kind)]


class ReviewPolicies(BaseModel):
    """The default policy, the tool rules, and policies by agent, kind and channel; each
    named by its path."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    default: AnyKind = ReviewPolicy()
    kinds: ByKind = Field(default_factory=dict)
    agents: dict[str, AnyKindAgent] = Field(default_factory=dict)
    channels: dict[str, AnyKind] = Field(default_factory=dict)
    tools: tuple[ToolRule, ...] = ()
    # Whether a rule's or a grant's decision is told in its session's thread (one line).
    announce_automatic: StrictBool = True

    @cached_property
    def _named(self) -> dict[str, ReviewPolicy]:
        """Every policy by its name, built once, so a stored name is looked up, not parsed."""
        named: dict[str, ReviewPolicy] = {DEFAULT: self.default}
        named.update({f"kinds.{kind}": policy for kind, policy in self.kinds.items()})
        named.update({f"channels.{_key(c)}": policy for c, policy in self.channels.items()})
        for agent, table in self.agents.items():
            own = table.own
            if own is not None:
                named[f"agents.{_key(agent)}"] = own
            for kind, policy in table.kinds.items():
                named[f"agents.{_key(agent)}.kinds.{kind}"] = policy
        named.update({f"{TOOLS}.{i}": rule for i, rule in enumerate(self.tools)})
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
        kind, agent, kind, channel, else default (no tool rule: see `choose`)."""
        candidates = []
        if agent_id is not None:
            candidates += [f"agents.{_key(agent_id)}.kinds.{kind}", f"agents.{_key(agent_id)}"]
        candidates.append(f"kinds.{kind}")
        if channel is not None:
            candidates.append(f"channels.{_key(channel)}")
        return next((name for name in candidates if name in self._named), DEFAULT)

    @model_validator(mode="after")
    def _unique_rule_names(self) -> ReviewPolicies:
        seen: set[str] = set()
        for index, rule in enumerate(self.tools):
            shown = rule_name(rule, index)
            if shown in seen:
                raise ValueError(f"tools.{index}: a second rule is named {shown!r}")
            seen.add(shown)
        return self

    def tool_rule(self, tools: Sequence[ToolApprovalIntent]) -> str | None:
        """The name of the `[[tools]]` rule that applies to `tools`: the first deny rule
        that matches one of them (a deny wins wherever it stands in the file), else the
        first matching rule in file order; None when none does."""
        matching = [
            index
            for index, rule in enumerate(self.tools)
            if any(rule.matches(intent) for intent in tools)
        ]
        denying = [i for i in matching if self.tools[i].decision == "deny"]
        chosen = denying or matching
        return f"{TOOLS}.{chosen[0]}" if chosen else None

    def always_allow_forbidden(self, tools: Sequence[ToolApprovalIntent]) -> str | None:
        """The name of the first `[[tools]]` rule matching one of `tools` that says
        `always_allow = false`; None when "Always allow" may be offered."""
        for index, rule in enumerate(self.tools):
            if not rule.always_allow and any(rule.matches(intent) for intent in tools):
                return rule_name(rule, index)
        return None

    def rule_names(self) -> frozenset[str]:
        """Every `[[tools]]` rule's name as shown (a stored rule may take none of them)."""
        return frozenset(rule_name(rule, index) for index, rule in enumerate(self.tools))

    def rule_decision(self, questions: Sequence[AskUserQuestionItem]) -> RuleDecision | None:
        """What the `[[tools]]` rules decide of a tool approval before anyone is asked;
        None for another kind of ask, or when no rule matches (the default asks)."""
        if kind_of(questions) != "tool-approval":
            return None
        chosen = self.tool_rule(tools_of(questions))
        if chosen is None:
            return None
        index = int(chosen.removeprefix(f"{TOOLS}."))
        rule = self.tools[index]
        return RuleDecision(chosen, rule_name(rule, index), rule.decision, rule.reason, rule)

    def choose(
        self,
        questions: Sequence[AskUserQuestionItem],
        agent_id: str | None,
        channel: str | None,
    ) -> str:
        """The name of the policy for an ask of `questions`: for a tool approval, the first
        tool rule that matches it; else as `select` chooses by kind, agent and channel."""
        kind = kind_of(questions)
        if kind == "tool-approval":
            rule = self.tool_rule(tools_of(questions))
            if rule is not None:
                return rule
        return self.select(kind, agent_id, channel)

    def grant_reach(self, tool: str, agent: str | None) -> list[GrantReach]:
        """Every policy a call of `tool` that a grant covers may fall under and the grant
        decides there (one approval from Slack decides, as `grant_may_decide` needs): each
        `[[tools]]` rule that asks and whose tool glob matches, whatever its `args` (fail
        closed: a rule's patterns may overlap the grant's), and what `select` picks for
        `agent` (None: every agent the file names, and any other) in every channel the file
        names and any other."""
        reach: dict[tuple[str, str | None], GrantReach] = {}
        for index, rule in enumerate(self.tools):
            if rule.decision == "ask" and fnmatchcase(tool, rule.tool):
                name = f"{TOOLS}.{index}"
                reach[(name, None)] = GrantReach(name, rule, None)
        agents: list[str | None] = [agent] if agent is not None else [*self.agents, None]
        for who in agents:
            for channel in [*self.channels, None]:
                name = self.select("tool-approval", who, channel)
                where = (
                    channel if channel is not None and name == f"channels.{_key(channel)}" else None
                )
                reach[(name, where)] = GrantReach(name, self.named(name), where)
        return [r for r in reach.values() if r.policy.approvals == 1 and r.policy.approve_in_slack]

    def named(self, name: str | None) -> ReviewPolicy:
        """The policy called `name`; `default` when there is none by that name (fail closed:
        a policy removed from the file after an ask chose it)."""
        return self._named.get(name or DEFAULT, self.default)

    def name_of(self, record: AskRecord) -> str:
        """The policy name `record` chose when it was created; chosen again from the record
        for one stored before asks kept it."""
        if record.policy is not None:
            return record.policy if record.policy in self._named else DEFAULT
        return self.choose(record.questions, record.agent_id, record.channel)

    def of(self, record: AskRecord) -> ReviewPolicy:
        """The policy that applies to `record` (see `name_of`)."""
        return self.named(self.name_of(record))

    def grant_ttl(self, record: AskRecord) -> float:
        """How long a grant made on `record`'s card lasts: its policy's `grant_ttl`, else
        `[default]`'s, else `DEFAULT_GRANT_TTL`."""
        own = self.of(record).grant_ttl
        if own is not None:
            return own
        return self.default.grant_ttl if self.default.grant_ttl is not None else DEFAULT_GRANT_TTL


RULE_ACTOR: Final = "rule:"
GRANT_ACTOR: Final = "grant:"


@dataclass(frozen=True)
class AutoDecider:
    """Who decided an ask automatically: a `[[tools]]` rule (by its shown name) or a grant
    (by its id), read from the ask's `decided_by` (`rule:<name>`, `grant:<id>`)."""

    kind: Literal["rule", "grant"]
    name: str


def auto_decider(decided_by: str | None) -> AutoDecider | None:
    """The rule or grant that decided an ask, or None (a person, or nobody)."""
    if decided_by is None:
        return None
    if decided_by.startswith(RULE_ACTOR):
        return AutoDecider("rule", decided_by[len(RULE_ACTOR) :])
    if decided_by.startswith(GRANT_ACTOR):
        return AutoDecider("grant", decided_by[len(GRANT_ACTOR) :])
    return None


def enforced_on_clicks(policy: ReviewPolicy, kind: AskKind, requester: str | None) -> list[str]:
    """What `policy` asks of the approving clicks of an ask of `kind` made for `requester`,
    beyond coming from a reviewer (empty for a question): only the controls of a lone review
    question enforce it, never a form's Submit."""
    if kind not in REVIEWS:
        return []
    enforced = []
    if policy.approvals > 1:
        enforced.append(f"{policy.approvals} approvals")
    if requester is not None and not policy.requester_may_approve:
        enforced.append("no approval by its requester")
    if kind == "tool-approval" and not policy.approve_in_slack:
        enforced.append("no approval from Slack")
    return enforced


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
