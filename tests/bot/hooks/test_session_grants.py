""" "Allow for this session" on the tool card, through the real hook process: the click
allows the call and stores a grant, so the same session's next identical call is allowed
with nothing posted, while another session's call is asked; a stranger is refused."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.render.decided import when
from bot.service.server import Server
from bot.store import EventKind
from slack_emulator import SlackEmulator

from ..harness import ALICE, BOB
from ..service.harness import in_process
from .hook import SESSION, Hook, ask_posts, posted, pre_tool_use

BUILD = {"command": "make build"}


def of_session(session: str = SESSION) -> dict[str, object]:
    return {**pre_tool_use("Bash", BUILD), "session_id": session}


async def allow_for_session(server: Server, emu: SlackEmulator) -> None:
    """Alice clicks "Allow for this session" on the hook's first call, which is allowed."""
    hook = await Hook.start(server.url, of_session())
    await emu.person(ALICE).click(await posted(emu), text="Allow for this session")
    done = await hook.finished()
    assert done.output["hookSpecificOutput"]["permissionDecision"] == "allow"
    await server.provider.idle()


async def test_allow_for_this_session_allows_the_next_identical_call_with_nothing_posted(
    server: Server, emu: SlackEmulator
) -> None:
    await allow_for_session(server, emu)
    posts = len(ask_posts(emu))
    [grant] = await server.provider.store.grants()
    done = await (await Hook.start(server.url, of_session())).finished()
    assert done.output["hookSpecificOutput"] == {
        "hookEventName": "PreToolUse",
        "permissionDecision": "allow",
        "permissionDecisionReason": f"allowed by grant `{grant.id}` made in Slack",
    }
    await server.provider.idle()
    assert len(ask_posts(emu)) == posts


async def test_allow_for_this_session_stores_a_session_grant_of_exactly_the_call(
    server: Server, emu: SlackEmulator
) -> None:
    await allow_for_session(server, emu)
    [grant] = await server.provider.store.grants()
    assert (grant.tool, grant.args, grant.scope, grant.subject, grant.granted_by) == (
        "Bash",
        {"command": r"re:make\ build"},
        "session",
        SESSION,
        ALICE,
    )
    assert grant.expires_at is not None
    assert grant.expires_at - grant.created_at == 8 * 3600


async def test_after_allow_for_this_session_another_sessions_call_is_asked(
    server: Server, emu: SlackEmulator
) -> None:
    await allow_for_session(server, emu)
    posts = len(ask_posts(emu))
    hook = await Hook.start(server.url, of_session("0b7a1c2d-another-session"))
    await emu.person(ALICE).click(await posted(emu, posts + 1), text="Deny")
    done = await hook.finished()
    assert done.output["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert len(ask_posts(emu)) == posts + 1


@pytest.fixture
async def alice_reviews(emu: SlackEmulator, tmp_path: Path) -> AsyncIterator[Server]:
    policy = tmp_path / "review.toml"
    policy.write_text(f'[kinds.tool-approval]\nreviewers = ["{ALICE}"]\n')
    async with in_process(
        emu, tmp_path / "asks.db", SLACK_QUESTIONS_REVIEW_POLICY=str(policy)
    ) as running:
        yield running


async def test_someone_who_may_not_allow_is_refused_and_no_grant_is_stored(
    alice_reviews: Server, emu: SlackEmulator
) -> None:
    hook = await Hook.start(alice_reviews.url, of_session())
    message = await posted(emu)
    await emu.person(BOB).click(message, text="Allow for this session")
    await alice_reviews.provider.idle()
    assert [e.text for e in emu.ephemerals(BOB)] == [
        f"Only <@{ALICE}> may answer this question, so nothing changed."
    ]
    assert await alice_reviews.provider.store.grants() == []
    await emu.person(ALICE).click(message, text="Deny")
    assert (await hook.finished()).output["hookSpecificOutput"]["permissionDecision"] == "deny"


async def test_the_decided_card_says_allowed_for_this_session_until_the_grant_expires(
    server: Server, emu: SlackEmulator
) -> None:
    await allow_for_session(server, emu)
    [grant] = await server.provider.store.grants()
    assert grant.expires_at is not None
    first = await posted(emu)
    verdict = [
        b["text"]["text"]
        for b in emu.message(first.channel, first.ts).blocks
        if b["type"] == "section" and str(b["text"]["text"]).startswith("✅")
    ]
    assert len(verdict) == 1
    assert verdict[0].startswith(
        f"✅ Allowed by <@{ALICE}> for this session (until <!date^{int(grant.expires_at)}^"
    )


async def test_allow_for_this_session_logs_until_when_on_the_answered_event(
    server: Server, emu: SlackEmulator
) -> None:
    await allow_for_session(server, emu)
    [grant] = await server.provider.store.grants()
    [record] = await server.provider.asks.recent()
    events = await server.provider.store.events(record.id)
    assert grant.expires_at is not None
    assert [(e.actor, e.detail) for e in events if e.kind is EventKind.ANSWERED] == [
        (ALICE, f"for this session (until {when(grant.expires_at)})")
    ]
