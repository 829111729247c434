"""Edit and allow / Edit and approve through real Bolt and the emulated Slack (issue 25): the
answer carries the edited input, a field whose type changed is refused in the modal, and the
decided message shows original → edited."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest
from pydantic import JsonValue

from bot.review import ReviewPolicies, ReviewPolicy
from slack_emulator import SlackEmulator

from ..harness import ALICE, Bot, running_bot
from ..render.tool_cards import labels
from .test_tool_approval import approval, verdict


def edited(blocks: list[dict[str, object]]) -> list[str]:
    return [str(b["text"]["text"]) for b in blocks if "~ed." in str(b["block_id"])]  # type: ignore[index]


async def open_edit(bot: Bot, text: str = "Edit and allow") -> None:
    message = await bot.posted()
    await bot.emu.person(ALICE).click(message, text=text)
    await bot.emu.wait_for(lambda: bool(bot.emu.views(ALICE)), what="the edit modal")


async def test_edit_and_allow_answers_with_the_edited_input(bot: Bot) -> None:
    asking = bot.ask(approval({"command": "rm -rf build", "timeout": 60000}))
    await open_edit(bot)
    [modal] = bot.emu.views(ALICE)
    alice = bot.emu.person(ALICE)
    await alice.type(modal, block_id="sq~edit.1", text="rm -rf build/tmp")
    await alice.submit(bot.emu.views(ALICE)[0])
    assert (await asking).to_wire() == {
        "answers": [
            {
                "id": "approve",
                "selected": ["Allow"],
                "updated_input": {"command": "rm -rf build/tmp", "timeout": 60000},
            }
        ]
    }


async def test_a_field_whose_type_changed_is_refused_in_the_modal(bot: Bot) -> None:
    asking = bot.ask(approval({"command": "make test", "timeout": 60000}))
    await open_edit(bot)
    alice = bot.emu.person(ALICE)
    await alice.type(bot.emu.views(ALICE)[0], block_id="sq~edit.2", text='"60000"')
    await alice.submit(bot.emu.views(ALICE)[0])
    [modal] = bot.emu.views(ALICE)
    assert modal.errors == {
        "sq~edit.2": "“timeout” must stay a number, as the agent sent it: this is text."
    }
    assert not asking.done()
    asking.cancel()


async def test_json_that_does_not_parse_is_refused_in_the_modal(bot: Bot) -> None:
    asking = bot.ask(approval({"command": "make test", "timeout": 60000}))
    await open_edit(bot)
    alice = bot.emu.person(ALICE)
    await alice.type(bot.emu.views(ALICE)[0], block_id="sq~edit.2", text="60s")
    await alice.submit(bot.emu.views(ALICE)[0])
    assert bot.emu.views(ALICE)[0].errors == {
        "sq~edit.2": "“timeout” must stay a number, written as JSON: this is not valid JSON."
    }
    assert not asking.done()
    asking.cancel()


async def test_the_decided_message_shows_the_edit_as_original_and_edited(bot: Bot) -> None:
    asking = bot.ask(approval({"command": "rm -rf build"}))
    message = await bot.posted()
    await open_edit(bot)
    alice = bot.emu.person(ALICE)
    await alice.type(bot.emu.views(ALICE)[0], block_id="sq~edit.1", text="rm -rf build/tmp")
    await alice.submit(bot.emu.views(ALICE)[0])
    await asking
    await bot.idle()
    blocks = bot.now(message).blocks
    assert edited(blocks) == [
        "✏️ *1.* `command` edited: original\n```\nrm -rf build\n```\nedited\n```\nrm -rf build/tmp\n```"
    ]
    assert verdict(blocks).startswith(
        f"✅ Allowed by <@{ALICE}> with the input edited (above) · <!date^"
    )


async def test_a_multi_line_edit_is_shown_as_a_unified_diff(bot: Bot) -> None:
    asking = bot.ask(approval({"command": "set -e\nmake\nmake test"}))
    message = await bot.posted()
    await open_edit(bot)
    alice = bot.emu.person(ALICE)
    await alice.type(bot.emu.views(ALICE)[0], block_id="sq~edit.1", text="set -e\nmake\nmake check")
    await alice.submit(bot.emu.views(ALICE)[0])
    await asking
    await bot.idle()
    assert edited(bot.now(message).blocks) == [
        "✏️ *1.* `command` edited (unified diff, - original + edited):\n"
        "```\n@@ -2,2 +2,2 @@\n make\n-make test\n+make check\n```"
    ]


async def test_a_field_too_long_for_slack_is_not_editable_and_stays_as_sent(bot: Bot) -> None:
    content = "x" * 3001
    asking = bot.ask(approval({"file_path": "a.txt", "content": content}))
    await open_edit(bot)
    [modal] = bot.emu.views(ALICE)
    inputs = [b["block_id"] for b in modal.blocks if b["type"] == "input"]
    assert inputs == ["sq~edit.1"]
    [fixed] = [b for b in modal.blocks if b["block_id"] == "sq~edit.fixed"]
    assert "2. `content` (3,001 characters)" in json.dumps(fixed, ensure_ascii=False)
    alice = bot.emu.person(ALICE)
    await alice.type(modal, block_id="sq~edit.1", text="b.txt")
    await alice.submit(bot.emu.views(ALICE)[0])
    answer = (await asking).answers[0]
    assert answer.updated_input == {"file_path": "b.txt", "content": content}


async def test_edit_is_offered_beside_allow(bot: Bot) -> None:
    asking = bot.ask(approval({"command": "ls"}))
    message = await bot.posted()
    assert labels(message.blocks) == ["Allow", "Always allow", "Edit and allow", "Deny", "Other…"]
    asking.cancel()


PLAN = "1. Add the table\n2. Migrate\n3. Deploy"


def plan_review() -> dict[str, JsonValue]:
    return {
        "id": "plan",
        "question": "May Claude Code carry out this plan?",
        "detail": PLAN,
        "options": [{"label": "Approve"}, {"label": "Keep planning"}],
        "intent": {"kind": "plan-review", "approve": "Approve"},
    }


async def test_edit_and_approve_answers_with_the_amended_plan_shown_as_a_revision(
    bot: Bot,
) -> None:
    asking = bot.ask(plan_review())
    message = await bot.posted()
    await open_edit(bot, "Edit and approve")
    alice = bot.emu.person(ALICE)
    amended = "1. Add the table\n2. Migrate on staging first\n3. Deploy"
    await alice.type(bot.emu.views(ALICE)[0], block_id="sq~edit.plan", text=amended)
    await alice.submit(bot.emu.views(ALICE)[0])
    assert (await asking).to_wire() == {
        "answers": [{"id": "plan", "selected": ["Approve"], "updated_input": {"plan": amended}}]
    }
    await bot.idle()
    assert edited(bot.now(message).blocks) == [
        "✏️ *Amended by the reviewer before approving* (unified diff, - original + edited):\n"
        "```\n@@ -1,3 +1,3 @@\n 1. Add the table\n-2. Migrate\n+2. Migrate on staging first\n 3. Deploy\n```"
    ]


@pytest.fixture
async def two_approvals(emu: SlackEmulator) -> AsyncIterator[Bot]:
    async with running_bot(emu, review=ReviewPolicies(default=ReviewPolicy(approvals=2))) as bot:
        yield bot
    assert emu.violations == []


async def test_an_edit_is_refused_where_more_than_one_approval_decides(
    two_approvals: Bot,
) -> None:
    asking = two_approvals.ask(approval({"command": "rm -rf build"}))
    message = await two_approvals.posted()
    await two_approvals.emu.person(ALICE).click(message, text="Edit and allow")
    await two_approvals.idle()
    assert two_approvals.emu.views(ALICE) == []
    assert [e.text for e in two_approvals.emu.ephemerals(ALICE)] == [
        "An edit can be approved only where one approval decides; this tool needs 2. Nothing "
        "changed; approve it as asked, or deny it."
    ]
    assert not asking.done()
    asking.cancel()


async def chain(bot: Bot) -> list[tuple[str, str | None, str]]:
    """Each link of the decision log as (kind, actor, its payload's detail)."""
    return [
        (row.kind, row.actor, json.loads(row.payload).get("detail", ""))
        for row in await bot.provider.store.audit_rows()
    ]


async def test_the_decision_log_keeps_an_edit_as_its_diff_after_the_allow(bot: Bot) -> None:
    asking = bot.ask(approval({"command": "rm -rf build", "timeout": 60000}))
    await open_edit(bot)
    alice = bot.emu.person(ALICE)
    await alice.type(bot.emu.views(ALICE)[0], block_id="sq~edit.1", text="rm -rf build/tmp")
    await alice.submit(bot.emu.views(ALICE)[0])
    await asking
    await bot.idle()
    links = await chain(bot)
    kinds = [kind for kind, _, _ in links]
    assert kinds.index("edited") > kinds.index("answered")
    assert links[kinds.index("edited")] == (
        "edited",
        ALICE,
        "command:\n@@ -1 +1 @@\n-rm -rf build\n+rm -rf build/tmp",
    )


async def test_the_decision_log_keeps_an_amended_plan_as_its_diff(bot: Bot) -> None:
    asking = bot.ask(plan_review())
    await open_edit(bot, "Edit and approve")
    alice = bot.emu.person(ALICE)
    amended = "1. Add the table\n2. Migrate on staging first\n3. Deploy"
    await alice.type(bot.emu.views(ALICE)[0], block_id="sq~edit.plan", text=amended)
    await alice.submit(bot.emu.views(ALICE)[0])
    await asking
    await bot.idle()
    [edit] = [link for link in await chain(bot) if link[0] == "edited"]
    assert edit == (
        "edited",
        ALICE,
        "plan:\n@@ -1,3 +1,3 @@\n 1. Add the table\n-2. Migrate\n+2. Migrate on staging first\n"
        " 3. Deploy",
    )


async def test_an_edit_refused_in_the_modal_leaves_nothing_in_the_log(bot: Bot) -> None:
    asking = bot.ask(approval({"command": "make test", "timeout": 60000}))
    await open_edit(bot)
    alice = bot.emu.person(ALICE)
    await alice.type(bot.emu.views(ALICE)[0], block_id="sq~edit.2", text='"60000"')
    await alice.submit(bot.emu.views(ALICE)[0])
    assert "edited" not in [kind for kind, _, _ in await chain(bot)]
    asking.cancel()
