"""A blocking call re-issued while its ask is pending joins it instead of asking twice."""

from __future__ import annotations

import asyncio

from bot.mcp.calls import call_key
from bot.mcp.desk import QuestionDesk
from bot.service.server import Server
from provider.tool import NAME
from slack_emulator import SlackEmulator

from ..harness import ALICE
from ..service.test_relay import DB, ask_posts, posted
from .test_tools import client, texts


async def test_the_same_call_again_while_pending_joins_the_posted_ask(
    desk: QuestionDesk, server: Server, emu: SlackEmulator, era: str
) -> None:
    async with client(desk, era) as mcp:
        first = asyncio.create_task(mcp.call_tool(NAME, {"questions": [DB]}))
        message = await posted(emu)
        # The client lost the first call's stream and sends the call again.
        joined = asyncio.Event()

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            joined.set()  # the call's handler has joined (or posted) by its first progress

        again = asyncio.create_task(
            mcp.call_tool(NAME, {"questions": [DB]}, progress_callback=on_progress)
        )
        await asyncio.wait_for(joined.wait(), 10)
        await emu.person(ALICE).click(message, text="Postgres")
        # A second ask of its own would still be pending: this gather would never end.
        results = await asyncio.wait_for(asyncio.gather(first, again), 10)
    assert [texts(r) for r in results] == [
        ['{"answers":[{"id":"db","selected":["Postgres"]}]}']
    ] * 2
    assert len(await server.store.recent()) == 1
    assert len(ask_posts(emu)) == 1


async def test_once_answered_the_same_call_asks_again(
    desk: QuestionDesk, emu: SlackEmulator, era: str
) -> None:
    async with client(desk, era) as mcp:
        for n, label in ((1, "SQLite"), (2, "Postgres")):
            asking = asyncio.create_task(mcp.call_tool(NAME, {"questions": [DB]}))
            await emu.person(ALICE).click(await posted(emu, n), text=label)
            assert texts(await asking) == [f'{{"answers":[{{"id":"db","selected":["{label}"]}}]}}']


def test_the_key_is_the_agent_and_a_digest_of_the_arguments_in_any_key_order() -> None:
    one = call_key("mcp-1", {"questions": [{"id": "a", "question": "Q?"}]})
    same = call_key("mcp-1", {"questions": [{"question": "Q?", "id": "a"}]})
    other_agent = call_key("mcp-2", {"questions": [{"id": "a", "question": "Q?"}]})
    assert one == same
    assert one.startswith("mcp-1/")
    assert one.split("/")[1] == other_agent.split("/")[1]
    assert one != other_agent
