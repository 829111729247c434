"""The emulator's lifecycle, settings, queries and the workspace directory."""

from __future__ import annotations

import pytest
from slack_sdk.web.async_client import AsyncWebClient

from slack_emulator import SlackEmulator

from .conftest import ALICE, QUESTIONS


async def test_it_starts_on_a_free_port_and_stops_cleanly() -> None:
    emu = SlackEmulator()
    await emu.start()
    assert emu.url.startswith("http://127.0.0.1:")
    assert emu.api_url == f"{emu.url}/api/"
    client = AsyncWebClient(token=emu.bot_token, base_url=emu.api_url)
    assert (await client.auth_test())["ok"] is True
    await emu.stop()
    await emu.stop()
    with pytest.raises(RuntimeError, match="not running"):
        _ = emu.url


async def test_it_refuses_to_start_twice() -> None:
    async with SlackEmulator() as emu:
        with pytest.raises(RuntimeError, match="already running"):
            await emu.start()


async def test_delivery_accepts_only_http_or_socket(emu: SlackEmulator) -> None:
    with pytest.raises(ValueError, match="delivery"):
        emu.delivery = "carrier-pigeon"  # type: ignore[assignment]


async def test_waiting_for_something_that_never_happens_times_out_with_a_reason(
    emu: SlackEmulator,
) -> None:
    with pytest.raises(TimeoutError, match=r"call #1 to chat\.update"):
        await emu.wait_for_call("chat.update", within=0.05)


async def test_unknown_messages_and_threads_are_lookup_errors(emu: SlackEmulator) -> None:
    with pytest.raises(LookupError, match=r"no message 1\.000000"):
        emu.message(QUESTIONS, "1.000000")
    with pytest.raises(LookupError, match="no thread"):
        emu.thread(QUESTIONS, "1.000000")


def test_a_channel_with_an_unknown_member_is_refused() -> None:
    emu = SlackEmulator()
    with pytest.raises(LookupError, match="no user 'U0GHOST'"):
        emu.workspace.add_channel("C1", name="c", members=["U0GHOST"])


def test_members_can_join_and_leave() -> None:
    emu = SlackEmulator()
    emu.workspace.add_user(ALICE, name="alice")
    emu.workspace.add_channel(QUESTIONS, name="agent-questions")
    assert emu.workspace.add_member(QUESTIONS, ALICE).members == (ALICE,)
    assert emu.workspace.remove_member(QUESTIONS, ALICE).members == ()
