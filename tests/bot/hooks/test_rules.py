"""Tool rules that decide before anyone is pinged, through the real hook process: an allow
rule lets the call run and a deny rule refuses it, with no Slack message posted, stored and
logged as decided by the rule."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.service.server import Server
from bot.store import EventKind
from slack_emulator import SlackEmulator

from ..harness import ALICE
from ..service.harness import in_process
from .hook import Hook, ask_posts, posted, pre_tool_use

POLICY = """
[[tools]]
name = "git-read-only"
tool = "Bash"
args = { command = "re:git (status|log|diff)( .*)?" }
decision = "allow"

[[tools]]
tool = "Bash"
args = { command = "git *" }
decision = "allow"

[[tools]]
name = "no-force-push"
tool = "Bash"
args = { command = "*git push*--force*" }
decision = "deny"
reason = "force-pushing is not allowed from an agent"
"""


@pytest.fixture
async def ruled(emu: SlackEmulator, tmp_path: Path) -> AsyncIterator[Server]:
    policy = tmp_path / "review.toml"
    policy.write_text(POLICY)
    async with in_process(
        emu, tmp_path / "asks.db", SLACK_QUESTIONS_REVIEW_POLICY=str(policy)
    ) as running:
        yield running


async def test_an_allow_rule_allows_with_no_message_and_one_answered_event(
    ruled: Server, emu: SlackEmulator
) -> None:
    hook = await Hook.start(ruled.url, pre_tool_use("Bash", {"command": "git status -s"}))
    done = await hook.finished()
    assert (done.code, done.output["hookSpecificOutput"]) == (
        0,
        {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "permissionDecisionReason": (
                "allowed by rule `git-read-only` of the Slack review policy"
            ),
        },
    )
    await ruled.provider.idle()
    assert ask_posts(emu) == []
    [record] = await ruled.provider.asks.recent()
    assert (record.decided_by, record.reason, record.policy) == (
        "rule:git-read-only",
        "auto-allowed by rule `git-read-only`",
        "tools.0",
    )
    events = await ruled.provider.store.events(record.id)
    assert [(e.kind, e.actor, e.detail) for e in events if e.kind is EventKind.ANSWERED] == [
        (EventKind.ANSWERED, "rule:git-read-only", "auto-allowed by rule `git-read-only`")
    ]


async def test_a_deny_rule_wins_over_an_allow_rule_above_it_and_gives_its_reason(
    ruled: Server, emu: SlackEmulator
) -> None:
    hook = await Hook.start(ruled.url, pre_tool_use("Bash", {"command": "git push --force"}))
    done = await hook.finished()
    assert done.output["hookSpecificOutput"] == {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": (
            "Bash was denied by rule `no-force-push` of the Slack review policy: "
            "force-pushing is not allowed from an agent. Do not retry it or work around it."
        ),
    }
    await ruled.provider.idle()
    assert ask_posts(emu) == []


async def test_a_call_no_rule_decides_is_asked_in_slack(ruled: Server, emu: SlackEmulator) -> None:
    hook = await Hook.start(ruled.url, pre_tool_use("Bash", {"command": "rm -rf build"}))
    message = await posted(emu)
    await emu.person(ALICE).click(message, text="Deny")
    done = await hook.finished()
    assert done.output["hookSpecificOutput"]["permissionDecisionReason"] == (
        f"Slack user {ALICE} denied Bash in Slack."
    )
