"""A rule's or a grant's decision is told in the session's thread, through the real hook
process: one context line per call (no buttons, no mention) in the thread of its session,
posted after the agent has its answer; none with `announce_automatic = false`."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.render.decided import when
from bot.render.text import escape
from bot.service.server import Server
from slack_emulator import SlackEmulator, Slow
from slack_emulator.records import ApiCall

from ..harness import ALICE
from ..service.harness import in_process
from .hook import SESSION, Hook, ask_posts, pre_tool_use
from .test_grants import session_grant

POLICY = """
[[tools]]
name = "git-read-only"
tool = "Bash"
args = { command = "re:git (status|log|diff)( .*)?" }
decision = "allow"

[[tools]]
name = "no-force-push"
tool = "Bash"
args = { command = "*git push*--force*" }
decision = "deny"
reason = "force-pushing is not allowed from an agent"
"""


def line_posts(emu: SlackEmulator) -> list[ApiCall]:
    """Every chat.postMessage of an automatic decision's line."""
    return [
        call
        for call in emu.calls_to("chat.postMessage")
        if (call.params.get("metadata") or {}).get("event_type") == "slack_questions_line"
    ]


def root_ts(emu: SlackEmulator) -> str:
    """The ts of the session's thread root."""
    [root] = [
        call
        for call in emu.calls_to("chat.postMessage")
        if (call.params.get("metadata") or {}).get("event_type") == "slack_questions_session"
    ]
    return str(root.response["ts"])


def said(call: ApiCall) -> tuple[str, object, object]:
    """A line's text, its thread and its blocks' kinds."""
    blocks = call.params["blocks"]
    assert isinstance(blocks, list)
    return (
        str(call.params["text"]),
        call.params.get("thread_ts"),
        [block["type"] for block in blocks],
    )


async def run(server: Server, command: str) -> str:
    """The hook's decision for Bash `command`, once the service is idle."""
    done = await (
        await Hook.start(server.url, pre_tool_use("Bash", {"command": command}))
    ).finished()
    await server.provider.idle()
    return str(done.output["hookSpecificOutput"]["permissionDecision"])


async def policy_server(emu: SlackEmulator, tmp_path: Path, text: str) -> AsyncIterator[Server]:
    policy = tmp_path / "review.toml"
    policy.write_text(text)
    async with in_process(
        emu, tmp_path / "asks.db", SLACK_QUESTIONS_REVIEW_POLICY=str(policy)
    ) as running:
        yield running


@pytest.fixture
async def ruled(emu: SlackEmulator, tmp_path: Path) -> AsyncIterator[Server]:
    async for running in policy_server(emu, tmp_path, POLICY):
        yield running


@pytest.fixture
async def quiet(emu: SlackEmulator, tmp_path: Path) -> AsyncIterator[Server]:
    async for running in policy_server(emu, tmp_path, "announce_automatic = false\n" + POLICY):
        yield running


async def test_an_allow_rule_leaves_one_line_in_the_sessions_thread(
    ruled: Server, emu: SlackEmulator
) -> None:
    assert await run(ruled, "git status -s") == "allow"
    [line] = line_posts(emu)
    assert said(line) == (
        "✅ auto-allowed by rule `git-read-only`: Bash `git status -s`",
        root_ts(emu),
        ["context"],
    )
    assert ask_posts(emu) == []


async def test_a_deny_rule_leaves_one_line_with_its_reason(
    ruled: Server, emu: SlackEmulator
) -> None:
    assert await run(ruled, "git push --force origin main") == "deny"
    [line] = line_posts(emu)
    assert said(line) == (
        "❌ auto-denied by rule `no-force-push`: force-pushing is not allowed from an agent"
        " · Bash `git push --force origin main`",
        root_ts(emu),
        ["context"],
    )


async def test_a_grant_leaves_one_line_naming_its_granter_without_a_mention(
    server: Server, emu: SlackEmulator
) -> None:
    expires = time.time() + 3600
    await server.provider.store.add_grant(session_grant(expires_at=expires))
    done = await (
        await Hook.start(server.url, pre_tool_use("Bash", {"command": "make build"}))
    ).finished()
    assert done.output["hookSpecificOutput"]["permissionDecision"] == "allow"
    await server.provider.idle()
    [line] = line_posts(emu)
    assert said(line) == (
        f"✅ auto-allowed by @alice's grant for this session (until {when(expires)}):"
        " Bash `make build`",
        root_ts(emu),
        ["context"],
    )


async def test_two_calls_of_one_session_share_its_one_thread(
    ruled: Server, emu: SlackEmulator
) -> None:
    assert await run(ruled, "git status") == "allow"
    assert await run(ruled, "git diff") == "allow"
    assert [said(line)[:2] for line in line_posts(emu)] == [
        ("✅ auto-allowed by rule `git-read-only`: Bash `git status`", root_ts(emu)),
        ("✅ auto-allowed by rule `git-read-only`: Bash `git diff`", root_ts(emu)),
    ]


async def test_the_told_decision_is_shown_and_links_to_its_line(
    ruled: Server, emu: SlackEmulator
) -> None:
    assert await run(ruled, "git log") == "allow"
    [line] = line_posts(emu)
    [record] = await ruled.provider.asks.recent()
    assert (record.shown, record.thread_ts, record.message_ts) == (
        True,
        root_ts(emu),
        [str(line.response["ts"])],
    )


async def test_announce_automatic_false_posts_no_line_and_no_thread(
    quiet: Server, emu: SlackEmulator
) -> None:
    assert await run(quiet, "git status") == "allow"
    assert await run(quiet, "git push --force") == "deny"
    assert emu.calls_to("chat.postMessage") == []
    assert [r.shown for r in await quiet.provider.asks.recent()] == [True, True]


def texts(blocks: list[dict[str, Any]]) -> list[str]:
    """Each section's text, as a person reads it."""
    return [block["text"]["text"] for block in blocks if block["type"] == "section"]


def link_of(emu: SlackEmulator, ts: str) -> str:
    """The permalink Slack gave for message `ts`, escaped as mrkdwn needs."""
    [call] = [c for c in emu.calls_to("chat.getPermalink") if c.params["message_ts"] == ts]
    return escape(str(call.response["permalink"]))


async def test_agent_questions_lists_a_rules_decision_as_decided_by_the_rule(
    ruled: Server, emu: SlackEmulator
) -> None:
    assert await run(ruled, "git status") == "allow"
    [record] = await ruled.provider.asks.recent()
    assert record.decided_at is not None
    await emu.person(ALICE).command("/agent-questions")
    await emu.wait_for(lambda: len(emu.ephemerals(ALICE)) == 1, what="the team list")
    [row] = [t for t in texts(emu.ephemerals(ALICE)[0].blocks) if t.startswith("*Allow Bash")]
    assert row == (
        "*Allow Bash: \u02cbgit status\u02cb?* → *Allow*\n"  # the agent's backticks, inert
        ":white_check_mark: Allowed by rule `git-read-only`\n"
        f"{when(record.decided_at)} · from Claude Code · billing-api (`{SESSION}`) · "
        f"<{link_of(emu, record.message_ts[0])}|View in Slack>"
    )


async def test_the_home_tab_lists_a_grants_decision_as_decided_by_the_granters_grant(
    server: Server, emu: SlackEmulator
) -> None:
    await server.provider.store.add_grant(session_grant(expires_at=time.time() + 3600))
    await (await Hook.start(server.url, pre_tool_use("Bash", {"command": "make build"}))).finished()
    await server.provider.idle()
    [record] = await server.provider.asks.recent()
    assert record.decided_at is not None
    await emu.person(ALICE).open_home()
    await emu.wait_for_call("views.publish")
    home = emu.home(ALICE)
    assert home is not None
    [row] = [t for t in texts(home.blocks) if t.startswith("*Allow Bash")]
    assert row == (
        "*Allow Bash: \u02cbmake build\u02cb?* → *Allow*\n"
        f":white_check_mark: Allowed by <@{ALICE}>'s session grant\n"
        f"{when(record.decided_at)} · from Claude Code · billing-api (`{SESSION}`) · "
        f"<{link_of(emu, record.message_ts[0])}|View in Slack>"
    )


async def test_the_agent_has_its_answer_while_the_line_still_waits_for_slack(
    ruled: Server, emu: SlackEmulator
) -> None:
    released = asyncio.Event()
    emu.inject("chat.postMessage", Slow(10.0, released))  # the thread root, before the line
    done = await (
        await Hook.start(ruled.url, pre_tool_use("Bash", {"command": "git status"}))
    ).finished()
    assert done.output["hookSpecificOutput"]["permissionDecision"] == "allow"
    await emu.wait_for(lambda: emu.held("chat.postMessage") == 1, what="the root held")
    assert line_posts(emu) == []
    released.set()
    await emu.wait_for(lambda: len(line_posts(emu)) == 1, what="the line")
