"""`python -m bot erase ASK_ID [--db …]`: delete one settled ask from the store now.

The ask's row (questions, answers and typed text, who settled it), its events and the inbox
rows naming it go in one transaction (`AskStore.erase`); a pending ask is refused: withdraw
it first, so the agent waiting on it is told. What Slack shows of the ask is not touched (the
bot's messages stay in the channel until someone deletes them or Slack's own retention does):
this command needs no Slack credentials, and prints where those messages are.

It loads the store only, not the service (no Bolt, no Slack SDK): it runs beside a live
service on the same SQLite file or PostgreSQL database, whose next read no longer finds it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Mapping, Sequence

from bot.store import AskRecord, AskStore
from bot.store.location import (
    DEFAULT_DB,
    POSTGRES_SCHEMES,
    LocationError,
    open_store_at,
    store_location,
)


class EraseError(Exception):
    """The ask cannot be erased; `code` is the exit code, the message says why."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


def main(argv: Sequence[str], env: Mapping[str, str] | None = None) -> int:
    """Erase the ask; the exit code: 0 erased, 1 still pending, 2 unknown id or no store."""
    args = _parse(argv)
    where = args.db or (env if env is not None else os.environ).get("SLACK_QUESTIONS_DB", "")
    try:
        record = asyncio.run(_erase(args.ask_id, where.strip() or str(DEFAULT_DB)))
    except EraseError as error:
        print(f"cannot erase: {error}", file=sys.stderr)
        return error.code
    print(f"erased ask {record.id}: its questions, answers, events and inbox rows are gone")
    if record.message_ts:
        print(
            f"Slack still shows its {len(record.message_ts)} message(s) in {record.channel} "
            f"(ts {', '.join(record.message_ts)}): delete them there, or let Slack's "
            "retention remove them"
        )
    return 0


async def _erase(ask_id: str, where: str) -> AskRecord:
    store = await _open(where)
    try:
        record = await store.get(ask_id)
        if record is None:
            raise EraseError(f"no ask {ask_id!r} in the store {_shown(where)}", 2)
        try:
            erased = await store.erase(ask_id)
        except KeyError:
            raise EraseError(f"no ask {ask_id!r} in the store {_shown(where)}", 2) from None
        if not erased:
            raise EraseError(
                f"ask {ask_id} is still pending: withdraw it first (DELETE /v1/asks/{ask_id} "
                "on the relay, or withdraw_question over MCP), so its agent is told, "
                "then erase it",
                1,
            )
        return record
    finally:
        await store.close()


async def _open(where: str) -> AskStore:
    """The store SLACK_QUESTIONS_DB (or --db) names, as the service reads it; none is made."""
    try:
        return await open_store_at(store_location(where), create=False)
    except LocationError as error:
        raise EraseError(str(error), 2) from error


def _shown(where: str) -> str:
    """The store as a message may name it: a PostgreSQL URL without its password."""
    if where.startswith(POSTGRES_SCHEMES):
        from bot.store.postgres_connect import Target

        return str(Target(where))
    return where


def _parse(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bot erase",
        description="Delete one settled ask from the store now: its questions, answers "
        "(typed text included), events and inbox rows. What Slack shows stays in Slack.",
    )
    parser.add_argument("ask_id", metavar="ASK_ID", help="the ask's id (the relay's ask id)")
    parser.add_argument(
        "--db",
        help="the store: a SQLite file (or sqlite:FILE), or a postgresql:// URL "
        f"(default: SLACK_QUESTIONS_DB, else {DEFAULT_DB})",
    )
    return parser.parse_args(list(argv))
