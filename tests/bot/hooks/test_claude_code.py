"""`python -m bot hook claude-code` answering Claude Code's own tools from Slack.

Each test feeds one event, in the shape Claude Code sends, to the real hook process, answers
as a person in the emulated Slack, and asserts the exact JSON the hook prints.
"""

from __future__ import annotations

from bot.emulator import SlackEmulator
from bot.server import Server

from ..harness import ALICE, CHANNEL
from .hook import Hook, posted, pre_tool_use

DATABASE = {
    "question": "Which database should the service use?",
    "header": "Database",
    "options": [
        {"label": "Postgres (Recommended)", "description": "Managed, with backups"},
        {"label": "SQLite", "description": "A file next to the service"},
    ],
    "multiSelect": False,
}
FEATURES = {
    "question": "Which features should I build first?",
    "header": "Features",
    "options": [
        {"label": "Invoices", "description": "PDF and e-mail"},
        {"label": "Refunds", "description": "Partial and full"},
        {"label": "Webhooks", "description": "Signed callbacks"},
    ],
    "multiSelect": True,
}


def other(index: int) -> str:
    return f"sq~o.{index}"


async def test_a_single_select_answer_allows_the_tool_with_the_chosen_label(
    server: Server, emu: SlackEmulator
) -> None:
    event = pre_tool_use("AskUserQuestion", {"questions": [DATABASE]})
    hook = await Hook.start(server.url, event)
    await emu.person(ALICE).click(await posted(emu), text="Postgres (Recommended)")
    done = await hook.finished()
    assert (done.code, done.output) == (
        0,
        {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "allow",
                "permissionDecisionReason": f"answered in Slack by Slack user {ALICE}",
                "updatedInput": {
                    "questions": [DATABASE],
                    "answers": {
                        "Which database should the service use?": "Postgres (Recommended)"
                    },
                },
            }
        },
    )


async def test_a_multi_select_answer_joins_the_labels_in_offer_order(
    server: Server, emu: SlackEmulator
) -> None:
    event = pre_tool_use("AskUserQuestion", {"questions": [FEATURES]})
    hook = await Hook.start(server.url, event)
    message = await posted(emu)
    alice = emu.person(ALICE)
    await alice.check(message, block_id="q1", values=["2", "0"])
    await alice.click(message, text="Submit")
    done = await hook.finished()
    assert done.output["hookSpecificOutput"]["updatedInput"] == {
        "questions": [FEATURES],
        "answers": {"Which features should I build first?": "Invoices, Webhooks"},
    }


async def test_other_text_is_the_answer_itself(server: Server, emu: SlackEmulator) -> None:
    event = pre_tool_use("AskUserQuestion", {"questions": [DATABASE]})
    hook = await Hook.start(server.url, event)
    alice = emu.person(ALICE)
    await alice.click(await posted(emu), text="Other…")
    await emu.wait_for(lambda: bool(emu.views(ALICE)), what="the Other modal")
    [modal] = emu.views(ALICE)
    await alice.type(modal, block_id="q1", text="CockroachDB")
    await alice.submit(emu.views(ALICE)[0])
    done = await hook.finished()
    assert done.output["hookSpecificOutput"]["updatedInput"]["answers"] == {
        "Which database should the service use?": "CockroachDB"
    }


async def test_other_text_beside_ticked_labels_comes_after_them(
    server: Server, emu: SlackEmulator
) -> None:
    event = pre_tool_use("AskUserQuestion", {"questions": [FEATURES]})
    hook = await Hook.start(server.url, event)
    message = await posted(emu)
    alice = emu.person(ALICE)
    await alice.check(message, block_id="q1", values=["1"])
    await alice.type(message, block_id=other(0), text="Audit log")
    await alice.click(message, text="Submit")
    done = await hook.finished()
    assert done.output["hookSpecificOutput"]["updatedInput"]["answers"] == {
        "Which features should I build first?": "Refunds, Audit log"
    }


async def test_the_thread_is_the_session_named_after_the_project(
    server: Server, emu: SlackEmulator
) -> None:
    hook = await Hook.start(server.url, pre_tool_use("AskUserQuestion", {"questions": [DATABASE]}))
    message = await posted(emu)
    root = emu.message(CHANNEL, str(message.thread_ts))
    await emu.person(ALICE).click(message, text="SQLite")
    await hook.finished()
    assert root.text == "Claude Code · billing-api needs answers from people"
