"""A thread reply's cost does not grow with the number of asks pending in other threads.

Counted, not timed: the Python lines of `bot/` and `provider/` that run while one reply is
handled (from the person's reply to the answered agent and an idle provider), through the
real provider on the emulator. Lines are the same however busy the machine is, so the
comparison is exact; a reply path that looked at every pending ask would add lines per ask.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from slack_emulator import ApiCall

from .harness import ALICE, CHANNEL, Bot

ROOT = Path(__file__).resolve().parents[2]
OURS = (str(ROOT / "bot") + "/", str(ROOT / "provider") + "/")
NAME = {"id": "name", "question": "Name the service"}


@contextmanager
def lines_run() -> Iterator[list[int]]:
    """Count the line events executed in bot/ and provider/ while inside (count in [0])."""
    count = [0]

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            count[0] += 1
        return local

    def global_(frame: FrameType, event: str, arg: Any) -> Any:
        # Called for each new frame and each resumed coroutine: trace only our own code.
        return local if frame.f_code.co_filename.startswith(OURS) else None

    previous = sys.gettrace()
    sys.settrace(global_)
    try:
        yield count
    finally:
        sys.settrace(previous)


async def pending(bot: Bot, count: int) -> list[asyncio.Task[Any]]:
    """`count` more asks, each in its own thread, posted and waiting."""
    target = len(bot.ask_posts()) + count
    asking = [bot.ask(NAME) for _ in range(count)]
    # One post in flight per channel: 2,000 take seconds, each a change the emulator wakes
    # its waiters on, so the posts are counted as they come, not all again at every change.
    calls = bot.emu.calls
    seen = len(calls)
    posted = target - count

    def all_posted() -> bool:
        nonlocal seen, posted
        posted += sum(_is_ask_post(call) for call in calls[seen:])
        seen = len(calls)
        return posted >= target

    await bot.emu.wait_for(all_posted, within=120, what=f"{count} asks posted")
    await bot.idle()
    return asking


def _is_ask_post(call: ApiCall) -> bool:
    metadata = call.params.get("metadata") or {}
    return call.method == "chat.postMessage" and call.ok and bool(metadata.get("event_type"))


async def reply_lines(bot: Bot) -> int:
    """Lines run to handle one reply that answers a question in its own thread."""
    (asking,) = await pending(bot, 1)
    message = bot.now(bot.emu.message(CHANNEL, str(bot.ask_posts()[-1].response["ts"])))
    # The reply comes on a connection in use, as every time: 2,000 posts take longer than
    # the emulator keeps an idle one (a fresh connection's connect lets other work run
    # before the reply, and a status line is then sent in one write, not two).
    await bot.emu.person(ALICE).open_home()
    await bot.idle()
    with lines_run() as count:
        await bot.emu.person(ALICE).reply(CHANNEL, message.ts, "billing")
        answer = await asking
        await bot.idle()
    assert answer.answers[0].custom == "billing"
    return count[0]


# Two thousand asks posted through the emulator take seconds by their nature: .ci/run runs it.
@pytest.mark.slow
async def test_a_reply_runs_the_same_code_with_2000_asks_pending_as_with_10(bot: Bot) -> None:
    waiting = await pending(bot, 10)
    await reply_lines(bot)  # warm-up: first-time work (imports, caches) is not the reply's
    with_10 = await reply_lines(bot)
    waiting += await pending(bot, 1_990)
    with_2000 = await reply_lines(bot)
    assert with_10 > 100  # the reply's handling was traced
    assert with_2000 == with_10
    for task in waiting:
        task.cancel()
    await asyncio.gather(*waiting, return_exceptions=True)
