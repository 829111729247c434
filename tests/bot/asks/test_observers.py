"""The ask journal: an expired plan review gets its own log line, with its age."""

from __future__ import annotations

import logging

import pytest

from bot.review import ReviewPolicies, ReviewPolicy
from slack_emulator import ManualClock, SlackEmulator

from ..harness import CHANNEL, running_bot
from ..interactions.test_plan_review import ask_error, review


async def test_an_expired_review_is_one_line_naming_its_age(
    emu: SlackEmulator, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="bot.asks.lifecycle")
    clock = ManualClock()
    policy = ReviewPolicies(default=ReviewPolicy(expire_after=3600))
    async with running_bot(emu, review=policy, clock=clock) as bot:
        asking = bot.ask(review("# Plan\n\nDo it."))
        await bot.posted()
        await clock.sleeping()
        clock.advance(3600)
        await ask_error(asking)
        await bot.idle()
    expired = [r.getMessage() for r in caplog.records if " expired: " in r.getMessage()]
    assert len(expired) == 1
    assert f"channel={CHANNEL} who=- age=3600.0s" in expired[0]
