"""The tool card says why it asks, through the real hook process: the `[[tools]]` rule that
asks is named; with none matching, the card says the default asks."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.service.server import Server
from slack_emulator import SlackEmulator

from ..harness import ALICE
from ..service.harness import in_process
from .hook import Hook, posted, pre_tool_use

GIT_ASKS = """
[[tools]]
name = "git-writes"
tool = "Bash"
args = { command = "git *" }
decision = "ask"
"""


@pytest.fixture
async def ruled(emu: SlackEmulator, tmp_path: Path) -> AsyncIterator[Server]:
    policy = tmp_path / "review.toml"
    policy.write_text(GIT_ASKS)
    async with in_process(
        emu, tmp_path / "asks.db", SLACK_QUESTIONS_REVIEW_POLICY=str(policy)
    ) as running:
        yield running


async def contexts_of_card(server: Server, emu: SlackEmulator, command: str) -> list[str]:
    """The context lines of the card the hook's `command` call is asked on (then denied)."""
    hook = await Hook.start(server.url, pre_tool_use("Bash", {"command": command}))
    message = await posted(emu)
    texts = [
        element["text"]
        for block in message.blocks
        if block["type"] == "context"
        for element in block["elements"]
    ]
    await emu.person(ALICE).click(message, text="Deny")
    await hook.finished()
    return texts


async def test_the_card_names_the_rule_that_asks(ruled: Server, emu: SlackEmulator) -> None:
    assert await contexts_of_card(ruled, emu, "git push") == ["Rule `git-writes` asks."]


async def test_the_card_says_the_default_asks_when_no_rule_matches(
    ruled: Server, emu: SlackEmulator
) -> None:
    assert await contexts_of_card(ruled, emu, "make build") == [
        "No rule matched: the default asks."
    ]
