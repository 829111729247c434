"""The audit export: stored asks as rows of fixed columns, written as CSV or JSON Lines.

`python -m bot audit export`, the relay's `GET /v1/audit/export` and `/agent-questions export`
all write these rows; docs/audit.md documents each column. Every value is a string (an empty
one for nothing), so a CSV file read back gives exactly the JSON Lines of the same asks.
Pure but for `records_in`, which reads the store page by page.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import AsyncIterator, Iterable, Iterator
from datetime import UTC, datetime
from enum import StrEnum
from typing import Final

from pydantic import BaseModel, ConfigDict

from bot.asks.automatic import GRANT_ACTOR, RULE_ACTOR
from bot.review import kind_of
from bot.store import AskRecord, AskStore
from bot.store.queries import AskQuery, Outcome, PageCursor
from provider import AskUserQuestionAnswerItem

PAGE: Final = 500  # asks read from the store at a time

TIME_EXAMPLE: Final = "e.g. 2026-12-01 or 2026-12-01T09:30:00Z"


class ExportFormat(StrEnum):
    """The file formats of an export."""

    CSV = "csv"
    JSONL = "jsonl"


MEDIA_TYPES: Final = {ExportFormat.CSV: "text/csv", ExportFormat.JSONL: "application/x-ndjson"}


class ExportRow(BaseModel):
    """One ask, as the export writes it; the fields are the columns, in their order."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    ask_id: str
    agent: str
    session: str
    channel: str
    kind: str
    question: str
    answer: str
    decided_by: str
    asked_at: str
    decided_at: str
    seconds_to_decide: str
    rule_or_grant: str
    permalink: str


COLUMNS: Final = tuple(ExportRow.model_fields)


def iso(at: float) -> str:
    """An instant as ISO-8601 UTC, to the millisecond: `2026-12-01T09:30:00.000Z`."""
    return datetime.fromtimestamp(at, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_time(text: str, name: str) -> float:
    """The instant an ISO-8601 date or time names (a date: its midnight; no offset: UTC);
    `ValueError` saying what `name` should be."""
    try:
        # RFC 3339 allows a lower-case `t` and `z`; fromisoformat takes upper case only.
        parsed = datetime.fromisoformat(text.strip().upper())
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=UTC)
        return parsed.timestamp()
    except (ValueError, OverflowError):  # OverflowError: before year 1 once made UTC
        raise ValueError(
            f"{name} {text!r} is not an ISO-8601 date or time ({TIME_EXAMPLE})"
        ) from None


def parse_outcome(text: str, name: str = "outcome") -> Outcome:
    """The outcome `text` names; `ValueError` listing those there are."""
    try:
        return Outcome(text.strip().lower())
    except ValueError:
        known = ", ".join(outcome.value for outcome in Outcome)
        raise ValueError(f"{name} {text!r} is not one of {known}") from None


def parse_format(text: str, name: str = "format") -> ExportFormat:
    """The file format `text` names; `ValueError` listing those there are."""
    try:
        return ExportFormat(text.strip().lower())
    except ValueError:
        raise ValueError(f"{name} {text!r} is not csv or jsonl") from None


def permalink(workspace_url: str | None, record: AskRecord) -> str:
    """The link of the ask's first message, built as Slack builds its permalinks from the
    workspace's URL (auth.test's `url`); "" when the ask was never posted or the URL is
    unknown."""
    if not workspace_url or record.channel is None or not record.message_ts:
        return ""
    ts = record.message_ts[0]
    link = f"{workspace_url.rstrip('/')}/archives/{record.channel}/p{ts.replace('.', '')}"
    if record.thread_ts is not None and record.thread_ts != ts:
        link += f"?thread_ts={record.thread_ts}&cid={record.channel}"
    return link


def row_of(record: AskRecord, workspace_url: str | None = None) -> ExportRow:
    """The export's row of one ask."""
    session = record.agent_id or ""
    decided_by = record.decided_by or ""
    seconds = (
        f"{record.decided_at - record.created_at:.3f}" if record.decided_at is not None else ""
    )
    return ExportRow(
        ask_id=record.id,
        agent=session.partition("/")[0],
        session=session,
        channel=record.channel or "",
        kind=kind_of(record.questions),
        question=_lines([(q.id, q.question) for q in record.questions]),
        answer=_answer_text(record),
        decided_by=decided_by,
        asked_at=iso(record.created_at),
        decided_at="" if record.decided_at is None else iso(record.decided_at),
        seconds_to_decide=seconds,
        rule_or_grant=decided_by if decided_by.startswith((RULE_ACTOR, GRANT_ACTOR)) else "",
        permalink=permalink(workspace_url, record),
    )


def _answer_text(record: AskRecord) -> str:
    if record.answer is None:
        return ""
    return _lines([(item.id, _item_text(item)) for item in record.answer.answers])


def _item_text(item: AskUserQuestionAnswerItem) -> str:
    return ", ".join([*item.selected, *([item.custom] if item.custom is not None else [])])


def _lines(pairs: list[tuple[str, str]]) -> str:
    """One question's text alone; several, one line each led by the question's id."""
    if len(pairs) == 1:
        return pairs[0][1]
    return "\n".join(f"{question_id}: {text}" for question_id, text in pairs)


async def records_in(store: AskStore, query: AskQuery) -> AsyncIterator[AskRecord]:
    """Every ask `query` selects, oldest first, read a page at a time."""
    after: PageCursor | None = None
    while True:
        page = await store.asks_between(query, limit=PAGE, after=after)
        for record in page.records:
            yield record
        if page.next is None:
            return
        after = page.next


def header(fmt: ExportFormat) -> str:
    """What the file starts with: the CSV's column names ("" for JSON Lines)."""
    return _csv_line(COLUMNS) if fmt is ExportFormat.CSV else ""


def encode(rows: Iterable[ExportRow], fmt: ExportFormat) -> Iterator[str]:
    """The file's text after its header, one chunk per row."""
    for row in rows:
        values = row.model_dump()
        if fmt is ExportFormat.CSV:
            yield _csv_line(values[column] for column in COLUMNS)
        else:
            yield json.dumps(values, ensure_ascii=False) + "\n"


def _csv_line(values: Iterable[str]) -> str:
    out = io.StringIO()
    csv.writer(out).writerow(values)  # RFC 4180: CRLF, quotes only where needed
    return out.getvalue()
