"""The Home tab's filters: by agent, person, outcome and period, kept in the view itself.

Pure. `HomeFilter` travels as the Home view's private_metadata, so a change in one select
(`changed`) keeps the others; `matches` says which asks it lets through. The selects are one
actions block under the intro; the people menu is Slack's users_select (Slack shows names).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, ValidationError
from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    Option,
    PlainTextObject,
    StaticSelectElement,
    UserSelectElement,
)

from bot.block_ids import Action
from bot.render.text import truncate
from bot.store import AskRecord, Verdict

Period = Literal["day", "week", "month", "all"]
PERIOD_SECONDS: Final[dict[str, float]] = {
    "day": 86_400.0,
    "week": 7 * 86_400.0,
    "month": 30 * 86_400.0,
}
PERIOD_WORDS: Final[dict[str, str]] = {
    "all": "Any time",
    "day": "Last 24 hours",
    "week": "Last 7 days",
    "month": "Last 30 days",
}
WAITING: Final = "waiting"
OUTCOME_WORDS: Final[dict[str, str]] = {
    WAITING: "Waiting",
    Verdict.ANSWERED: "Answered",
    Verdict.EXPIRED: "Expired",
    Verdict.WITHDRAWN: "Withdrawn",
    Verdict.CLOSED: "Dismissed",
    Verdict.CANCELLED: "Discussed",
    Verdict.FAILED: "Failed",
}
ANY: Final = "*"
AGENTS_LISTED: Final = 99  # and "All agents": a static select holds 100 options
OPTION_VALUE_MAX: Final = 150
FILTERS_BLOCK: Final = "sq~team.filters"


class HomeFilter(BaseModel):
    """What one person's Home tab shows: None is "any"."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    agent: str | None = None
    person: str | None = None
    outcome: str | None = None  # a Verdict value, or "waiting"
    period: Period = "all"

    def matches(self, record: AskRecord, now: float) -> bool:
        """Whether `record` is one the filter lets through at `now`."""
        if self.agent is not None and record.agent_name != self.agent:
            return False
        if self.person is not None and not _decided_by(record, self.person):
            return False
        if self.outcome is not None and _outcome(record) != self.outcome:
            return False
        span = PERIOD_SECONDS.get(self.period)
        return span is None or record.created_at >= now - span

    @property
    def active(self) -> bool:
        """Whether it filters anything out."""
        return self != HomeFilter()

    def changed(self, action_id: str, value: str | None) -> HomeFilter:
        """This filter with one select's new value (`ANY` or None: any)."""
        chosen = None if value in (None, ANY) else value
        if action_id == Action.FILTER_AGENT:
            return self.model_copy(update={"agent": chosen})
        if action_id == Action.FILTER_PERSON:
            return self.model_copy(update={"person": chosen})
        if action_id == Action.FILTER_OUTCOME:
            return self.model_copy(update={"outcome": chosen if chosen in OUTCOME_WORDS else None})
        if action_id == Action.FILTER_PERIOD:
            period = chosen if chosen in PERIOD_SECONDS else "all"
            return self.model_copy(update={"period": period})
        return self

    @classmethod
    def read(cls, private_metadata: str) -> HomeFilter:
        """The filter a Home view carries; no filter if it carries none we can read."""
        try:
            return cls.model_validate_json(private_metadata)
        except ValidationError:
            return cls()


def _decided_by(record: AskRecord, person: str) -> bool:
    return record.decided_by == person or any(a.by == person for a in record.approvals)


def _outcome(record: AskRecord) -> str:
    verdict = record.ended_as
    return WAITING if verdict is None else verdict.value


def filter_blocks(current: HomeFilter, agents: Sequence[str]) -> list[Block]:
    """The four selects, each showing its current choice; `agents`: the names to offer."""
    names = sorted({a for a in agents if len(a) <= OPTION_VALUE_MAX})[:AGENTS_LISTED]
    if current.agent is not None and current.agent not in names:
        names = [current.agent, *names[: AGENTS_LISTED - 1]]
    agent_options = [_option("All agents", ANY)] + [_option(truncate(n, 75), n) for n in names]
    outcome_options = [_option("Any outcome", ANY)] + [
        _option(words, value) for value, words in OUTCOME_WORDS.items()
    ]
    period_options = [_option(words, value) for value, words in PERIOD_WORDS.items()]
    return [
        ActionsBlock(
            block_id=FILTERS_BLOCK,
            elements=[
                _select(Action.FILTER_AGENT, "Agent", agent_options, current.agent or ANY),
                UserSelectElement(
                    action_id=Action.FILTER_PERSON,
                    placeholder=PlainTextObject(text="Decided by anyone"),
                    initial_user=current.person,
                ),
                _select(Action.FILTER_OUTCOME, "Outcome", outcome_options, current.outcome or ANY),
                _select(Action.FILTER_PERIOD, "Period", period_options, current.period),
            ],
        )
    ]


def _option(text: str, value: str) -> Option:
    return Option(text=PlainTextObject(text=text), value=value)


def _select(
    action_id: str, placeholder: str, options: list[Option], chosen: str
) -> StaticSelectElement:
    initial = next((o for o in options if o.value == chosen), options[0])
    return StaticSelectElement(
        action_id=action_id,
        placeholder=PlainTextObject(text=placeholder),
        options=options,
        initial_option=initial,
    )
