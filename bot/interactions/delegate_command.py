"""`/agent-questions delegate …`: set, show and turn off one's out-of-office delegate.

The words are read by `bot.delegation.parse`; this module checks the person named with
Slack (users.info: a bot, someone deactivated or unknown is refused), reads a date in the
caller's own time zone (users.info `tz`, UTC when Slack does not say) and keeps the
delegation in the store, which every replica reads.
"""

from __future__ import annotations

import logging
from typing import Final

from bot.clock import Clock
from bot.delegation import (
    LONGEST,
    Refused,
    SetTo,
    Show,
    TurnOff,
    active,
    away_line,
    end_of_day,
    loop_through,
    off_reply,
    parse,
    past_refusal,
    person_refusal,
    route,
    set_reply,
    shown_reply,
    too_far_refusal,
    zone_or_utc,
)
from bot.interactions.team_commands import CommandCall, Subcommand, reply
from bot.slack.api import SlackCallFailed, SlackClient
from bot.slack.messages import AskMessages
from bot.slack.users import look_up
from bot.store import AskStore, Delegation
from bot.store.audit import AuditEntry, AuditKind, AuditPayload

log = logging.getLogger(__name__)

# The waiting asks a new delegation is announced in, newest first: a thread line each, at
# Slack's posting rate, so a reviewer of hundreds of asks does not flood the channel.
ANNOUNCED: Final = 10

USAGE: Final = (
    "delegate @deputy until 2026-12-24 — while you are away, asks that name you also go to "
    "@deputy (or for 3d; delegate off ends it; delegate alone shows it)"
)


class DelegateCommand:
    """The `delegate` subcommand."""

    def __init__(
        self, store: AskStore, client: SlackClient, clock: Clock, messages: AskMessages
    ) -> None:
        self._store = store
        self._client = client
        self._clock = clock
        self._messages = messages

    def subcommand(self) -> Subcommand:
        """Its entry in `/agent-questions`' subcommands."""
        return Subcommand(USAGE, self.run)

    async def run(self, call: CommandCall) -> None:
        """Answer one `delegate …`, ephemerally."""
        parsed = parse(call.args)
        now = self._clock.now()
        if isinstance(parsed, Refused):
            await reply(call.respond, parsed.text)
        elif isinstance(parsed, Show):
            await reply(call.respond, shown_reply(await self._current(call.user), now))
        elif isinstance(parsed, TurnOff):
            current = await self._current(call.user)
            if current is not None and current.active(now):
                await self._store.end_delegation(call.user, now)
                await self._audit(AuditKind.DELEGATION_ENDED, call.user, f"to {current.delegate}")
            await reply(call.respond, off_reply(current, now))
        else:
            await reply(call.respond, await self._set(call.user, parsed, now))

    async def _current(self, user: str) -> Delegation | None:
        return next((d for d in await self._store.delegations() if d.delegator == user), None)

    async def _set(self, user: str, parsed: SetTo, now: float) -> str:
        """Check the delegate and the end, store the delegation; what the person is told."""
        if parsed.delegate == user:
            return person_refusal(user, "yourself")
        problem = await self._check_person(parsed.delegate)
        if problem is not None:
            return problem
        zone = await self._zone_of(user)
        if parsed.day is not None:
            until = end_of_day(parsed.day, zone)
            if until <= now:
                return past_refusal(parsed.day, zone)
            far = parsed.day.isoformat()
        else:
            assert parsed.seconds is not None
            until = now + parsed.seconds
            far = parsed.span
        if until - now > LONGEST.total_seconds():
            return too_far_refusal(far)
        delegation = Delegation(
            delegator=user,
            delegate=parsed.delegate,
            starts_at=now,
            until=until,
            time_zone=zone,
            set_by=user,
        )
        await self._store.set_delegation(delegation)
        # Who may answer (and approve) changed: the decision log says who, to whom, until.
        await self._audit(
            AuditKind.DELEGATED, user, f"to {delegation.delegate} until {delegation.until:.0f}"
        )
        log.info("%s delegates to %s until %s", user, parsed.delegate, until)
        in_force = active(await self._store.delegations(), now)
        text = set_reply(delegation, parsed, loop_through(user, in_force))
        told = await self._announce(user, in_force)
        if told:
            text += (
                f"\nSaid so in the thread of {told} ask{'' if told == 1 else 's'} waiting for you."
            )
        return text

    async def _announce(self, user: str, in_force: dict[str, Delegation]) -> int:
        """Say in the threads of the posted asks waiting for `user` who is asked for them now
        (a reply mentions the delegate, so they hear of it); how many were told."""
        line = f"{away_line(route(user, in_force))}."
        waiting = [
            record
            for record in reversed(await self._store.pending())
            if record.message_ts and user in self._messages.names(record)
        ]
        told = 0
        for record in waiting[:ANNOUNCED]:
            told += await self._messages.remind(record, line)
        return told

    async def _audit(self, kind: AuditKind, user: str, detail: str) -> None:
        entry = AuditEntry(
            at=self._clock.now(), kind=kind, actor=user, payload=AuditPayload(detail=detail)
        )
        await self._store.audit_append(entry)

    async def _check_person(self, delegate: str) -> str | None:
        """Why `delegate` cannot be one (None: they can). Fail closed: when Slack cannot
        say who they are, nothing is set."""
        try:
            person = await look_up(self._client, delegate)
        except SlackCallFailed as failed:
            if failed.error == "user_not_found":
                return person_refusal(delegate, "unknown")
            return (
                f"Slack could not tell me who <@{delegate}> is ({failed.error}), so nothing "
                "changed; please try again."
            )
        if person.automated:
            return person_refusal(delegate, "bot")
        if person.deleted:
            return person_refusal(delegate, "deleted")
        return None

    async def _zone_of(self, user: str) -> str:
        """The person's time zone as Slack has it; UTC when Slack cannot say."""
        try:
            person = await look_up(self._client, user)
        except SlackCallFailed as failed:
            log.warning("no time zone for %s: %s", user, failed.error)
            return zone_or_utc(None)
        return zone_or_utc(person.tz)
