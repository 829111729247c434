"""Seeing, expiring and revoking grants, against the service on the emulator (the hook's
calls through the real hook process): `/agent-questions grants` lists exactly the active
grants a person may revoke, Revoke ends one (idempotently, saying who), a revoked grant asks
again, a person the policy does not let allow the tool is refused, the Home tab has the same
list, a policy's `grant_ttl` sets how long "Allow for this session" lasts, and each grant
created and revoked is a link of the audit chain that `audit verify` checks."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from bot.config import load_config, parse_args
from bot.render.decided import when
from bot.render.team_view import HOME_BLOCKS_MAX, home_view
from bot.service.audit_command import main as audit_main
from bot.service.server import Server
from bot.store import Grant
from bot.store.audit import AuditPayload
from slack_emulator import Ephemeral, ManualClock, SlackEmulator

from ..harness import ALICE, BOB, CAROL, REVIEWERS
from ..service.harness import AUDIT_KEY, in_process, service_env
from .hook import SESSION, Hook, ask_posts, posted, pre_tool_use

COMMAND = "/agent-questions"
DAVE = "U0DAVE0004"
BUILD = {"command": "make build"}
BOTH_REVIEW = f"""
[kinds.tool-approval]
reviewers = ["{ALICE}", "{BOB}"]

[[tools]]
name = "deploys"
tool = "mcp__deploy__*"
reviewers = ["{ALICE}"]
"""
ALICE_REVIEWS = f'[kinds.tool-approval]\nreviewers = ["{ALICE}"]\n'


def grant(grant_id: str = "g1", **changes: object) -> Grant:
    """A grant of `make build` for the hook's session, made by Alice a minute ago."""
    now = time.time()
    made = Grant(
        id=grant_id,
        tool="Bash",
        args={"command": r"re:make\ build"},
        scope="session",
        subject=SESSION,
        granted_by=ALICE,
        created_at=now - 60,
        expires_at=now + 3600,
    )
    return made.model_copy(update=changes)


def of_session(session: str = SESSION) -> dict[str, object]:
    return {**pre_tool_use("Bash", BUILD), "session_id": session}


@asynccontextmanager
async def serving(emu: SlackEmulator, tmp_path: Path, policy: str) -> AsyncIterator[Server]:
    """The service under the review policy `policy` (the same store on every start)."""
    path = tmp_path / "review.toml"
    path.write_text(policy)
    async with in_process(
        emu, tmp_path / "asks.db", SLACK_QUESTIONS_REVIEW_POLICY=str(path)
    ) as running:
        yield running


async def grants_list(server: Server, emu: SlackEmulator, user: str) -> Ephemeral:
    """Run `/agent-questions grants` as `user`; the ephemeral it answers with."""
    before = len(emu.ephemerals(user))
    await emu.person(user).command(COMMAND, "grants")
    await emu.wait_for(lambda: len(emu.ephemerals(user)) > before, what="the grants")
    await server.provider.idle()
    return emu.ephemerals(user)[-1]


def sections(blocks: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """Each section and context block as (block id, text)."""
    shown = []
    for block in blocks:
        if block["type"] == "section":
            shown.append((block["block_id"], block["text"]["text"]))
        elif block["type"] == "context":
            shown.append((block["block_id"], block["elements"][0]["text"]))
    return shown


def granted_text(made: Grant) -> str:
    """How the list words a grant of `grant()`."""
    assert made.expires_at is not None
    return (
        f"*`Bash`* where `command` is exactly `make build`, for this agent session only "
        f"(`{SESSION}`)\nGranted by <@{made.granted_by}> {when(made.created_at)} · "
        f"expires {when(made.expires_at)} · grant `{made.id}`"
    )


async def revoke(server: Server, emu: SlackEmulator, user: str, shown: Ephemeral) -> None:
    """`user` clicks the first Revoke of a list they were shown."""
    await emu.person(user).click(shown, text="Revoke")
    await server.provider.idle()


async def asked_in_slack(server: Server, emu: SlackEmulator, n: int) -> None:
    """The hook's call is posted as ask message `n`; Alice denies it so the hook ends."""
    hook = await Hook.start(server.url, of_session())
    await emu.person(ALICE).click(await posted(emu, n), text="Deny")
    done = await hook.finished()
    assert done.output["hookSpecificOutput"]["permissionDecision"] == "deny"


async def allow_for_session(server: Server, emu: SlackEmulator) -> None:
    """Alice clicks "Allow for this session" on the hook's first call."""
    hook = await Hook.start(server.url, of_session())
    await emu.person(ALICE).click(await posted(emu), text="Allow for this session")
    done = await hook.finished()
    assert done.output["hookSpecificOutput"]["permissionDecision"] == "allow"
    await server.provider.idle()


# --- the list ---------------------------------------------------------------------------------


async def test_the_list_shows_the_active_grants_of_the_tools_a_reviewer_may_allow(
    emu: SlackEmulator, tmp_path: Path
) -> None:
    bash = grant("g-bash")
    deploy = grant(
        "g-deploy", tool="mcp__deploy__prod", args={}, scope="agent", subject="ci", expires_at=None
    )
    async with serving(emu, tmp_path, BOTH_REVIEW) as server:
        store = server.provider.store
        for made in (
            bash,
            deploy,
            grant("g-revoked", revoked_at=time.time() - 1, revoked_by=BOB),
            grant("g-expired", expires_at=time.time() - 1),
        ):
            await store.add_grant(made)
        shown = await grants_list(server, emu, ALICE)
    assert shown.text == "Grants: 2 active grants you may revoke"
    assert sections(shown.blocks) == [
        (
            "sq~grants.intro",
            "Tool calls allowed without asking, that you may revoke (you may allow those tools).",
        ),
        ("sq~grants.0", granted_text(bash)),
        (
            "sq~grants.1",
            f"*`mcp__deploy__prod`* with any input, for the agent `ci`\nGranted by <@{ALICE}> "
            f"{when(deploy.created_at)} · never expires · grant `g-deploy`",
        ),
    ]
    assert [b["accessory"]["value"] for b in shown.blocks if "accessory" in b] == [
        "g-bash",
        "g-deploy",
    ]


async def test_a_reviewer_not_named_by_a_rule_does_not_see_its_tools_grants(
    emu: SlackEmulator, tmp_path: Path
) -> None:
    async with serving(emu, tmp_path, BOTH_REVIEW) as server:
        await server.provider.store.add_grant(grant("g-bash"))
        await server.provider.store.add_grant(grant("g-deploy", tool="mcp__deploy__prod"))
        shown = await grants_list(server, emu, BOB)
    assert [b["accessory"]["value"] for b in shown.blocks if "accessory" in b] == ["g-bash"]


async def test_someone_the_policy_does_not_let_allow_a_tool_sees_no_grants(
    emu: SlackEmulator, tmp_path: Path
) -> None:
    async with serving(emu, tmp_path, BOTH_REVIEW) as server:
        await server.provider.store.add_grant(grant())
        shown = await grants_list(server, emu, CAROL)
    assert shown.text == "Grants: 0 active grants you may revoke"
    assert sections(shown.blocks)[-1] == (
        "sq~grants.empty",
        '_No active grants you may revoke._ "Allow for this session" on a tool card makes one.',
    )


async def test_where_anyone_in_the_channel_may_allow_only_its_members_see_the_grants(
    server: Server, emu: SlackEmulator
) -> None:
    emu.workspace.add_user(DAVE, name="dave")  # in the workspace, not in the channel
    await server.provider.store.add_grant(grant())
    member = await grants_list(server, emu, CAROL)
    outsider = await grants_list(server, emu, DAVE)
    assert (member.text, outsider.text) == (
        "Grants: 1 active grant you may revoke",
        "Grants: 0 active grants you may revoke",
    )


async def test_a_grant_of_a_group_reviewed_tool_is_seen_by_the_groups_members(
    emu: SlackEmulator, tmp_path: Path
) -> None:
    async with serving(
        emu, tmp_path, f'[kinds.tool-approval]\nreviewers = ["{REVIEWERS}"]\n'
    ) as server:
        await server.provider.store.add_grant(grant())
        seen = [(await grants_list(server, emu, who)).text for who in (BOB, CAROL)]
    assert seen == [
        "Grants: 1 active grant you may revoke",
        "Grants: 0 active grants you may revoke",
    ]


async def test_help_names_the_grants_subcommand(server: Server, emu: SlackEmulator) -> None:
    before = len(emu.ephemerals(ALICE))
    await emu.person(ALICE).command(COMMAND, "help")
    await emu.wait_for(lambda: len(emu.ephemerals(ALICE)) > before, what="the help")
    assert "`/agent-questions grants — the active grants you may revoke`" in (
        emu.ephemerals(ALICE)[-1].text.splitlines()
    )


# --- revoking ----------------------------------------------------------------------------------


async def test_a_revoked_grant_asks_again(server: Server, emu: SlackEmulator) -> None:
    await allow_for_session(server, emu)
    await revoke(server, emu, ALICE, await grants_list(server, emu, ALICE))
    await asked_in_slack(server, emu, 2)
    assert len(ask_posts(emu)) == 2


async def test_revoke_stores_who_revoked_and_the_list_says_so_in_place(
    server: Server, emu: SlackEmulator
) -> None:
    await server.provider.store.add_grant(grant())
    shown = await grants_list(server, emu, ALICE)
    await revoke(server, emu, ALICE, shown)
    [stored] = await server.provider.store.grants()
    assert stored.revoked_by == ALICE
    assert stored.revoked_at is not None
    [replaced] = [e for e in emu.ephemerals(ALICE) if e.ts == shown.ts]
    assert sections(replaced.blocks)[0] == (
        "sq~grants.notice",
        f":no_entry_sign: Grant `g1` revoked by <@{ALICE}> {when(stored.revoked_at)}: the next "
        "call it covered is asked in Slack again.",
    )
    assert sections(replaced.blocks)[-1][0] == "sq~grants.empty"


async def test_a_second_revoke_changes_nothing_and_says_who_revoked_it_first(
    server: Server, emu: SlackEmulator
) -> None:
    await server.provider.store.add_grant(grant())
    first = await grants_list(server, emu, ALICE)
    second = await grants_list(server, emu, ALICE)
    await revoke(server, emu, ALICE, first)
    [revoked] = await server.provider.store.grants()
    await revoke(server, emu, ALICE, second)
    assert await server.provider.store.grants() == [revoked]
    assert revoked.revoked_at is not None
    [replaced] = [e for e in emu.ephemerals(ALICE) if e.ts == second.ts]
    assert sections(replaced.blocks)[0] == (
        "sq~grants.notice",
        f"Grant `g1` was already revoked by <@{ALICE}> {when(revoked.revoked_at)}; "
        "nothing changed.",
    )
    rows = await server.provider.store.audit_rows()
    assert [row.kind for row in rows].count("grant_revoked") == 1


async def test_revoke_is_refused_to_a_granter_the_policy_no_longer_lets_allow_the_tool(
    emu: SlackEmulator, tmp_path: Path
) -> None:
    made = grant(granted_by=BOB)
    async with serving(emu, tmp_path, BOTH_REVIEW) as server:
        await server.provider.store.add_grant(made)
        shown = await grants_list(server, emu, BOB)
    async with serving(emu, tmp_path, ALICE_REVIEWS) as server:
        await revoke(server, emu, BOB, shown)
        assert emu.ephemerals(BOB)[-1].text == (
            f"Only <@{ALICE}> may revoke grant `g1` of `Bash`: who may allow that tool from "
            "Slack. Nothing changed."
        )
        assert await server.provider.store.grants() == [made]
        kinds = [row.kind for row in await server.provider.store.audit_rows()]
        assert "grant_revoked" not in kinds


# --- the Home tab ------------------------------------------------------------------------------


async def test_the_home_tab_lists_the_grants_with_a_revoke_button(
    server: Server, emu: SlackEmulator
) -> None:
    made = grant()
    await server.provider.store.add_grant(made)
    await emu.person(ALICE).open_home()
    await emu.wait_for_call("views.publish")
    await server.provider.idle()
    home = emu.home(ALICE)
    assert home is not None
    grants = [(b, t) for b, t in sections(home.blocks) if b.startswith("sq~grants.")]
    assert grants[1:] == [("sq~grants.0", granted_text(made))]
    [button] = [b["accessory"] for b in home.blocks if b.get("block_id") == "sq~grants.0"]
    assert (button["action_id"], button["value"]) == ("sq_revoke", "g1")


async def test_revoke_on_the_home_tab_publishes_it_again_saying_so(
    server: Server, emu: SlackEmulator
) -> None:
    await server.provider.store.add_grant(grant())
    await emu.person(ALICE).open_home()
    await emu.wait_for_call("views.publish")
    await server.provider.idle()
    home = emu.home(ALICE)
    assert home is not None
    await emu.person(ALICE).click(home, text="Revoke")
    await emu.wait_for_call("views.publish", count=2)
    await server.provider.idle()
    [stored] = await server.provider.store.grants()
    assert stored.revoked_by == ALICE
    again = emu.home(ALICE)
    assert again is not None
    shown = dict(sections(again.blocks))
    assert shown["sq~grants.notice"].startswith(":no_entry_sign: Grant `g1` revoked by ")
    assert "sq~grants.empty" in shown


async def test_a_refused_revoke_on_the_home_tab_says_who_could_and_keeps_the_grant(
    emu: SlackEmulator, tmp_path: Path
) -> None:
    made = grant(granted_by=BOB)
    async with serving(emu, tmp_path, BOTH_REVIEW) as server:
        await server.provider.store.add_grant(made)
        await emu.person(BOB).open_home()
        await emu.wait_for_call("views.publish")
        await server.provider.idle()
    home = emu.home(BOB)
    assert home is not None
    async with serving(emu, tmp_path, ALICE_REVIEWS) as server:
        await emu.person(BOB).click(home, text="Revoke")
        await emu.wait_for_call("views.publish", count=2)
        await server.provider.idle()
        assert await server.provider.store.grants() == [made]
    again = emu.home(BOB)
    assert again is not None
    assert dict(sections(again.blocks))["sq~grants.notice"] == (
        f"Only <@{ALICE}> may revoke grant `g1` of `Bash`: who may allow that tool from "
        "Slack. Nothing changed."
    )


def test_the_home_tab_says_how_many_grants_it_does_not_show() -> None:
    many = [grant(f"g{n}") for n in range(40)]
    view = home_view([], {}, grants=many).to_dict()
    blocks = view["blocks"]
    assert len(blocks) <= HOME_BLOCKS_MAX
    shown = sum(1 for b in blocks if "accessory" in b)
    assert sections(blocks)[-1] == (
        "sq~grants.more",
        f"…and {40 - shown} more grants are not shown.",
    )


# --- grant_ttl ---------------------------------------------------------------------------------


@asynccontextmanager
async def on_clock(
    emu: SlackEmulator, tmp_path: Path, clock: ManualClock, policy: str
) -> AsyncIterator[Server]:
    """The service with its asks on `clock`, under `policy`."""
    path = tmp_path / "review.toml"
    path.write_text(policy)
    env = service_env(emu, tmp_path / "asks.db", 0, SLACK_QUESTIONS_REVIEW_POLICY=str(path))
    server = await Server.start(load_config(env, parse_args([])), clock=clock)
    emu.request_url = f"{server.url}/slack/events"
    try:
        yield server
    finally:
        await server.close()


BUILDS_FOR_30_MINUTES = """
[[tools]]
name = "builds"
tool = "Bash"
grant_ttl = "30m"
"""


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(time.time())


async def test_a_grant_past_its_rules_ttl_asks_again(
    emu: SlackEmulator, tmp_path: Path, clock: ManualClock
) -> None:
    async with on_clock(emu, tmp_path, clock, BUILDS_FOR_30_MINUTES) as server:
        await allow_for_session(server, emu)
        [made] = await server.provider.store.grants()
        assert made.expires_at is not None
        assert made.expires_at - made.created_at == 1800
        clock.advance(1801)
        await asked_in_slack(server, emu, 2)


async def test_the_card_says_how_long_allow_for_this_session_lasts_under_its_policy(
    emu: SlackEmulator, tmp_path: Path, clock: ManualClock
) -> None:
    async with on_clock(emu, tmp_path, clock, BUILDS_FOR_30_MINUTES) as server:
        hook = await Hook.start(server.url, of_session())
        message = await posted(emu)
        [button] = [
            element
            for block in message.blocks
            if block["type"] == "actions"
            for element in block["elements"]
            if element.get("action_id") == "sq_session"
        ]
        assert button["confirm"]["text"]["text"] == (
            "Bash runs now, and this agent session's calls of it with exactly this input are "
            "allowed without asking for 30 minutes."
        )
        await emu.person(ALICE).click(message, text="Deny")
        await hook.finished()


async def test_the_defaults_grant_ttl_applies_where_the_rule_sets_none(
    emu: SlackEmulator, tmp_path: Path, clock: ManualClock
) -> None:
    policy = '[default]\ngrant_ttl = "2h"\n\n[[tools]]\ntool = "Bash"\n'
    async with on_clock(emu, tmp_path, clock, policy) as server:
        await allow_for_session(server, emu)
        [made] = await server.provider.store.grants()
    assert made.expires_at is not None
    assert made.expires_at - made.created_at == 7200


# --- the audit chain ---------------------------------------------------------------------------


async def test_a_grant_made_and_revoked_are_links_of_the_chain_audit_verify_checks(
    emu: SlackEmulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "asks.db"
    async with in_process(emu, db) as server:
        await allow_for_session(server, emu)
        await revoke(server, emu, ALICE, await grants_list(server, emu, ALICE))
        [made] = await server.provider.store.grants()
        [record] = await server.provider.asks.recent()
        rows = await server.provider.store.audit_rows()
    linked = [(r.kind, r.ask_id, r.actor) for r in rows if r.kind.startswith("grant_")]
    assert linked == [("grant_created", record.id, ALICE), ("grant_revoked", None, ALICE)]
    created = next(r for r in rows if r.kind == "grant_created")
    covers = json.loads(AuditPayload.model_validate_json(created.payload).detail)
    assert covers == {
        "id": made.id,
        "tool": "Bash",
        "args": {"command": r"re:make\ build"},
        "scope": "session",
        "subject": SESSION,
        "expires_at": made.expires_at,
    }
    env = {"SLACK_QUESTIONS_AUDIT_KEY": AUDIT_KEY}
    code = await asyncio.to_thread(audit_main, ["verify", "--db", str(db)], env)
    assert code == 0
    assert capsys.readouterr().out.startswith(f"intact ({len(rows)} events, ")
