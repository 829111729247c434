"""Change notification: a waiter wakes on a change, and a cancelled waiter ends even when the
cancellation arrives together with a change."""

from __future__ import annotations

import asyncio

import pytest

from slack_emulator.changes import Changes, NotAnEmulatorChange


async def test_a_waiter_cancelled_as_a_change_arrives_ends_cancelled() -> None:
    changes = Changes()
    waiting = asyncio.create_task(changes.wait_until(lambda: False, within=3600, what="never"))
    await asyncio.sleep(0)  # one turn: the task is now waiting for a change
    changes.notify()
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(waiting, 1.0)


async def test_a_waiter_returns_once_its_condition_holds_after_a_change() -> None:
    changes = Changes()
    state = {"done": False}
    waiting = asyncio.create_task(changes.wait_until(lambda: state["done"], within=5, what="done"))
    await asyncio.sleep(0)
    state["done"] = True
    changes.notify()
    await asyncio.wait_for(waiting, 1.0)


async def test_a_condition_come_true_without_a_change_fails_rather_than_waits_it_out() -> None:
    changes = Changes()
    state = {"done": False}
    asyncio.get_running_loop().call_soon(state.update, {"done": True})
    with pytest.raises(NotAnEmulatorChange, match="done came true without an emulator change"):
        await changes.wait_until(lambda: state["done"], within=0.05, what="done")


async def test_a_condition_still_false_when_the_time_is_up_times_out() -> None:
    changes = Changes()
    with pytest.raises(TimeoutError, match=r"timed out after 0\.01 s waiting for never"):
        await changes.wait_until(lambda: False, within=0.01, what="never")
