"""Asks in a time range, filtered and paged: what the audit export reads (`AskStore.asks_between`).

The range is on when an ask was made (`created_at`), half open: `since <= created_at < until`.
Pages are ordered by `(created_at, id)` and continue after the last ask of the previous page
(a keyset cursor), so an ask added while an export runs neither repeats nor shifts a page.
The SQL stores filter in the query (the range by `asks_by_age`, an agent by `asks_by_agent`);
memory tests each record with `matches`, the same rules in Python.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum

from pydantic import model_validator

from bot.outcomes import Verdict
from bot.store.vocabulary import AskRecord, AskState, Record, of_agents

__all__ = [
    "PAGE_MAX",
    "AskPage",
    "AskQuery",
    "Outcome",
    "PageCursor",
    "check_limit",
    "matches",
    "outcome_of",
    "page_filter",
    "page_of",
]

PAGE_MAX = 1000  # asks per page at most: an export reads a large range page by page


class Outcome(StrEnum):
    """How an ask stands, as the export's `--outcome` names it: still pending, or its verdict."""

    PENDING = "pending"
    ANSWERED = Verdict.ANSWERED.value
    WITHDRAWN = Verdict.WITHDRAWN.value
    CLOSED = Verdict.CLOSED.value
    CANCELLED = Verdict.CANCELLED.value
    EXPIRED = Verdict.EXPIRED.value
    FAILED = Verdict.FAILED.value


class AskQuery(Record):
    """Which asks: made in `[since, until)`, of `agent` (and its sessions `agent/…`), decided
    by `person` (a Slack user id, or `rule:<name>` / `grant:<id>`), ending in `outcome`."""

    since: float
    until: float
    agent: str | None = None
    person: str | None = None
    outcome: Outcome | None = None

    @model_validator(mode="after")
    def _range_is_forward(self) -> AskQuery:
        if self.until <= self.since:
            raise ValueError("the range ends before it starts: until must be after since")
        return self


class PageCursor(Record):
    """Where the next page starts: after the ask made at `created_at` with this `id`."""

    created_at: float
    id: str


class AskPage(Record):
    """One page of asks, oldest first; `next` continues it (None: this was the last page)."""

    records: list[AskRecord]
    next: PageCursor | None = None


def outcome_of(record: AskRecord) -> Outcome:
    """How `record` stands now."""
    ended = record.ended_as
    return Outcome.PENDING if ended is None else Outcome(ended.value)


def matches(query: AskQuery, record: AskRecord, after: PageCursor | None = None) -> bool:
    """Whether `record` is in `query` (and past `after`): the rules `page_filter` puts in SQL."""
    if not query.since <= record.created_at < query.until:
        return False
    if after is not None and (record.created_at, record.id) <= (after.created_at, after.id):
        return False
    if query.agent is not None and not of_agents(record.agent_id, (query.agent,)):
        return False
    if query.person is not None and record.decided_by != query.person:
        return False
    return query.outcome is None or outcome_of(record) is query.outcome


JsonField = Callable[[str], str]
"""The SQL expression reading a text field of the record's JSON (each backend its own)."""


def page_filter(
    query: AskQuery, after: PageCursor | None, mark: str, field: JsonField, ask_id: str = "id"
) -> tuple[str, tuple[object, ...]]:
    """The WHERE clause of one page (with `mark` as the parameter placeholder) and its
    parameters: shared by SQLite and PostgreSQL, whose `asks` have the same columns.
    `ask_id`: the id column compared by code point, as Python orders the cursor (SQLite's
    own order; PostgreSQL's `COLLATE "C"`, not the database's locale)."""
    clauses = [f"created_at >= {mark}", f"created_at < {mark}"]
    params: list[object] = [query.since, query.until]
    if after is not None:
        clauses.append(f"(created_at > {mark} OR (created_at = {mark} AND {ask_id} > {mark}))")
        params.extend((after.created_at, after.created_at, after.id))
    if query.agent is not None:
        # Its sessions too (`of_agents`): substr, not LIKE, which would read `_` and `%`.
        clauses.append(f"(agent_id = {mark} OR substr(agent_id, 1, {mark}) = {mark})")
        params.extend((query.agent, len(query.agent) + 1, f"{query.agent}/"))
    if query.person is not None:
        clauses.append(f"{field('decided_by')} = {mark}")
        params.append(query.person)
    if query.outcome is Outcome.PENDING:
        clauses.append(f"state = {mark}")
        params.append(AskState.PENDING.value)
    elif query.outcome is Outcome.ANSWERED:
        # Only the answered verdict leaves an ask in the answered state (bot/outcomes.py).
        clauses.append(f"state = {mark}")
        params.append(AskState.ANSWERED.value)
    elif query.outcome is not None:
        # A record settled before verdicts were kept reads as failed (`AskRecord.ended_as`).
        clauses.append(f"state = {mark} AND COALESCE({field('verdict')}, {mark}) = {mark}")
        params.extend((AskState.FAILED.value, Verdict.FAILED.value, query.outcome.value))
    return " WHERE " + " AND ".join(clauses), tuple(params)


def page_of(records: list[AskRecord], limit: int) -> AskPage:
    """The page of up to `limit` asks from `records` (ordered, and one more than `limit` if
    there is more): the cursor is the last one kept."""
    if len(records) <= limit:
        return AskPage(records=records)
    kept = records[:limit]
    return AskPage(records=kept, next=PageCursor(created_at=kept[-1].created_at, id=kept[-1].id))


def check_limit(limit: int) -> None:
    """`asks_between`'s guard on the page size, shared by every store."""
    if not 1 <= limit <= PAGE_MAX:
        raise ValueError(f"a page holds 1 to {PAGE_MAX} asks, not {limit}")
