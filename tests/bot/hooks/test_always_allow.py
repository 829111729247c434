""" "Always allow" on the tool card, through the real hook process against the service (issue
25): the modal proposes a rule of exactly this call, the reviewer narrows it, the rule saved
is the one the modal put in words, it allows the calls it covers with nothing posted and asks
the others; a deny rule of the policy file still wins; what is wrong in the modal is refused
inline; `always_allow = false` hides the button and refuses a forged click."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import aiohttp
import pytest

from bot.block_ids import Action, AskRef, Ref
from bot.render.always_allow import ARGS_BLOCK, NAME_BLOCK, SCOPE_BLOCK, TTL_BLOCK
from bot.service.server import Server
from bot.store import StoredRule
from bot.store.audit import AuditKind
from slack_emulator import Message, SlackEmulator, View
from slack_emulator.request_signing import signed_headers

from ..harness import ALICE, BOB
from ..service.harness import SECRET, in_process
from .hook import Hook, ask_posts, posted, pre_tool_use

STATUS = {"command": "git status"}
NARROWED = "command = re:git status( .*)?"
NO_FORCE_STATUS = """
[[tools]]
name = "no-short-status"
tool = "Bash"
args = { command = "git status --short*" }
decision = "deny"
reason = "short status is not for agents"
"""
NEVER_ALWAYS = """
[[tools]]
name = "git-by-hand"
tool = "Bash"
args = { command = "git *" }
always_allow = false
"""


def bash(command: str) -> dict[str, Any]:
    return pre_tool_use("Bash", {"command": command})


def decision(done: Any) -> str:
    return str(done.output["hookSpecificOutput"]["permissionDecision"])


def text_of(view: View, block_id: str) -> str:
    [block] = [b for b in view.blocks if b.get("block_id") == block_id]
    return str(block["text"]["text"])


def initial(view: View, block_id: str) -> str:
    [block] = [b for b in view.blocks if b.get("block_id") == block_id]
    return str(block["element"].get("initial_value", ""))


async def open_always(emu: SlackEmulator, message: Message, user: str = ALICE) -> View:
    await emu.person(user).click(message, text="Always allow")
    await emu.wait_for(lambda: bool(emu.views(user)), what="the Always allow modal")
    [view] = emu.views(user)
    return view


async def save(emu: SlackEmulator, view: View, **typed: str) -> View | None:
    """Type `typed` (block id → text) into the modal and submit it; the modal if it stays."""
    alice = emu.person(ALICE)
    for block_id, text in typed.items():
        await alice.type(emu.views(ALICE)[0], block_id=block_id, text=text)
    await alice.submit(emu.views(ALICE)[0])
    return emu.views(ALICE)[0] if emu.views(ALICE) else None


async def narrowed_and_saved(server: Server, emu: SlackEmulator) -> Hook:
    """Alice narrows the proposed rule to `git status` and its options, reads it reworded,
    and saves it; the hook's call is allowed."""
    hook = await Hook.start(server.url, bash("git status"))
    view = await open_always(emu, await posted(emu))
    reworded = await save(emu, view, **{ARGS_BLOCK: NARROWED})
    assert reworded is not None
    await emu.person(ALICE).submit(reworded)
    assert decision(await hook.finished()) == "allow"
    await server.provider.idle()
    return hook


async def test_always_allow_proposes_a_rule_that_matches_only_this_call(
    server: Server, emu: SlackEmulator
) -> None:
    hook = await Hook.start(server.url, bash("git status"))
    view = await open_always(emu, await posted(emu))
    assert initial(view, ARGS_BLOCK) == "command = re:git status"
    assert initial(view, NAME_BLOCK) == "bash-git-status"
    [record] = await server.provider.asks.recent()
    assert text_of(view, "sq~rule.covers") == (
        "*This rule will allow* `Bash`, whenever:\n"
        "• `command` is exactly `git status`\n"
        f"for calls by agent `{record.agent_id}`, until revoked."
    )
    await emu.person(ALICE).click(await posted(emu), text="Deny")
    assert decision(await hook.finished()) == "deny"


async def test_a_narrowed_rule_is_shown_reworded_before_it_is_saved(
    server: Server, emu: SlackEmulator
) -> None:
    hook = await Hook.start(server.url, bash("git status"))
    view = await open_always(emu, await posted(emu))
    reworded = await save(emu, view, **{ARGS_BLOCK: NARROWED})
    assert reworded is not None
    assert "The rule changed since it was put in words" in text_of(reworded, "sq~rule.note")
    assert text_of(reworded, "sq~rule.covers").splitlines()[1] == (
        "• `command` matches the regular expression `git status( .*)?` (whole value)"
    )
    assert await server.provider.store.rules() == []
    assert not hook.proc.returncode
    await emu.person(ALICE).submit(reworded)
    assert decision(await hook.finished()) == "allow"


async def test_the_saved_rule_is_exactly_what_the_modal_showed(
    server: Server, emu: SlackEmulator
) -> None:
    await narrowed_and_saved(server, emu)
    [rule] = await server.provider.store.rules()
    [record] = await server.provider.asks.recent()
    assert rule.model_dump(exclude={"created_at"}) == StoredRule(
        name="bash-git-status",
        tool="Bash",
        args={"command": "re:git status( .*)?"},
        scope="agent",
        subject=record.agent_id,
        created_by=ALICE,
        created_at=0,
        ask_id=record.id,
    ).model_dump(exclude={"created_at"})


async def test_a_call_inside_the_narrowed_rule_is_allowed_with_no_message_posted(
    server: Server, emu: SlackEmulator
) -> None:
    await narrowed_and_saved(server, emu)
    posts = len(ask_posts(emu))
    done = await (await Hook.start(server.url, bash("git status --short"))).finished()
    assert done.output["hookSpecificOutput"] == {
        "hookEventName": "PreToolUse",
        "permissionDecision": "allow",
        "permissionDecisionReason": "allowed by rule `bash-git-status` of the Slack review policy",
    }
    await server.provider.idle()
    assert len(ask_posts(emu)) == posts


async def test_a_call_outside_the_narrowed_rule_is_asked(
    server: Server, emu: SlackEmulator
) -> None:
    await narrowed_and_saved(server, emu)
    posts = len(ask_posts(emu))
    hook = await Hook.start(server.url, bash("git push"))
    await emu.person(ALICE).click(await posted(emu, posts + 1), text="Deny")
    assert decision(await hook.finished()) == "deny"


async def test_the_decided_card_says_always_allowed_and_what_the_rule_covers(
    server: Server, emu: SlackEmulator
) -> None:
    await narrowed_and_saved(server, emu)
    first = ask_posts(emu)[0]
    [record] = await server.provider.asks.recent()
    verdict = [
        str(b["text"]["text"])
        for b in first.blocks
        if b["type"] == "section" and str(b["text"]["text"]).startswith("✅")
    ]
    assert len(verdict) == 1
    assert verdict[0].startswith(
        f"✅ Always allowed by <@{ALICE}> — rule `bash-git-status` covers: `Bash`, whenever:\n"
        "• `command` matches the regular expression `git status( .*)?` (whole value)\n"
        f"for calls by agent `{record.agent_id}`, until revoked. · <!date^"
    )


async def test_the_audit_chain_records_the_rules_creation(
    server: Server, emu: SlackEmulator
) -> None:
    await narrowed_and_saved(server, emu)
    [record] = await server.provider.asks.recent()
    created = [
        r for r in await server.provider.store.audit_rows() if r.kind == AuditKind.RULE_CREATED
    ]
    assert [(r.ask_id, r.actor) for r in created] == [(record.id, ALICE)]
    detail = json.loads(created[0].payload)["detail"]
    assert json.loads(detail)["args"] == {"command": "re:git status( .*)?"}


@pytest.fixture
async def denying(emu: SlackEmulator, tmp_path: Path) -> AsyncIterator[Server]:
    policy = tmp_path / "review.toml"
    policy.write_text(NO_FORCE_STATUS)
    async with in_process(
        emu, tmp_path / "asks.db", SLACK_QUESTIONS_REVIEW_POLICY=str(policy)
    ) as running:
        yield running


async def test_a_deny_rule_in_the_policy_file_refuses_a_call_the_stored_rule_allows(
    denying: Server, emu: SlackEmulator
) -> None:
    await narrowed_and_saved(denying, emu)
    posts = len(ask_posts(emu))
    done = await (await Hook.start(denying.url, bash("git status --short"))).finished()
    assert done.output["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert done.output["hookSpecificOutput"]["permissionDecisionReason"] == (
        "Bash was denied by rule `no-short-status` of the Slack review policy: short status "
        "is not for agents. Do not retry it or work around it."
    )
    await denying.provider.idle()
    assert len(ask_posts(emu)) == posts


# --- refused inline ---------------------------------------------------------------------------


async def refused_inline(server: Server, emu: SlackEmulator, **typed: str) -> dict[str, str]:
    """The inline errors of the modal once `typed` is submitted; nothing stored, the call
    still waits."""
    hook = await Hook.start(server.url, bash("git status"))
    view = await open_always(emu, await posted(emu))
    kept = await save(emu, view, **typed)
    assert kept is not None
    assert await server.provider.store.rules() == []
    assert hook.proc.returncode is None
    await emu.person(ALICE).click(await posted(emu), text="Deny")
    assert decision(await hook.finished()) == "deny"
    return kept.errors


async def test_a_pattern_that_does_not_compile_is_refused_inline(
    server: Server, emu: SlackEmulator
) -> None:
    assert await refused_inline(server, emu, **{ARGS_BLOCK: "command = re:git (status"}) == {
        ARGS_BLOCK: "Line 1: the pattern of `command` is not a regular expression: missing ), "
        "unterminated subpattern at position 4."
    }


async def test_a_field_the_call_has_not_is_refused_inline(
    server: Server, emu: SlackEmulator
) -> None:
    assert await refused_inline(server, emu, **{ARGS_BLOCK: "comand = git status"}) == {
        ARGS_BLOCK: "Line 1: `comand` is not a field of this call's input (its fields: `command`)."
    }


async def test_a_rule_that_would_not_allow_this_very_call_is_refused_inline(
    server: Server, emu: SlackEmulator
) -> None:
    assert await refused_inline(server, emu, **{ARGS_BLOCK: "command = git log*"}) == {
        ARGS_BLOCK: "This rule would not allow the call it was made from: `command` does not "
        "match its own value. A rule must cover what was asked."
    }


async def test_an_expiry_that_is_not_a_duration_is_refused_inline(
    server: Server, emu: SlackEmulator
) -> None:
    assert await refused_inline(server, emu, **{TTL_BLOCK: "soon"}) == {
        TTL_BLOCK: "'soon' is not a duration like 90s, 15m, 2h or 1d"
    }


async def test_a_name_already_taken_is_refused_inline(server: Server, emu: SlackEmulator) -> None:
    await server.provider.store.add_rule(
        StoredRule(
            name="bash-git-status",
            tool="Bash",
            args={"command": "re:git log"},
            scope="everyone",
            created_by=BOB,
            created_at=time.time(),
        )
    )
    hook = await Hook.start(server.url, bash("git status"))
    view = await open_always(emu, await posted(emu))
    kept = await save(emu, view, **{NAME_BLOCK: "bash-git-status"})
    assert kept is not None
    assert kept.errors == {
        NAME_BLOCK: "A rule named `bash-git-status` exists already: choose another name."
    }
    await emu.person(ALICE).click(await posted(emu), text="Deny")
    assert decision(await hook.finished()) == "deny"


# --- who may ------------------------------------------------------------------------------


@pytest.fixture
async def never_always(emu: SlackEmulator, tmp_path: Path) -> AsyncIterator[Server]:
    policy = tmp_path / "review.toml"
    policy.write_text(NEVER_ALWAYS)
    async with in_process(
        emu, tmp_path / "asks.db", SLACK_QUESTIONS_REVIEW_POLICY=str(policy)
    ) as running:
        yield running


async def forged_always(emu: SlackEmulator, message: Message, user: str) -> int:
    """Send what Slack would sign for `user` clicking "Always allow" on `message`, whether
    or not it shows the button; the HTTP status of our answer."""
    url, emu.request_url = emu.request_url, None
    delivery = await emu.person(user).click(message, text="Deny")
    emu.request_url = url
    assert url is not None
    payload = dict(delivery.payload)
    [action] = payload["actions"]
    ask_id = Ref.decode(str(action["value"])).ask_id
    forged = {
        **action,
        "action_id": Action.ALWAYS.value,
        "value": AskRef(ask_id).encode(),
        "text": {"type": "plain_text", "text": "Always allow"},
    }
    payload["actions"] = [forged]
    body = urlencode({"payload": json.dumps(payload)})
    headers = signed_headers(
        secret=SECRET,
        timestamp=int(time.time()),
        body=body,
        content_type="application/x-www-form-urlencoded",
    )
    async with (
        aiohttp.ClientSession() as session,
        session.post(url, data=body, headers=headers) as answer,
    ):
        return answer.status


async def test_always_allow_is_not_offered_where_the_rule_says_always_allow_false(
    never_always: Server, emu: SlackEmulator
) -> None:
    hook = await Hook.start(never_always.url, bash("git status"))
    message = await posted(emu)
    buttons = [
        str(e["text"]["text"])
        for b in message.blocks
        if b["type"] == "actions"
        for e in b["elements"]
    ]
    assert "Always allow" not in buttons
    assert "Allow" in buttons
    await emu.person(ALICE).click(message, text="Deny")
    assert decision(await hook.finished()) == "deny"


async def test_a_forged_always_allow_click_is_refused_where_the_policy_forbids_it(
    never_always: Server, emu: SlackEmulator
) -> None:
    hook = await Hook.start(never_always.url, bash("git status"))
    message = await posted(emu)
    assert await forged_always(emu, message, ALICE) == 200
    await never_always.provider.idle()
    assert [e.text for e in emu.ephemerals(ALICE)] == [
        "The review policy forbids always allowing this tool: rule `git-by-hand` says "
        "always_allow = false. Nothing changed; allow it once, or deny it."
    ]
    assert emu.views(ALICE) == []
    assert await never_always.provider.store.rules() == []
    await emu.person(ALICE).click(message, text="Deny")
    assert decision(await hook.finished()) == "deny"


async def test_the_requester_may_not_save_a_rule_for_their_own_agents_call(
    server: Server, emu: SlackEmulator
) -> None:
    hook = await Hook.start(server.url, bash("git status"), SLACK_QUESTIONS_REQUESTER=ALICE)
    message = await posted(emu)
    await emu.person(ALICE).click(message, text="Always allow")
    await server.provider.idle()
    assert emu.views(ALICE) == []
    [ephemeral] = emu.ephemerals(ALICE)
    assert ephemeral.text.startswith("You may not allow a tool your own agent asked to run; ask ")
    assert await server.provider.store.rules() == []
    await emu.person(ALICE).click(message, text="Deny")
    assert decision(await hook.finished()) == "deny"


# --- whose calls, and across restarts -------------------------------------------------------

OTHER_SESSION = "9d8c7b6a-another-session"


def of_session(command: str, session: str) -> dict[str, Any]:
    return {**bash(command), "session_id": session}


async def saved_for(server: Server, emu: SlackEmulator, scope: str | None, **env: str) -> None:
    """Alice saves the proposed rule of `git status` as it stands, or for `scope`."""
    hook = await Hook.start(server.url, bash("git status"), **env)
    view = await open_always(emu, await posted(emu))
    if scope is not None:
        await emu.person(ALICE).choose(view, block_id=SCOPE_BLOCK, value=scope)
        await emu.person(ALICE).submit(emu.views(ALICE)[0])  # reworded for the new scope
        view = emu.views(ALICE)[0]
    await emu.person(ALICE).submit(view)
    assert decision(await hook.finished()) == "allow"
    await server.provider.idle()


async def test_a_rule_for_this_agent_covers_its_other_sessions(
    server: Server, emu: SlackEmulator
) -> None:
    await saved_for(server, emu, None, SLACK_QUESTIONS_AGENT_ID="ci")
    [rule] = await server.provider.store.rules()
    assert (rule.scope, rule.subject) == ("agent", "ci")
    call = of_session("git status", OTHER_SESSION)
    done = await (await Hook.start(server.url, call, SLACK_QUESTIONS_AGENT_ID="ci")).finished()
    assert decision(done) == "allow"
    assert len(ask_posts(emu)) == 1


async def test_a_rule_for_this_agent_does_not_cover_another_agent(
    server: Server, emu: SlackEmulator
) -> None:
    await saved_for(server, emu, None, SLACK_QUESTIONS_AGENT_ID="ci")
    call = of_session("git status", OTHER_SESSION)
    hook = await Hook.start(server.url, call, SLACK_QUESTIONS_AGENT_ID="deploy")
    await emu.person(ALICE).click(await posted(emu, 2), text="Deny")
    assert decision(await hook.finished()) == "deny"


async def test_a_rule_for_every_agent_covers_another_sessions_call(
    server: Server, emu: SlackEmulator
) -> None:
    await saved_for(server, emu, "everyone")
    [rule] = await server.provider.store.rules()
    assert (rule.scope, rule.subject) == ("everyone", None)
    done = await (await Hook.start(server.url, of_session("git status", OTHER_SESSION))).finished()
    assert decision(done) == "allow"
    assert len(ask_posts(emu)) == 1


async def test_a_saved_rule_still_allows_after_the_service_restarts(
    emu: SlackEmulator, tmp_path: Path
) -> None:
    db = tmp_path / "asks.db"
    async with in_process(emu, db) as first:
        await saved_for(first, emu, None)
    async with in_process(emu, db) as second:
        done = await (await Hook.start(second.url, bash("git status"))).finished()
        assert done.output["hookSpecificOutput"]["permissionDecisionReason"] == (
            "allowed by rule `bash-git-status` of the Slack review policy"
        )
    assert len(ask_posts(emu)) == 1


async def test_a_rule_saved_through_one_replica_allows_a_call_on_another(
    emu: SlackEmulator, tmp_path: Path
) -> None:
    db = tmp_path / "asks.db"
    async with (
        in_process(emu, db, SLACK_QUESTIONS_REPLICA="a") as a,
        in_process(emu, db, SLACK_QUESTIONS_REPLICA="b") as b,
    ):
        await saved_for(b, emu, None)  # Slack's clicks reach b, the last one started
        done = await (await Hook.start(a.url, bash("git status"))).finished()
        assert done.output["hookSpecificOutput"]["permissionDecisionReason"] == (
            "allowed by rule `bash-git-status` of the Slack review policy"
        )
    assert len(ask_posts(emu)) == 1


@pytest.fixture
async def alice_reviews(emu: SlackEmulator, tmp_path: Path) -> AsyncIterator[Server]:
    policy = tmp_path / "review.toml"
    policy.write_text(f'[kinds.tool-approval]\nreviewers = ["{ALICE}"]\n')
    async with in_process(
        emu, tmp_path / "asks.db", SLACK_QUESTIONS_REVIEW_POLICY=str(policy)
    ) as running:
        yield running


async def test_someone_who_may_not_allow_the_tool_is_refused_and_no_modal_opens(
    alice_reviews: Server, emu: SlackEmulator
) -> None:
    hook = await Hook.start(alice_reviews.url, bash("git status"))
    message = await posted(emu)
    await emu.person(BOB).click(message, text="Always allow")
    await alice_reviews.provider.idle()
    assert [e.text for e in emu.ephemerals(BOB)] == [
        f"Only <@{ALICE}> may answer this question, so nothing changed."
    ]
    assert emu.views(BOB) == []
    assert await alice_reviews.provider.store.rules() == []
    await emu.person(ALICE).click(message, text="Deny")
    assert decision(await hook.finished()) == "deny"


async def test_the_proposed_name_is_one_no_rule_has_taken(
    server: Server, emu: SlackEmulator
) -> None:
    await server.provider.store.add_rule(
        StoredRule(
            name="bash-git-status",
            tool="Bash",
            args={"command": "re:git log"},
            scope="everyone",
            created_by=BOB,
            created_at=time.time(),
        )
    )
    hook = await Hook.start(server.url, bash("git status"))
    view = await open_always(emu, await posted(emu))
    assert initial(view, NAME_BLOCK) == "bash-git-status-2"
    await emu.person(ALICE).click(await posted(emu), text="Deny")
    assert decision(await hook.finished()) == "deny"
