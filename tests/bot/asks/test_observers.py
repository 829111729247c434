"""The observers of asks: each transition told once, right after its write (and a refused
write told to nobody); an expired plan review gets its own log line, with its age."""

from __future__ import annotations

import asyncio
import logging

import pytest

from bot.asks.live import LiveAsk
from bot.asks.observers import AskObserver, Observers
from bot.review import ReviewPolicies, ReviewPolicy
from bot.store import AskEvent, AskRecord, AskState, EventKind, MemoryStore, Verdict
from provider import AskUserQuestionAnswer
from slack_emulator import ManualClock, SlackEmulator

from ..harness import ALICE, CHANNEL, request, running_bot
from ..interactions.test_one_click import DB
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


class WritingStore(MemoryStore):
    """A `MemoryStore` that notes each write it makes (or refuses) in `notes`."""

    def __init__(self, log: list[str]) -> None:
        super().__init__()
        self.notes = log

    async def add(self, record: AskRecord) -> tuple[AskRecord, bool]:
        stored, created = await super().add(record)
        self.notes.append(f"stored created {record.id}" if created else "refused created")
        return stored, created

    async def advance(self, record: AskRecord, event: AskEvent) -> bool:
        written = await super().advance(record, event)
        self.notes.append(f"{'stored' if written else 'refused'} {event.kind.value} {record.id}")
        return written

    async def settle(self, record: AskRecord, event: AskEvent) -> bool:
        written = await super().settle(record, event)
        self.notes.append(f"{'stored' if written else 'refused'} {event.kind.value} {record.id}")
        return written

    async def save(self, record: AskRecord, event: AskEvent) -> None:
        await super().save(record, event)
        self.notes.append(f"stored {event.kind.value} {record.id}")


class Recorder(AskObserver):
    """Notes in `log` what it is told."""

    def __init__(self, log: list[str]) -> None:
        self.log = log

    def created(self, record: AskRecord) -> None:
        self.log.append(f"told created {record.id}")

    def saved(self, record: AskRecord, event: AskEvent) -> None:
        self.log.append(f"told {event.kind.value} {record.id}")

    def posted(self, live: LiveAsk) -> None:
        self.log.append(f"told fully posted {live.record.id}")


async def test_each_transition_is_told_once_right_after_its_write(emu: SlackEmulator) -> None:
    log: list[str] = []
    async with running_bot(emu, store=WritingStore(log)) as bot:
        bot.provider.asks.observers.add(Recorder(log))
        asking = bot.ask(DB)
        message = await bot.posted()
        await emu.person(ALICE).click(message, text="SQLite")
        assert (await asking).answers[0].selected == ["SQLite"]
        await bot.idle()
    [ask_id] = {line.rsplit(" ", 1)[1] for line in log}
    assert log == [
        f"stored created {ask_id}",
        f"told created {ask_id}",
        f"stored posted {ask_id}",
        f"told posted {ask_id}",
        f"told fully posted {ask_id}",
        f"stored answered {ask_id}",
        f"told answered {ask_id}",
        f"stored shown {ask_id}",
        f"told shown {ask_id}",
    ]


async def test_a_click_decided_before_its_ack_wakes_its_agent_before_the_observers_hear(
    emu: SlackEmulator,
) -> None:
    log: list[str] = []

    async def agent() -> AskUserQuestionAnswer:
        answer = await bot.service.ask(request(DB))
        log.append("agent woke")
        return answer

    async with running_bot(emu, store=WritingStore(log)) as bot:
        bot.provider.asks.observers.add(Recorder(log))
        asking = asyncio.create_task(agent())
        message = await bot.posted()
        await emu.person(ALICE).click(message, text="SQLite")
        assert (await asking).answers[0].selected == ["SQLite"]
        await bot.idle()
    [ask_id] = {line.rsplit(" ", 1)[1] for line in log if line != "agent woke"}
    assert log[log.index(f"stored answered {ask_id}") :] == [
        f"stored answered {ask_id}",
        "agent woke",
        f"told answered {ask_id}",
        f"stored shown {ask_id}",
        f"told shown {ask_id}",
    ]


async def test_a_settlement_another_replica_wrote_first_is_told_to_nobody(
    emu: SlackEmulator,
) -> None:
    log: list[str] = []
    store = WritingStore(log)
    async with running_bot(emu, store=store) as bot:
        asks = bot.provider.asks
        asks.observers.add(Recorder(log))
        record, _ = await asks.create(request(DB))
        # Another replica ends it first (as a shared store would let it).
        theirs = record.model_copy(update={"state": AskState.FAILED})
        await store.settle(theirs, asks.event(theirs, EventKind.WITHDRAWN))
        log.clear()
        assert not await asks.settle(record.id, Verdict.WITHDRAWN, reason="the agent aborted")
        await bot.idle()
    assert log == [f"refused withdrawn {record.id}"]


class Failing(AskObserver):
    """An observer with a bug."""

    def created(self, record: AskRecord) -> None:
        raise RuntimeError("observer bug")


def test_an_observer_that_fails_is_logged_and_the_next_one_is_still_told(
    caplog: pytest.LogCaptureFixture,
) -> None:
    log: list[str] = []
    observers = Observers([Failing(), Recorder(log)])
    record = AskRecord(id="a1", questions=request(DB).questions, created_at=1.0)
    observers.created(record)
    assert log == ["told created a1"]
    assert [r.getMessage() for r in caplog.records] == ["an ask observer failed"]
