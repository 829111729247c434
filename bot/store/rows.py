"""Asks, events, threads and inbox items as SQL rows and back: the same for every SQL
backend (`sqlite.py`, `postgres.py`), whose tables have the same columns.

The record's JSON is the truth; `ask_row` writes the columns we query by from it.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from bot.store.audit import AuditRow
from bot.store.vocabulary import (
    AskEvent,
    AskRecord,
    AskState,
    EventKind,
    InboxItem,
    InboxKind,
    ThreadRef,
)

AskRow = tuple[str, str | None, str, float, str]
EventRow = tuple[str, float, str, str | None, str]


def ask_row(record: AskRecord) -> AskRow:
    """`(id, idempotency_key, state, created_at, record)` of `asks`."""
    return (
        record.id,
        record.idempotency_key,
        record.state.value,
        record.created_at,
        record.model_dump_json(),
    )


def event_row(event: AskEvent) -> EventRow:
    """`(ask_id, at, kind, actor, detail)` of `events`."""
    return (event.ask_id, event.at, event.kind.value, event.actor, event.detail)


def records_from(rows: Iterable[tuple[str]]) -> list[AskRecord]:
    """The asks of rows holding one column, the record's JSON."""
    return [AskRecord.model_validate_json(text) for (text,) in rows]


def events_from(ask_id: str, rows: Iterable[tuple[float, str, str | None, str]]) -> list[AskEvent]:
    """The events of `ask_id` from rows of `(at, kind, actor, detail)`."""
    return [
        AskEvent(ask_id=ask_id, at=at, kind=EventKind(kind), actor=actor, detail=detail)
        for at, kind, actor, detail in rows
    ]


def thread_from(row: tuple[str, str | None] | None) -> ThreadRef | None:
    """The thread of a `(channel, thread_ts)` row; None for no row."""
    return None if row is None else ThreadRef(channel=row[0], thread_ts=row[1])


def inbox_from(rows: Iterable[tuple[str, float, str, str]]) -> list[InboxItem]:
    """The inbox items of rows of `(id, received_at, kind, body)`."""
    return [
        InboxItem(id=item_id, received_at=at, kind=InboxKind(kind), body=body)
        for item_id, at, kind, body in rows
    ]


def recent_filter(
    state: AskState | None, agents: Collection[str] | None, mark: str
) -> tuple[str, tuple[object, ...]]:
    """The WHERE clause of `recent` (with `mark` as the parameter placeholder) and its
    parameters: shared by SQLite and PostgreSQL."""
    clauses: list[str] = []
    params: list[object] = []
    if state is not None:
        clauses.append(f"state = {mark}")
        params.append(state.value)
    if agents is not None:
        chosen = sorted(set(agents))
        if not chosen:
            clauses.append("false")
        else:
            # One of them, or a session under one (`of_agents`): substr, not LIKE, which
            # SQLite compares without case and which would read `_` and `%` as patterns.
            under = " OR ".join([f"substr(agent_id, 1, {mark}) = {mark}"] * len(chosen))
            clauses.append(f"(agent_id IN ({', '.join([mark] * len(chosen))}) OR {under})")
            params.extend(chosen)
            for agent in chosen:
                params.extend((len(agent) + 1, f"{agent}/"))
    return (f" WHERE {' AND '.join(clauses)}" if clauses else ""), tuple(params)


def audit_row_from(row: Sequence[object]) -> AuditRow:
    """An audit row read as `(seq, at, kind, ask_id, actor, payload, prev_mac, mac)`."""
    seq, at, kind, ask_id, actor, payload, prev_mac, mac = row
    return AuditRow.model_validate(
        {
            "seq": seq,
            "at": at,
            "kind": kind,
            "ask_id": ask_id,
            "actor": actor,
            "payload": payload,
            "prev_mac": prev_mac,
            "mac": mac,
        }
    )
