"""`python -m bot audit export`: the asks made in a period, as CSV or JSON Lines.

Writes to stdout, or to `--out FILE` (written beside it first and moved into place once
complete, so a failed export leaves no half file under that name). The columns are fixed
(`bot.asks.audit_export.COLUMNS`, docs/audit.md). Permalinks are built from the workspace's
URL (`--workspace-url`, or SLACK_QUESTIONS_WORKSPACE_URL: auth.test's `url`, e.g.
`https://acme.slack.com/`); without one the column is empty. Loads the store only, not the
service. Bad input (a date, an outcome, a format) is named on stderr with exit status 2.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

from bot.asks.audit_export import (
    ExportFormat,
    encode,
    header,
    parse_format,
    parse_outcome,
    parse_time,
    records_in,
    row_of,
)
from bot.clock import SystemClock
from bot.store.location import DEFAULT_DB, LocationError, open_store_at, store_location
from bot.store.queries import AskQuery

WORKSPACE_URL_VARIABLE = "SLACK_QUESTIONS_WORKSPACE_URL"


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The `export` subcommand's arguments, beside `verify`."""
    export = commands.add_parser(
        "export", help="the asks made in a period, as CSV or JSON Lines, on stdout or --out"
    )
    export.add_argument("--since", required=True, help="ISO-8601 date or time (UTC if no offset)")
    export.add_argument("--until", help="ISO-8601 date or time, not included (default: now)")
    export.add_argument("--agent", help="only this agent's asks (and its sessions AGENT/…)")
    export.add_argument("--person", help="only asks decided by this Slack user id (or rule:NAME)")
    export.add_argument("--outcome", help="pending, answered, withdrawn, closed, cancelled, …")
    export.add_argument("--format", default="csv", help="csv (default) or jsonl")
    export.add_argument("--out", type=Path, help="write to this file instead of stdout")
    export.add_argument("--db", help=f"the store (default: SLACK_QUESTIONS_DB, else {DEFAULT_DB})")
    export.add_argument(
        "--workspace-url",
        help=f"the workspace's URL, for permalinks (default: {WORKSPACE_URL_VARIABLE})",
    )


def run(args: argparse.Namespace, env: Mapping[str, str] | None = None) -> int:
    """Run `audit export`; the exit code: 0 written, 2 bad input or no store."""
    environ = env if env is not None else os.environ
    try:
        query, fmt = _query(args)
    except ValueError as error:
        print(f"cannot export: {error}", file=sys.stderr)
        return 2
    where = args.db or environ.get("SLACK_QUESTIONS_DB", "").strip() or str(DEFAULT_DB)
    workspace = args.workspace_url or environ.get(WORKSPACE_URL_VARIABLE, "").strip() or None
    try:
        if args.out is None:
            count = asyncio.run(_export(where, query, fmt, workspace, sys.stdout))
        else:
            count = _to_file(args.out, where, query, fmt, workspace)
    except LocationError as error:
        print(f"cannot export: {error}", file=sys.stderr)
        return 2
    note = "" if workspace else f" (no permalinks: set --workspace-url or {WORKSPACE_URL_VARIABLE})"
    print(f"exported {count} asks{note}", file=sys.stderr)
    return 0


def _query(args: argparse.Namespace) -> tuple[AskQuery, ExportFormat]:
    since = parse_time(args.since, "--since")
    until = SystemClock().now() if args.until is None else parse_time(args.until, "--until")
    if until <= since:
        raise ValueError(f"--until {args.until or 'now'!r} is not after --since {args.since!r}")
    outcome = None if args.outcome is None else parse_outcome(args.outcome, "--outcome")
    fmt = parse_format(args.format, "--format")
    query = AskQuery(
        since=since, until=until, agent=args.agent, person=args.person, outcome=outcome
    )
    return query, fmt


def _to_file(
    out: Path, where: str, query: AskQuery, fmt: ExportFormat, workspace: str | None
) -> int:
    partial = out.with_name(out.name + ".partial")
    try:
        with partial.open("w", encoding="utf-8", newline="") as file:
            count = asyncio.run(_export(where, query, fmt, workspace, file))
        partial.replace(out)
    finally:
        partial.unlink(missing_ok=True)
    return count


async def _export(
    where: str, query: AskQuery, fmt: ExportFormat, workspace: str | None, out: TextIO
) -> int:
    store = await open_store_at(store_location(where), create=False)
    count = 0
    try:
        out.write(header(fmt))
        async for record in records_in(store, query):
            out.writelines(encode([row_of(record, workspace)], fmt))
            count += 1
    finally:
        await store.close()
    out.flush()
    return count
