"""bot/claims.py: which asks offer "Claim" (a pool, under a policy that says when a claim
lapses), when a claim lapses, and the policy key that sets it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from bot.claims import is_pool, lapses_at, offers_claims, pool_of
from bot.review import ReviewPolicy, load_policies
from bot.store import AskRecord
from provider import AskUserQuestionItem

GROUP = "S0REVIEWER"
ALICE = "U0ALICE001"
BOB = "U0BOB00002"
LAPSING = ReviewPolicy.model_validate({"claim_lapse": "30m"})  # as a TOML file gives it


def test_claim_lapse_is_parsed_like_the_sla_durations() -> None:
    assert LAPSING.claim_lapse == 1800.0


def test_a_policy_that_needs_two_approvals_refuses_a_claim_lapse() -> None:
    with pytest.raises(ValidationError, match="approved by its holder alone"):
        ReviewPolicy(approvals=2, claim_lapse=1800.0)


@pytest.mark.parametrize(
    ("ids", "pool"),
    [
        ((GROUP,), True),
        ((ALICE, BOB), True),
        ((ALICE,), False),
        ((ALICE, ALICE), False),
        ((), False),
    ],
)
def test_a_pool_is_a_user_group_or_more_than_one_person(ids: tuple[str, ...], pool: bool) -> None:
    assert is_pool(ids) is pool


def test_the_pool_is_the_policys_reviewers_else_the_responders() -> None:
    assert pool_of(ReviewPolicy(reviewers=(GROUP,)), [ALICE, BOB]) == (GROUP,)
    assert pool_of(ReviewPolicy(), [ALICE, BOB]) == (ALICE, BOB)


def test_anyone_in_the_channel_is_no_pool_to_claim_from() -> None:
    assert pool_of(LAPSING, "*") == ()
    assert not offers_claims(LAPSING, "*")


def test_claims_are_offered_only_where_the_policy_says_when_they_lapse() -> None:
    assert offers_claims(LAPSING, [GROUP])
    assert not offers_claims(ReviewPolicy(), [GROUP])


def test_a_claim_lapses_its_policys_time_after_it_was_made() -> None:
    question = AskUserQuestionItem(id="q", question="Which?")
    record = AskRecord(id="a1", questions=[question], created_at=1000.0)
    assert lapses_at(record, LAPSING) is None
    held = record.model_copy(update={"holder": ALICE, "claimed_at": 1500.0})
    assert lapses_at(held, LAPSING) == 3300.0
    assert lapses_at(held, ReviewPolicy()) is None


def test_the_readmes_policy_example_loads_and_its_questions_offer_claims(tmp_path: Path) -> None:
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    [example] = [b for b in re.findall(r"```toml\n(.*?)```", readme, re.S) if "claim_lapse" in b]
    policy = tmp_path / "review.toml"
    policy.write_text(example)
    questions = load_policies(policy).kinds["question"]
    assert questions.claim_lapse == 1800.0
    assert offers_claims(questions, "*")
