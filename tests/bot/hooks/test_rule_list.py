"""Seeing and revoking rules saved with "Always allow", against the service on the emulator
(the hook's calls through the real hook process): `/agent-questions grants` and the Home tab
list the active saved rules a person may revoke — who may allow the rule's tool —, Revoke
ends one (idempotently, saying who), its next matching call is asked in Slack, a person the
policy does not let allow the tool is refused with nothing changed, and the revoke is a link
of the audit chain that `audit verify` checks."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

from bot.render.decided import when
from bot.render.team_view import HOME_BLOCKS_MAX, home_view
from bot.service.audit_command import main as audit_main
from bot.service.server import Server
from bot.store import StoredRule
from bot.store.audit import AuditPayload
from slack_emulator import SlackEmulator

from ..harness import ALICE, BOB, CAROL
from ..service.harness import AUDIT_KEY, in_process
from .hook import Hook, ask_posts, posted, pre_tool_use
from .test_grant_list import (
    ALICE_REVIEWS,
    BOTH_REVIEW,
    grant,
    grants_list,
    revoke,
    sections,
    serving,
)

STATUS = {"command": "git status"}


def saved_rule(**changes: object) -> StoredRule:
    """A rule Alice saved a minute ago: Bash `git status…` by any agent, for a day."""
    now = time.time()
    made = StoredRule(
        name="git-status",
        tool="Bash",
        args={"command": "re:git status( .*)?"},
        scope="everyone",
        created_by=ALICE,
        created_at=now - 60,
        ask_id="a1",
        expires_at=now + 86400,
    )
    return made.model_copy(update=changes)


def buttons(blocks: list[dict[str, Any]]) -> list[str]:
    """The value of each Revoke button, in order."""
    return [b["accessory"]["value"] for b in blocks if "accessory" in b]


async def allowed_unasked(server: Server, emu: SlackEmulator) -> None:
    """The hook's `git status` is allowed by the rule: nothing is posted."""
    posts = len(ask_posts(emu))
    done = await (await Hook.start(server.url, pre_tool_use("Bash", STATUS))).finished()
    assert done.output["hookSpecificOutput"]["permissionDecision"] == "allow"
    assert len(ask_posts(emu)) == posts


async def asked_in_slack(server: Server, emu: SlackEmulator) -> None:
    """The hook's `git status` is posted as the next ask message; Alice denies it."""
    n = len(ask_posts(emu)) + 1
    hook = await Hook.start(server.url, pre_tool_use("Bash", STATUS))
    await emu.person(ALICE).click(await posted(emu, n), text="Deny")
    done = await hook.finished()
    assert done.output["hookSpecificOutput"]["permissionDecision"] == "deny"


# --- the list ---------------------------------------------------------------------------------


async def test_a_saved_rule_is_listed_in_words_for_who_may_allow_its_tool(
    emu: SlackEmulator, tmp_path: Path
) -> None:
    made = saved_rule(scope="agent", subject="ci", expires_at=None)
    async with serving(emu, tmp_path, BOTH_REVIEW) as server:
        await server.provider.store.add_rule(made)
        shown = await grants_list(server, emu, ALICE)
    assert shown.text == "Grants: 0 active grants and 1 saved rule you may revoke"
    assert sections(shown.blocks)[1:] == [
        (
            "sq~rules.0",
            "Rule `git-status`: *`Bash`* where `command` matches the regular expression "
            f"`git status( .*)?`, for the agent `ci`\nSaved by <@{ALICE}> "
            f"{when(made.created_at)} · never expires",
        )
    ]
    assert buttons(shown.blocks) == ["rule:git-status"]


async def test_someone_the_policy_does_not_let_allow_the_tool_sees_no_saved_rule(
    emu: SlackEmulator, tmp_path: Path
) -> None:
    async with serving(emu, tmp_path, BOTH_REVIEW) as server:
        await server.provider.store.add_rule(saved_rule())
        shown = await grants_list(server, emu, CAROL)
    assert shown.text == "Grants: 0 active grants you may revoke"
    assert sections(shown.blocks)[-1][0] == "sq~grants.empty"
    assert buttons(shown.blocks) == []


async def test_a_revoked_or_expired_rule_is_not_listed(server: Server, emu: SlackEmulator) -> None:
    store = server.provider.store
    await store.add_rule(saved_rule(name="revoked", revoked_at=time.time() - 1, revoked_by=BOB))
    await store.add_rule(saved_rule(name="expired", expires_at=time.time() - 1))
    await store.add_rule(saved_rule())
    shown = await grants_list(server, emu, ALICE)
    assert buttons(shown.blocks) == ["rule:git-status"]


# --- revoking ----------------------------------------------------------------------------------


async def test_after_revoke_the_next_matching_call_is_asked_in_slack(
    server: Server, emu: SlackEmulator
) -> None:
    await server.provider.store.add_rule(saved_rule())
    await allowed_unasked(server, emu)
    await revoke(server, emu, ALICE, await grants_list(server, emu, ALICE))
    await asked_in_slack(server, emu)
    assert len(ask_posts(emu)) == 1


async def test_revoke_stores_who_revoked_the_rule_and_the_list_says_so_in_place(
    server: Server, emu: SlackEmulator
) -> None:
    await server.provider.store.add_rule(saved_rule())
    shown = await grants_list(server, emu, ALICE)
    await revoke(server, emu, ALICE, shown)
    [stored] = await server.provider.store.rules()
    assert (stored.revoked_by, stored.active(time.time())) == (ALICE, False)
    assert stored.revoked_at is not None
    [replaced] = [e for e in emu.ephemerals(ALICE) if e.ts == shown.ts]
    assert sections(replaced.blocks)[0] == (
        "sq~grants.notice",
        f":no_entry_sign: Rule `git-status` revoked by <@{ALICE}> {when(stored.revoked_at)}: "
        "the next call it allowed is asked in Slack again.",
    )
    assert sections(replaced.blocks)[-1][0] == "sq~grants.empty"


async def test_a_second_revoke_of_a_rule_changes_nothing_and_says_who_revoked_it_first(
    server: Server, emu: SlackEmulator
) -> None:
    await server.provider.store.add_rule(saved_rule())
    first = await grants_list(server, emu, ALICE)
    second = await grants_list(server, emu, ALICE)
    await revoke(server, emu, ALICE, first)
    [revoked] = await server.provider.store.rules()
    await revoke(server, emu, ALICE, second)
    assert await server.provider.store.rules() == [revoked]
    assert revoked.revoked_at is not None
    [replaced] = [e for e in emu.ephemerals(ALICE) if e.ts == second.ts]
    assert sections(replaced.blocks)[0] == (
        "sq~grants.notice",
        f"Rule `git-status` was already revoked by <@{ALICE}> {when(revoked.revoked_at)}; "
        "nothing changed.",
    )
    kinds = [row.kind for row in await server.provider.store.audit_rows()]
    assert kinds.count("rule_revoked") == 1


async def test_a_refused_rule_revoke_says_who_could_and_the_rule_still_allows(
    emu: SlackEmulator, tmp_path: Path
) -> None:
    made = saved_rule(created_by=BOB)
    async with serving(emu, tmp_path, BOTH_REVIEW) as server:
        await server.provider.store.add_rule(made)
        shown = await grants_list(server, emu, BOB)
    async with serving(emu, tmp_path, ALICE_REVIEWS) as server:
        await revoke(server, emu, BOB, shown)
        assert emu.ephemerals(BOB)[-1].text == (
            f"Only <@{ALICE}> may revoke rule `git-status` of `Bash`: who may allow that tool "
            "from Slack. Nothing changed."
        )
        assert await server.provider.store.rules() == [made]
        kinds = [row.kind for row in await server.provider.store.audit_rows()]
        assert "rule_revoked" not in kinds
        await allowed_unasked(server, emu)


# --- the Home tab ------------------------------------------------------------------------------


async def test_the_home_tab_lists_a_saved_rule_and_its_revoke_publishes_it_again(
    server: Server, emu: SlackEmulator
) -> None:
    await server.provider.store.add_rule(saved_rule())
    await emu.person(ALICE).open_home()
    await emu.wait_for_call("views.publish")
    await server.provider.idle()
    home = emu.home(ALICE)
    assert home is not None
    assert buttons(home.blocks) == ["rule:git-status"]
    await emu.person(ALICE).click(home, text="Revoke")
    await emu.wait_for_call("views.publish", count=2)
    await server.provider.idle()
    [stored] = await server.provider.store.rules()
    assert stored.revoked_by == ALICE
    again = emu.home(ALICE)
    assert again is not None
    shown = dict(sections(again.blocks))
    assert shown["sq~grants.notice"].startswith(":no_entry_sign: Rule `git-status` revoked by ")
    assert "sq~grants.empty" in shown


def test_the_home_tab_says_how_many_grants_and_saved_rules_it_does_not_show() -> None:
    rules = [saved_rule(name=f"r{n}") for n in range(5)]
    view = home_view([], {}, grants=[grant(f"g{n}") for n in range(40)], rules=rules)
    blocks = view.to_dict()["blocks"]
    assert len(blocks) <= HOME_BLOCKS_MAX
    shown = sum(1 for b in blocks if "accessory" in b)
    assert sections(blocks)[-1] == (
        "sq~grants.more",
        f"…and {40 - shown} more grants and 5 more saved rules are not shown.",
    )


# --- the audit chain ---------------------------------------------------------------------------


async def test_a_rule_revoked_is_a_link_of_the_chain_audit_verify_checks(
    emu: SlackEmulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "asks.db"
    async with in_process(emu, db) as server:
        await server.provider.store.add_rule(saved_rule())
        await revoke(server, emu, ALICE, await grants_list(server, emu, ALICE))
        [revoked] = await server.provider.store.rules()
        rows = await server.provider.store.audit_rows()
    [link] = [r for r in rows if r.kind == "rule_revoked"]
    assert (link.ask_id, link.actor) == (None, ALICE)
    detail = AuditPayload.model_validate_json(link.payload).detail
    assert StoredRule.model_validate_json(detail) == revoked
    env = {"SLACK_QUESTIONS_AUDIT_KEY": AUDIT_KEY}
    code = await asyncio.to_thread(audit_main, ["verify", "--db", str(db)], env)
    assert code == 0
    assert capsys.readouterr().out.startswith(f"intact ({len(rows)} events, ")
