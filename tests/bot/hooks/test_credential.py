"""The hook with an agent credential: each Claude Code session asks as a session under the
credential's agent (SLACK_QUESTIONS_AGENT_ID), and sees only its own asks."""

from __future__ import annotations

from bot.service.server import Server
from slack_emulator import SlackEmulator

from ..harness import ALICE
from ..service.credentials import credential
from .hook import Hook, posted, pre_tool_use

QUESTION = {
    "question": "Which database?",
    "header": "Database",
    "options": [{"label": "Postgres"}, {"label": "SQLite"}],
    "multiSelect": False,
}


async def test_with_a_credential_the_hook_asks_as_a_session_under_its_agent(
    server: Server, emu: SlackEmulator
) -> None:
    token = await credential(server, "claude")
    event = pre_tool_use("AskUserQuestion", {"questions": [QUESTION]})
    hook = await Hook.start(
        server.url,
        event,
        SLACK_QUESTIONS_RELAY_TOKEN=token,
        SLACK_QUESTIONS_AGENT_ID="claude",
    )
    await emu.person(ALICE).click(await posted(emu), text="SQLite")
    finished = await hook.finished()
    assert finished.code == 0, finished.stderr
    [record] = await server.store.recent()
    assert record.agent_id == f"claude/{event['session_id']}"


async def test_with_a_credential_and_no_agent_id_the_hook_is_refused_naming_the_agents(
    server: Server, emu: SlackEmulator
) -> None:
    token = await credential(server, "claude")
    event = pre_tool_use("AskUserQuestion", {"questions": [QUESTION]})
    finished = await (
        await Hook.start(server.url, event, SLACK_QUESTIONS_RELAY_TOKEN=token)
    ).finished()
    assert finished.code == 1
    assert "AGENT_NOT_ALLOWED" in finished.stderr
    assert "it may ask as: claude" in finished.stderr
    assert emu.calls_to("chat.postMessage") == []
