"""`python -m bot credentials create|list|revoke`: the relay's agent credentials.

Works on the store `SLACK_QUESTIONS_DB` (or `--db`) names, so every replica sharing it
honours what is created or revoked here; it needs no Slack credentials and loads none of
the service (tests/bot/test_start_up.py pins that). `create` prints the token alone on
stdout, so `TOKEN=$(python -m bot credentials create --agent ci)` captures it; it is shown
once (only its sha256 is stored).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Final

from bot.review import REQUESTER_ID
from bot.service.principals import mint
from bot.store import AskStore, Credential, CredentialLimits
from bot.store.location import LocationError, open_store_at, store_location

_AGENT: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,199}$")
_CHANNEL: Final = re.compile(r"^[CG][A-Z0-9]{2,}$")
_LIMIT_MAX: Final = 100_000
_LABEL_MAX: Final = 200


class CommandError(Exception):
    """Bad input or an unknown id: the message says what, and the command exits 2."""


def main(argv: Sequence[str]) -> int:
    """Run one `credentials` command; the exit code (2: bad input)."""
    args = _parser().parse_args(list(argv))
    try:
        return asyncio.run(_run(args))
    except CommandError as error:
        print(f"credentials {args.command}: {error}", file=sys.stderr)
        return 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bot credentials",
        description="Agent credentials of the relay, kept hashed in the store.",
    )
    parser.add_argument("--db", help="the store (SLACK_QUESTIONS_DB): a SQLite file or a URL")
    # Also after the command (`credentials list --db X`); SUPPRESS keeps one given before.
    where = argparse.ArgumentParser(add_help=False)
    where.add_argument("--db", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    commands = parser.add_subparsers(dest="command", required=True)
    create = commands.add_parser(
        "create", parents=[where], help="make a credential; prints its token once"
    )
    create.add_argument("--agent", action="append", default=[], help="an agent id it may use")
    create.add_argument("--channel", action="append", default=[], help="a channel it may ask in")
    create.add_argument("--max-pending", type=int, help="pending asks at once (default 100)")
    create.add_argument("--creates-per-minute", type=int, help="new asks a minute (default 60)")
    create.add_argument("--max-waits", type=int, help="held waits at once (default 20)")
    create.add_argument("--label", default="", help="who or what holds it")
    create.add_argument("--admin", action="store_true", help="every ask and agent, like the token")
    create.add_argument(
        "--requester",
        help="the Slack user id (U…) every ask is on behalf of: a request naming another is "
        "refused, and policies may keep that person from approving",
    )
    commands.add_parser("list", parents=[where], help="every credential, without secrets")
    revoke = commands.add_parser(
        "revoke", parents=[where], help="stop a credential working (within 2 s)"
    )
    revoke.add_argument("id", help="the credential's id, from `list`")
    return parser


async def _run(args: argparse.Namespace) -> int:
    credential = _credential_of(args) if args.command == "create" else None
    store = await _open(args.db or os.environ.get("SLACK_QUESTIONS_DB", "").strip() or None)
    try:
        if credential is not None:
            token, made = credential
            await store.add_credential(made)
            print(token, flush=True)
            print(
                f"credential {made.id} created: the token above is shown once; "
                "keep it where the agent's own tools cannot read it",
                file=sys.stderr,
            )
        elif args.command == "list":
            for each in await store.credentials():
                print(_line(each))
        else:
            revoked = await store.revoke_credential(args.id, time.time())
            if revoked is None:
                raise CommandError(f"no credential {args.id!r} (see `credentials list`)")
            print(f"credential {revoked.id} revoked", file=sys.stderr)
    finally:
        await store.close()
    return 0


def _credential_of(args: argparse.Namespace) -> tuple[str, Credential]:
    """The new credential `create` asks for, and its token; `CommandError` if malformed."""
    problems = [f"agent id {a!r} is malformed" for a in args.agent if not _AGENT.match(a)]
    problems += [
        f"channel {c!r} must be a channel id like C0123456789"
        for c in args.channel
        if not _CHANNEL.match(c)
    ]
    if args.requester is not None and not REQUESTER_ID.match(args.requester):
        problems.append(f"requester {args.requester!r} must be a Slack user id like U0123ABCD")
    if not args.agent and not args.admin:
        problems.append("name at least one --agent ID (or --admin for every agent)")
    limits = {}
    for name in ("max_pending", "creates_per_minute", "max_waits"):
        value = getattr(args, name)
        if value is not None and not 1 <= value <= _LIMIT_MAX:
            problems.append(
                f"--{name.replace('_', '-')} must be from 1 to {_LIMIT_MAX}, not {value}"
            )
        elif value is not None:
            limits[name] = value
    if len(args.label) > _LABEL_MAX:
        problems.append(f"--label must be at most {_LABEL_MAX} characters")
    if problems:
        raise CommandError("; ".join(problems))
    return mint(
        agents=args.agent,
        channels=args.channel,
        limits=CredentialLimits(**limits),
        label=args.label,
        admin=args.admin,
        requester=args.requester,
        now=time.time(),
    )


async def _open(value: str | None) -> AskStore:
    """The store `value` names (the rules of SLACK_QUESTIONS_DB), made if it is a new file."""
    try:
        return await open_store_at(store_location(value))
    except LocationError as error:
        raise CommandError(str(error)) from error


def _line(credential: Credential) -> str:
    limits = credential.limits
    fields = [
        credential.id,
        f"label={credential.label or '-'}",
        "admin" if credential.admin else f"agents={','.join(credential.agents)}",
        f"channels={','.join(credential.channels) or 'configured'}",
        f"max_pending={limits.max_pending} creates_per_minute={limits.creates_per_minute}"
        f" max_waits={limits.max_waits}",
        f"created={_when(credential.created_at)}",
        f"requester={credential.requester or '-'}",
        f"revoked={_when(credential.revoked_at) if credential.revoked_at else '-'}",
    ]
    return "  ".join(fields)


def _when(moment: float) -> str:
    return datetime.fromtimestamp(moment, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


__all__ = ["CommandError", "main"]
