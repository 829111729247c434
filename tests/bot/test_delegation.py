"""Delegation chains resolved without loops, and when a delegation ends in words (pure)."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from bot.delegation import active, loop_through, route, until_words
from bot.store import Delegation

NOW = datetime(2026, 12, 3, 12, tzinfo=UTC).timestamp()


def away(delegator: str, delegate: str, *, until: float = NOW + 86400) -> Delegation:
    return Delegation(
        delegator=delegator, delegate=delegate, starts_at=NOW, until=until, set_by=delegator
    )


def in_force(*delegations: Delegation) -> dict[str, Delegation]:
    return active(delegations, NOW)


def test_someone_not_away_is_asked_themselves() -> None:
    found = route("alice", in_force(away("bob", "carol")))
    assert (found.asked, found.via, found.loop) == ("alice", (), False)


def test_a_chain_is_followed_to_its_end() -> None:
    found = route("alice", in_force(away("alice", "bob"), away("bob", "carol")))
    assert (found.asked, [d.delegator for d in found.via], found.loop) == (
        "carol",
        ["alice", "bob"],
        False,
    )


def test_a_loop_stops_before_the_first_repeat() -> None:
    found = route(
        "alice", in_force(away("alice", "bob"), away("bob", "carol"), away("carol", "bob"))
    )
    assert (found.asked, found.loop) == ("carol", True)


def test_an_expired_or_ended_delegation_is_not_in_force() -> None:
    expired = away("alice", "bob", until=NOW)
    ended = away("carol", "dave").model_copy(update={"ended_at": NOW - 1})
    assert in_force(expired, ended) == {}


def test_the_loop_a_delegation_closes_runs_from_its_delegator_back_to_them() -> None:
    delegations = in_force(away("alice", "bob"), away("bob", "carol"), away("carol", "alice"))
    assert loop_through("carol", delegations) == ("carol", "alice", "bob", "carol")


def test_a_loop_further_on_is_not_the_one_this_delegation_closed() -> None:
    delegations = in_force(away("alice", "bob"), away("bob", "carol"), away("carol", "bob"))
    assert loop_through("alice", delegations) == ()


def test_a_days_end_reads_as_that_day_in_the_delegators_zone() -> None:
    ends = datetime(2026, 12, 25, tzinfo=ZoneInfo("America/New_York")).timestamp()
    delegation = away("alice", "bob", until=ends).model_copy(
        update={"time_zone": "America/New_York"}
    )
    assert until_words(delegation) == "Dec 24"


def test_a_zone_this_machine_does_not_know_reads_as_utc() -> None:
    ends = datetime(2026, 12, 25, tzinfo=UTC).timestamp()
    delegation = away("alice", "bob", until=ends).model_copy(update={"time_zone": "Mars/Olympus"})
    assert until_words(delegation) == "Dec 24"
