"""Out-of-office delegation: who is asked when a person an ask names is away, and the words
of `/agent-questions delegate`.

A delegation (`bot.store.Delegation`) sends the asks that name its delegator (by user id: as
a responder, a reviewer, or an escalation target once escalated) to its delegate too. Chains
are followed (alice → bob → carol: carol is asked) and stop at the first repeat, so a loop
(alice → bob → alice) asks the last person before it; everyone named stays askable. A
delegate answers exactly as the delegator could, never more (bot/interactions/approvals.py).
Pure: no I/O, the store and Slack are the callers'.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Final, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.review import ReviewPolicy
from bot.store import AskRecord, Delegation

UTC_ZONE: Final = "UTC"
EXAMPLE: Final = "`/agent-questions delegate @deputy until 2026-12-24`"
FOR_EXAMPLE: Final = "`/agent-questions delegate @deputy for 3d`"
# How far ahead a delegation may reach: a bound, so a typo of a year is caught.
LONGEST: Final = timedelta(days=366)

# `<@U0123|name>` (Slack escapes a picked person so) or a bare user id.
_MENTION = re.compile(r"^<@([UW][A-Z0-9]{2,})(?:\|[^>]*)?>$|^([UW][A-Z0-9]{2,})$")
_ISO_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
_SPAN = re.compile(r"^(\d+)\s*([hdw])$")
_SPAN_SECONDS: Final = {"h": 3600, "d": 86400, "w": 7 * 86400}
_SPAN_WORDS: Final = {"h": "hour", "d": "day", "w": "week"}


@dataclass(frozen=True)
class Route:
    """Who is asked for `named`: `asked`, after the away people in `via` (from `named` on;
    empty: `named` is not away). `loop`: the chain came back to someone already on it."""

    named: str
    asked: str
    via: tuple[Delegation, ...] = ()
    loop: bool = False


def named_people(
    record: AskRecord, policy: ReviewPolicy, responders: Sequence[str] | Literal["*"]
) -> list[str]:
    """The people (user ids, not groups) an ask names: its policy's reviewers, else the
    responders, and its escalation targets once it escalated. `*` names nobody."""
    named = list(policy.reviewers) or ([] if responders == "*" else list(responders))
    if record.escalated_at is not None:
        named += policy.escalate_to
    return [person for person in dict.fromkeys(named) if not person.startswith("S")]


def active(delegations: Iterable[Delegation], now: float) -> dict[str, Delegation]:
    """The delegations in force at `now`, by delegator (expired and ended ones do nothing)."""
    return {d.delegator: d for d in delegations if d.active(now)}


def route(named: str, by_delegator: Mapping[str, Delegation]) -> Route:
    """Follow `named`'s delegations to the person asked, stopping at the first repeat."""
    seen = [named]
    via: list[Delegation] = []
    loop = False
    current = named
    while current in by_delegator:
        delegation = by_delegator[current]
        if delegation.delegate in seen:
            loop = True
            break
        via.append(delegation)
        seen.append(delegation.delegate)
        current = delegation.delegate
    return Route(named, current, tuple(via), loop)


def routes(named: Iterable[str], by_delegator: Mapping[str, Delegation]) -> list[Route]:
    """The routes of the named people who are away, in the order named."""
    found = [route(person, by_delegator) for person in dict.fromkeys(named)]
    return [r for r in found if r.via]


def acting_for(user: str, named: Iterable[str], by_delegator: Mapping[str, Delegation]) -> set[str]:
    """The named people `user` is asked for (they are away, and their chain ends at `user`)."""
    return {r.named for r in routes(named, by_delegator) if r.asked == user}


def loop_through(delegator: str, by_delegator: Mapping[str, Delegation]) -> tuple[str, ...]:
    """The loop `delegator`'s delegation closes, from them back to them (empty: none)."""
    chain = [delegator]
    current = delegator
    while current in by_delegator:
        current = by_delegator[current].delegate
        if current == delegator:
            return (*chain, delegator)
        if current in chain:
            return ()  # a loop further on, which this delegation did not close
        chain.append(current)
    return ()


# --- time ------------------------------------------------------------------------------------


def zone_or_utc(name: str | None) -> str:
    """`name` if it is an IANA time zone this machine knows, else UTC."""
    if not name:
        return UTC_ZONE
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return UTC_ZONE
    return name


def end_of_day(day: date, zone: str) -> float:
    """The moment `day` ends in `zone` (the next day's midnight there), epoch seconds."""
    return datetime.combine(day + timedelta(days=1), time(0), ZoneInfo(zone)).timestamp()


def until_words(delegation: Delegation) -> str:
    """When the delegation ends, as its delegator would say it: "Dec 24" for a day's end in
    their time zone, else the moment in Slack's date token (each reader's local time)."""
    # A zone this machine no longer knows (an older tzdata) reads as UTC rather than fail.
    zone = ZoneInfo(zone_or_utc(delegation.time_zone))
    ends = datetime.fromtimestamp(delegation.until, zone)
    if ends.time() == time(0):
        return _day_words((ends - timedelta(days=1)).date())
    fallback = datetime.fromtimestamp(delegation.until, ZoneInfo(UTC_ZONE))
    return (
        f"<!date^{int(delegation.until)}^{{date_short}} {{time}}|"
        f"{fallback.strftime('%Y-%m-%d %H:%M')} UTC>"
    )


def _day_words(day: date) -> str:
    return f"{day.strftime('%b')} {day.day}"


def mention(user: str) -> str:
    """A user id as a Slack mention."""
    return f"<@{user}>"


def away_line(found: Route) -> str:
    """What an ask's message says of one away person: "@alice is away until Dec 24 — asking
    @bob", naming the others away on the way."""
    first = found.via[0]
    line = f"{mention(first.delegator)} is away until {until_words(first)} — asking {mention(found.asked)}"
    also = [f"{mention(d.delegator)} until {until_words(d)}" for d in found.via[1:]]
    if also:
        line += f" ({', '.join(also)} away too)"
    return line


# --- the command -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Show:
    """`delegate` alone: what is set now."""


@dataclass(frozen=True)
class TurnOff:
    """`delegate off`."""


@dataclass(frozen=True)
class SetTo:
    """`delegate @deputy until DATE` (`day`) or `… for 3d` (`seconds`, `span` as typed)."""

    delegate: str
    day: date | None = None
    seconds: float | None = None
    span: str = ""


@dataclass(frozen=True)
class Refused:
    """Input that says nothing we can do: what was wrong, with an example."""

    text: str


Parsed = Show | TurnOff | SetTo | Refused


def parse(args: str) -> Parsed:
    """The words after `delegate`, read; each mistake is named, with an example."""
    words = args.split()
    if not words:
        return Show()
    if [w.lower() for w in words] == ["off"]:
        return TurnOff()
    matched = _MENTION.match(words[0])
    if matched is None:
        return Refused(
            f"Name your delegate with an @-mention first (pick them from Slack's list), "
            f"e.g. {EXAMPLE}; `{_shown(words[0])}` is not one."
        )
    delegate = matched.group(1) or matched.group(2)
    if len(words) < 3 or words[1].lower() not in ("until", "for"):
        return Refused(f"Say until when after the person: {EXAMPLE} or {FOR_EXAMPLE}.")
    when = " ".join(words[2:])
    if words[1].lower() == "until":
        day = _iso_day(when)
        if day is None:
            return Refused(
                f"`{_shown(when)}` is not a date I can read: write it as YYYY-MM-DD, "
                f"e.g. {EXAMPLE}."
            )
        return SetTo(delegate, day=day)
    span = _SPAN.match(when.lower())
    if span is None or int(span.group(1)) == 0:
        return Refused(
            f"`{_shown(when)}` is not a length of time I can read: write it like 12h, 3d or "
            f"2w, e.g. {FOR_EXAMPLE}."
        )
    count, unit = int(span.group(1)), span.group(2)
    words_of = f"{count} {_SPAN_WORDS[unit]}{'' if count == 1 else 's'}"
    return SetTo(delegate, seconds=float(count * _SPAN_SECONDS[unit]), span=words_of)


def _iso_day(text: str) -> date | None:
    matched = _ISO_DATE.match(text.strip())
    if matched is None:
        return None
    try:
        return date(int(matched.group(1)), int(matched.group(2)), int(matched.group(3)))
    except ValueError:
        return None


def _shown(text: str) -> str:
    # Quoted back in a code span: a backtick would close it, and mrkdwn's `<` starts a mention.
    return text.replace("`", "'").replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


PersonProblem = Literal["yourself", "bot", "deleted", "unknown"]


def person_refusal(delegate: str, problem: PersonProblem) -> str:
    """Why `delegate` cannot be one, with an example."""
    who = mention(delegate)
    return {
        "yourself": f"You cannot be your own delegate: name someone else, e.g. {EXAMPLE}.",
        "bot": f"{who} is a bot: a delegate must be a person who can answer, e.g. {EXAMPLE}.",
        "deleted": f"{who} is deactivated in this workspace: name someone active, e.g. {EXAMPLE}.",
        "unknown": f"{who} is not in this workspace: name someone who is, e.g. {EXAMPLE}.",
    }[problem]


def past_refusal(day: date, zone: str) -> str:
    """A date that is over already where the person is."""
    return (
        f"{day.isoformat()} is already over ({zone_words(zone)}): pick today or a later day, "
        f"e.g. {EXAMPLE}."
    )


def too_far_refusal(day_or_span: str) -> str:
    """A delegation reaching past `LONGEST`."""
    return (
        f"{day_or_span} is more than a year away: a delegation lasts a year at most, "
        f"e.g. {EXAMPLE}."
    )


def zone_words(zone: str) -> str:
    """Which time zone a date was read in, and why."""
    if zone == UTC_ZONE:
        return "UTC: Slack did not tell me your time zone"
    return f"{zone}, your time zone in Slack"


def set_reply(delegation: Delegation, parsed: SetTo, loop: Sequence[str]) -> str:
    """What the person who set a delegation is told: until when, read in which zone, and any
    loop it makes."""
    who = mention(delegation.delegate)
    if parsed.day is not None:
        until = f"Until the end of {parsed.day.strftime('%a')} {_day_words(parsed.day)} ({zone_words(delegation.time_zone)})"
    else:
        until = f"For {parsed.span}, until {until_words(delegation)}"
    text = (
        f"{until}, asks that name you also go to {who}, who may answer them as you could. "
        f"`/agent-questions delegate off` ends it."
    )
    if loop:
        chain = " → ".join(mention(u) for u in loop)
        text += (
            f"\nThis makes a loop: {chain}. Asks stop at the first repeat, so each of you "
            "is still asked."
        )
    return text


def shown_reply(delegation: Delegation | None, now: float) -> str:
    """`delegate` alone: the person's delegation in force, or that there is none."""
    if delegation is None or not delegation.active(now):
        return (
            f"You have no delegate now: asks that name you go to you alone. Set one with {EXAMPLE}."
        )
    return (
        f"Until {until_words(delegation)}, asks that name you also go to "
        f"{mention(delegation.delegate)}. `/agent-questions delegate off` ends it."
    )


def off_reply(delegation: Delegation | None, now: float) -> str:
    """`delegate off`: what was turned off, if anything."""
    if delegation is None or not delegation.active(now):
        return "You have no delegate to turn off: asks that name you go to you alone."
    return (
        f"Your delegation to {mention(delegation.delegate)} is off: asks that name you "
        "go to you alone again."
    )
