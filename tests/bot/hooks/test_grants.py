"""Standing grants of tool calls, through the real hook process: a grant covering the call
allows it with no Slack message posted and one answered event naming it; a call it does not
cover (another session, expired, revoked) is asked in Slack; a deny rule refuses even a
granted call; a grant stored through one replica decides a call made on another.

The grants are stored as the Slack side would store them (`AskStore.add_grant`)."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.service.server import Server
from bot.store import EventKind, Grant
from slack_emulator import SlackEmulator

from ..harness import ALICE
from ..service.harness import in_process
from .hook import SESSION, Hook, ask_posts, posted, pre_tool_use

BUILD = {"command": "make build"}
DENY_MAKE = """
[[tools]]
name = "no-make"
tool = "Bash"
args = { command = "make *" }
decision = "deny"
reason = "make is run by CI only"
"""


def session_grant(**changes: object) -> Grant:
    """Alice's grant of `make build` for the hook's session."""
    grant = Grant(
        id="g1",
        tool="Bash",
        args={"command": "make build"},
        scope="session",
        subject=SESSION,
        granted_by=ALICE,
        created_at=time.time(),
    )
    return grant.model_copy(update=changes)


def of_session(session: str = SESSION) -> dict[str, object]:
    return {**pre_tool_use("Bash", BUILD), "session_id": session}


async def allowed_by_grant(server: Server, emu: SlackEmulator, event: dict[str, object]) -> None:
    """The hook allows `event` naming grant g1, and nothing was posted."""
    done = await (await Hook.start(server.url, event)).finished()
    assert (done.code, done.output["hookSpecificOutput"]) == (
        0,
        {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "permissionDecisionReason": "allowed by grant `g1` made in Slack",
        },
    )
    await server.provider.idle()
    assert ask_posts(emu) == []


async def asked(server: Server, emu: SlackEmulator, event: dict[str, object]) -> None:
    """The hook's call is posted in Slack (then denied by Alice so the hook ends)."""
    hook = await Hook.start(server.url, event)
    await emu.person(ALICE).click(await posted(emu), text="Deny")
    done = await hook.finished()
    assert done.output["hookSpecificOutput"]["permissionDecisionReason"] == (
        f"Slack user {ALICE} denied Bash in Slack."
    )


async def test_a_session_grant_allows_that_sessions_call_with_one_answered_event(
    server: Server, emu: SlackEmulator
) -> None:
    await server.provider.store.add_grant(session_grant())
    await allowed_by_grant(server, emu, of_session())
    [record] = await server.provider.asks.recent()
    events = await server.provider.store.events(record.id)
    assert [(e.kind, e.actor, e.detail) for e in events if e.kind is EventKind.ANSWERED] == [
        (EventKind.ANSWERED, "grant:g1", f"auto-allowed by grant `g1` of <@{ALICE}> (session)")
    ]


async def test_another_sessions_call_is_asked(server: Server, emu: SlackEmulator) -> None:
    await server.provider.store.add_grant(session_grant())
    await asked(server, emu, of_session("0b7a1c2d-another-session"))


async def test_a_call_with_other_arguments_is_asked(server: Server, emu: SlackEmulator) -> None:
    await server.provider.store.add_grant(session_grant())
    await asked(server, emu, {**of_session(), "tool_input": {"command": "make clean"}})


async def test_an_expired_grant_asks_again(server: Server, emu: SlackEmulator) -> None:
    await server.provider.store.add_grant(session_grant(expires_at=time.time() - 1))
    await asked(server, emu, of_session())


async def test_a_revoked_grant_asks_again(server: Server, emu: SlackEmulator) -> None:
    await server.provider.store.add_grant(session_grant())
    await server.provider.store.revoke_grant("g1", ALICE, time.time())
    await asked(server, emu, of_session())


@pytest.fixture
async def denying(emu: SlackEmulator, tmp_path: Path) -> AsyncIterator[Server]:
    policy = tmp_path / "review.toml"
    policy.write_text(DENY_MAKE)
    async with in_process(
        emu, tmp_path / "asks.db", SLACK_QUESTIONS_REVIEW_POLICY=str(policy)
    ) as running:
        yield running


async def test_a_deny_rule_refuses_a_granted_call(denying: Server, emu: SlackEmulator) -> None:
    await denying.provider.store.add_grant(session_grant())
    done = await (await Hook.start(denying.url, of_session())).finished()
    assert done.output["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert done.output["hookSpecificOutput"]["permissionDecisionReason"] == (
        "Bash was denied by rule `no-make` of the Slack review policy: make is run by CI "
        "only. Do not retry it or work around it."
    )


async def test_a_grant_stored_through_one_replica_decides_on_another(
    emu: SlackEmulator, tmp_path: Path
) -> None:
    db = tmp_path / "asks.db"
    async with (
        in_process(emu, db, SLACK_QUESTIONS_REPLICA="a") as a,
        in_process(emu, db, SLACK_QUESTIONS_REPLICA="b") as b,
    ):
        await a.provider.store.add_grant(session_grant())
        await allowed_by_grant(b, emu, of_session())
