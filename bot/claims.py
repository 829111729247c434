"""Claims: one person of a pool takes an ask, so two people do not work the same one.

An ask is *sent to a pool* when who may answer it is a user group or several people (never
`*`: anyone in the channel is nobody in particular to hand it back to). Where its policy sets
`claim_lapse`, its message offers "Claim" and "Reassign…"; the holder (`AskRecord.holder`)
alone may answer until they release it, hand it on, or the claim lapses and it returns to
the pool. Pure words and rules, no I/O: the handlers are bot/interactions/claims.py, the
lapse timers bot/asks/claim_lapses.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from bot.review import ReviewPolicy
from bot.store import AskRecord

ANYONE: Final = "*"


def pool_of(policy: ReviewPolicy, responders: Sequence[str] | str) -> tuple[str, ...]:
    """The user and group ids an ask under `policy` is sent to: its reviewers, else the
    configured responders (`*`, anyone: no ids)."""
    if policy.reviewers:
        return policy.reviewers
    if responders == ANYONE or isinstance(responders, str):
        return ()
    return tuple(responders)


def is_pool(ids: Sequence[str]) -> bool:
    """Whether `ids` name a pool: a user group, or more than one person."""
    return any(i.startswith("S") for i in ids) or len(set(ids)) > 1


def offers_claims(policy: ReviewPolicy, responders: Sequence[str] | str) -> bool:
    """Whether an ask under `policy` offers "Claim": its policy says when a claim lapses
    (so no claim holds an ask forever) and it is sent to a pool."""
    return policy.claim_lapse is not None and is_pool(pool_of(policy, responders))


def lapses_at(record: AskRecord, policy: ReviewPolicy) -> float | None:
    """When the ask's claim lapses; None: nobody holds it, or claims never lapse."""
    if record.holder is None or record.claimed_at is None or policy.claim_lapse is None:
        return None
    return record.claimed_at + policy.claim_lapse


def claimed_line(user: str, noun: str) -> str:
    """The thread line of a claim."""
    return f"🙋 <@{user}> claimed {noun}."


def released_line(user: str, noun: str, pool: str) -> str:
    """The thread line of a release: back with the pool (`pool`: its mentions)."""
    return f"<@{user}> released {noun}: it is back with {pool or 'the pool'}."


def lapsed_line(user: str, noun: str, pool: str, after: str) -> str:
    """The thread line of a claim that ran out (`after`: how long it held, spoken)."""
    return (
        f"<@{user}>'s claim on {noun} lapsed after {after}: it is back with {pool or 'the pool'}."
    )


def reassigned_line(by: str, to: str) -> str:
    """The thread line of a hand-over; the mention of `to` makes Slack notify them."""
    return f"↪️ <@{by}> handed this to <@{to}>."


def held_refusal(holder: str, noun: str) -> str:
    """What someone else who tries to answer or claim a held ask is told."""
    return f"🙋 <@{holder}> has claimed {noun}: only they may answer it now, so nothing changed."
