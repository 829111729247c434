"""`python -m bot audit verify [--db …] [--head SEQ:MAC]`: check the decision log's chain
(`audit export`, the asks of a period as a file, is bot/service/export_command.py).

Prints `intact (N events, head …)`, or the first broken link (its seq, what it holds, and
why: a gap, a reorder, a mac mismatch, a tail cut short of the last published head) and
exits 1. The key is SLACK_QUESTIONS_AUDIT_KEY; unset, the offline key (with a warning), which
only verifies a store written offline. `--head` checks the tail against a head read off the
audit channel instead of the one recorded in the store (an attacker with the database could
have removed that record too). Loads the store only, not the service.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Mapping, Sequence

from bot.service import export_command
from bot.store.audit import OFFLINE_AUDIT_KEY, AuditLink, Verdict, audit_key, verify
from bot.store.location import DEFAULT_DB, LocationError, open_store_at, store_location


def main(argv: Sequence[str], env: Mapping[str, str] | None = None) -> int:
    """Run `audit verify`; the exit code: 0 intact, 1 broken, 2 no store or a bad key."""
    args = _parse(argv)
    if args.command == "export":
        return export_command.run(args, env)
    environ = env if env is not None else os.environ
    where = args.db or environ.get("SLACK_QUESTIONS_DB", "").strip() or str(DEFAULT_DB)
    try:
        key = audit_key(environ.get("SLACK_QUESTIONS_AUDIT_KEY"))
        head = _head(args.head)
    except ValueError as error:
        print(f"cannot verify: {error}", file=sys.stderr)
        return 2
    if key is None:
        print(
            "warning: SLACK_QUESTIONS_AUDIT_KEY is unset: verifying with the offline key",
            file=sys.stderr,
        )
        key = OFFLINE_AUDIT_KEY
    try:
        verdict = asyncio.run(_verify(where, key, head))
    except LocationError as error:
        print(f"cannot verify: {error}", file=sys.stderr)
        return 2
    print(verdict.line())
    return 0 if verdict.intact else 1


async def _verify(where: str, key: bytes, head: AuditLink | None) -> Verdict:
    store = await open_store_at(store_location(where), create=False)
    try:
        rows = await store.audit_rows()
        anchor = await store.audit_anchor()
        published = head or await store.audit_published()
    finally:
        await store.close()
    return verify(key, rows, anchor=anchor, published=published)


def _head(value: str | None) -> AuditLink | None:
    if value is None:
        return None
    seq, colon, mac = value.partition(":")
    if not colon or not seq.isdigit() or len(mac) != 64:
        raise ValueError(
            f"--head must be SEQ:MAC (a number, a colon, 64 hex digits), not {value!r}"
        )
    return AuditLink(seq=int(seq), mac=mac)


def _parse(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bot audit", description="The tamper-evident decision log."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser("verify", help="check the chain; exit 1 at the first broken link")
    check.add_argument(
        "--db",
        help="the store: a SQLite file (or sqlite:FILE), or a postgresql:// URL "
        f"(default: SLACK_QUESTIONS_DB, else {DEFAULT_DB})",
    )
    check.add_argument(
        "--head", help="SEQ:MAC of a head published to the audit channel, to check the tail against"
    )
    export_command.add_parser(commands)
    return parser.parse_args(list(argv))
