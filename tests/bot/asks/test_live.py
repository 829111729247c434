"""A live ask's posting lock: exclusive while anyone holds or awaits it, gone once nobody does."""

from __future__ import annotations

import asyncio

from bot.asks.live import LiveAsk
from bot.render import lay_out
from bot.store import AskRecord
from provider import AskUserQuestionRequest

REQUEST = AskUserQuestionRequest.model_validate(
    {"questions": [{"id": "q", "question": "Go?", "options": [{"label": "Yes"}]}]}
)


def _live() -> LiveAsk:
    record = AskRecord(id="a1", questions=REQUEST.questions, created_at=1.0)
    return LiveAsk(record, lay_out(record.request))


async def test_posting_is_held_by_one_at_a_time_in_the_order_they_came() -> None:
    live = _live()
    order: list[str] = []
    first_done, second_done = asyncio.Event(), asyncio.Event()

    async def post(name: str, done: asyncio.Event | None = None) -> None:
        async with live.posting():
            order.append(f"{name} in")
            if done is not None:
                await done.wait()
            order.append(f"{name} out")

    first = asyncio.create_task(post("first", first_done))
    await asyncio.sleep(0)
    second = asyncio.create_task(post("second", second_done))
    await asyncio.sleep(0)  # second awaits the lock
    first_done.set()
    await asyncio.sleep(0)  # first leaves; second is woken, not yet running
    third = asyncio.create_task(post("third"))  # must not slip in beside second
    for _ in range(5):
        await asyncio.sleep(0)
    assert order == ["first in", "first out", "second in"]
    second_done.set()
    await asyncio.gather(first, second, third)
    assert order == ["first in", "first out", "second in", "second out", "third in", "third out"]


async def test_posting_is_not_held_once_everyone_left_and_can_be_taken_again() -> None:
    live = _live()
    async with live.posting():
        inside = live.being_posted
    after = live.being_posted
    async with live.posting():
        again = live.being_posted
    assert (inside, after, again) == (True, False, True)


async def test_a_cancelled_waiter_leaves_posting_free() -> None:
    live = _live()
    release = asyncio.Event()

    async def hold() -> None:
        async with live.posting():
            await release.wait()

    holder = asyncio.create_task(hold())
    await asyncio.sleep(0)
    waiter = asyncio.create_task(hold())
    await asyncio.sleep(0)
    waiter.cancel()
    release.set()
    await holder
    await asyncio.gather(waiter, return_exceptions=True)
    after = live.being_posted
    async with asyncio.timeout(1), live.posting():
        again = live.being_posted
    assert (after, again) == (False, True)
