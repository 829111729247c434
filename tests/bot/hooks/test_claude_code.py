"""`python -m bot hook claude-code` answering Claude Code's own tools from Slack.

Each test feeds one event, in the shape Claude Code sends, to the real hook process, answers
as a person in the emulated Slack, and asserts the exact JSON the hook prints.
"""

from __future__ import annotations

import asyncio
import json
import signal
from pathlib import Path

from bot.outcomes import AskError, Verdict
from bot.service.server import Server
from provider import ErrorCode, ToolApprovalIntent
from provider.elicitation import URL_MODE_REFUSED
from slack_emulator import SlackEmulator, Slow

from ..harness import ALICE, CHANNEL
from ..service.harness import free_port, in_process
from .hook import (
    SESSION,
    Hook,
    ask_posts,
    asking,
    denied,
    elicitation,
    posted,
    pre_tool_use,
)

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
                    "answers": {"Which database should the service use?": "Postgres (Recommended)"},
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


PLAN = "# Plan: refunds\n\n1. Add a `refunds` table.\n2. Expose `POST /refunds`.\n"
EXIT_PLAN = {
    "plan": PLAN,
    "planFilePath": "/home/ana/.claude/plans/refunds.md",
    "allowedPrompts": [{"tool": "Bash", "prompt": "run tests"}],
}


async def test_an_approved_plan_is_allowed_without_the_plan_claude_code_injected(
    server: Server, emu: SlackEmulator
) -> None:
    hook = await Hook.start(server.url, pre_tool_use("ExitPlanMode", EXIT_PLAN))
    await emu.person(ALICE).click(await posted(emu), text="Approve")
    done = await hook.finished()
    assert (done.code, done.output) == (
        0,
        {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "allow",
                "permissionDecisionReason": f"plan approved in Slack by Slack user {ALICE}",
                # Sent back, `plan` would read as the user's edit (issue 24, finding 2).
                "updatedInput": {"allowedPrompts": EXIT_PLAN["allowedPrompts"]},
            }
        },
    )


async def test_requested_changes_deny_quoting_the_reviewer_and_comment(
    server: Server, emu: SlackEmulator
) -> None:
    hook = await Hook.start(server.url, pre_tool_use("ExitPlanMode", EXIT_PLAN))
    alice = emu.person(ALICE)
    await alice.click(await posted(emu), text="Request changes")
    await emu.wait_for(lambda: bool(emu.views(ALICE)), what="the changes modal")
    await alice.type(emu.views(ALICE)[0], block_id="plan", text="Refunds need an audit trail.")
    await alice.submit(emu.views(ALICE)[0])
    done = await hook.finished()
    assert (done.code, done.output) == (
        0,
        {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": (
                    f"Slack user {ALICE} requested changes to the plan in Slack: "
                    "“Refunds need an audit trail.”. "
                    "Revise the plan with this in mind and present it again."
                ),
            }
        },
    )


async def test_keep_planning_denies_naming_the_reviewer(server: Server, emu: SlackEmulator) -> None:
    hook = await Hook.start(server.url, pre_tool_use("ExitPlanMode", EXIT_PLAN))
    await emu.person(ALICE).click(await posted(emu), text="Keep planning")
    done = await hook.finished()
    assert done.output["hookSpecificOutput"] == {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": (
            f"Slack user {ALICE} did not approve the plan in Slack (chose “Keep planning”). "
            "Keep planning and present a revised plan."
        ),
    }


async def test_discuss_in_thread_denies_pointing_at_the_thread(
    server: Server, emu: SlackEmulator
) -> None:
    hook = await Hook.start(server.url, pre_tool_use("ExitPlanMode", EXIT_PLAN))
    await emu.person(ALICE).click(await posted(emu), text="Discuss in thread")
    done = await hook.finished()
    assert done.output["hookSpecificOutput"] == {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": (
            f"Slack user {ALICE} chose to discuss this in the Slack thread "
            "“Claude Code · billing-api” instead of deciding. "
            "Do not go ahead: wait for the outcome of that discussion."
        ),
    }


async def test_an_expired_plan_review_is_denied_never_allowed(
    emu: SlackEmulator, tmp_path: Path
) -> None:
    policy = tmp_path / "review.toml"
    policy.write_text('[default]\nexpire_after = "1s"\n')
    async with in_process(
        emu, tmp_path / "asks.db", SLACK_QUESTIONS_REVIEW_POLICY=str(policy)
    ) as server:
        hook = await Hook.start(server.url, pre_tool_use("ExitPlanMode", EXIT_PLAN))
        message = await posted(emu)
        done = await hook.finished()
        await server.provider.idle()
        assert "Expired unapproved" in json.dumps(emu.message(CHANNEL, message.ts).blocks)
    assert (done.code, done.output) == (
        0,
        {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": (
                    "ExitPlanMode was not run: no person approved it in Slack ("
                    "nobody answered: ask_user_question was aborted before the user "
                    "answered: the review expired after 1 s without approval"
                    "). Do not retry it or work around it without a person's approval."
                ),
            }
        },
    )


async def test_giving_up_after_wait_withdraws_the_plan_and_denies_it(
    server: Server, emu: SlackEmulator
) -> None:
    hook = await Hook.start(server.url, pre_tool_use("ExitPlanMode", EXIT_PLAN), "--wait", "1")
    message = await posted(emu)
    done = await hook.finished()
    assert done.output["hookSpecificOutput"] == {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": (
            "ExitPlanMode was not run: no person approved it in Slack ("
            "nobody answered: no decision within 1 s; the ask was withdrawn"
            "). Do not retry it or work around it without a person's approval."
        ),
    }
    await server.provider.idle()
    assert "Withdrawn" in json.dumps(emu.message(CHANNEL, message.ts).blocks)


async def test_giving_up_with_on_failure_ask_hands_the_plan_to_the_terminal(
    server: Server, emu: SlackEmulator
) -> None:
    hook = await Hook.start(
        server.url, pre_tool_use("ExitPlanMode", EXIT_PLAN), "--wait", "1", "--on-failure", "ask"
    )
    await posted(emu)
    done = await hook.finished()
    assert (done.code, done.output["hookSpecificOutput"]) == (
        0,
        {
            "hookEventName": "PreToolUse",
            "permissionDecision": "ask",
            "permissionDecisionReason": (
                "Slack approval could not be obtained (nobody answered: no decision within 1 s; "
                "the ask was withdrawn); decide here instead."
            ),
        },
    )


async def test_sigterm_withdraws_the_ask_and_denies(server: Server, emu: SlackEmulator) -> None:
    hook = await Hook.start(server.url, pre_tool_use("ExitPlanMode", EXIT_PLAN))
    message = await posted(emu)
    hook.proc.send_signal(signal.SIGTERM)
    done = await hook.finished()
    assert (done.code, done.output["hookSpecificOutput"]) == (
        0,
        {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": (
                "ExitPlanMode was not run: no person approved it in Slack ("
                "stopped before anyone answered; the ask was withdrawn in Slack"
                "). Do not retry it or work around it without a person's approval."
            ),
        },
    )
    await server.provider.idle()
    assert "Withdrawn" in json.dumps(emu.message(CHANNEL, message.ts).blocks)


RM = {"command": "rm -rf build", "description": "Remove the build directory"}


async def test_a_killed_hook_has_its_ask_withdrawn_once_expires_in_lapses(
    server: Server, emu: SlackEmulator
) -> None:
    # --wait 3: the ask is made with expires_in = 3 + 2 s. SIGKILL (Claude Code's timeout)
    # runs no handler: only the relay can withdraw it.
    hook = await Hook.start(server.url, pre_tool_use("Bash", RM), "--wait", "3")
    message = await posted(emu)
    [pending] = await server.provider.asks.recent()
    assert pending.expires_at == pending.created_at + 5
    repainted = asyncio.Event()
    emu.inject("chat.update", Slow(seconds=30, released=repainted))  # Slack repaints late
    hook.proc.kill()
    assert (await hook.finished()).code == -signal.SIGKILL
    record = await server.provider.asks.wait(pending.id)
    assert (record.verdict, record.error, record.decided_by) == (
        Verdict.WITHDRAWN,
        AskError(
            code=ErrorCode.ASK_ABORTED,
            message="ask_user_question was aborted before the user answered: "
            "the asking process stopped waiting for an answer",
        ),
        None,
    )
    await emu.wait_for(lambda: emu.held("chat.update") == 1, what="the repaint under way")
    await emu.person(ALICE).click(message, text="Allow")  # a signed click, after the lapse
    await emu.wait_for(lambda: bool(emu.ephemerals(ALICE)), what="the late click's answer")
    assert [e.text for e in emu.ephemerals(ALICE)] == [
        "The agent withdrew this question; no answer is needed."
    ]
    repainted.set()
    withdrawn = (
        ":heavy_minus_sign: Withdrawn, nobody answered: the asking process stopped waiting "
        "for an answer"
    )
    await emu.wait_for(
        lambda: withdrawn in json.dumps(emu.message(CHANNEL, message.ts).blocks),
        what="the message shown withdrawn",
    )
    await server.provider.idle()
    after = await server.provider.asks.stored(pending.id)
    assert after is not None
    assert (after.verdict, after.answer, after.decided_by) == (Verdict.WITHDRAWN, None, None)


async def test_a_bash_approval_asks_allow_bash_with_the_command_and_allows(
    server: Server, emu: SlackEmulator
) -> None:
    hook = await Hook.start(server.url, pre_tool_use("Bash", RM))
    message = await posted(emu)
    fields = [b["text"]["text"] for b in message.blocks if b["block_id"].startswith("sq~tf.")]
    assert fields == [
        "*1.* `command` · text\n```\nrm -rf build\n```\n"
        "*2.* `description` · text · _the agent's description (not checked)_\n"
        "```\nRemove the build directory\n```"
    ]
    await emu.person(ALICE).click(message, text="Allow")
    done = await hook.finished()
    assert (done.code, done.output) == (
        0,
        {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "allow",
                "permissionDecisionReason": f"allowed in Slack by Slack user {ALICE}",
            }
        },
    )


async def test_a_tool_approval_is_asked_with_the_tool_approval_intent(
    server: Server, emu: SlackEmulator
) -> None:
    hook = await Hook.start(server.url, pre_tool_use("Bash", RM))
    await posted(emu)
    [record] = await server.provider.asks.recent()
    assert (record.questions[0].intent, record.policy) == (
        ToolApprovalIntent(allow="Allow", tool="Bash", input=RM, session=SESSION),
        "default",
    )
    await emu.person(ALICE).click(await posted(emu), text="Deny")
    assert (await hook.finished()).code == 0


async def test_a_denied_bash_command_names_the_reviewer(server: Server, emu: SlackEmulator) -> None:
    hook = await Hook.start(server.url, pre_tool_use("Bash", RM))
    await emu.person(ALICE).click(await posted(emu), text="Deny")
    done = await hook.finished()
    assert done.output["hookSpecificOutput"] == {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": f"Slack user {ALICE} denied Bash in Slack.",
    }


async def test_a_typed_answer_to_an_approval_is_a_deny_that_quotes_it(
    server: Server, emu: SlackEmulator
) -> None:
    hook = await Hook.start(server.url, pre_tool_use("Bash", RM))
    alice = emu.person(ALICE)
    await alice.click(await posted(emu), text="Other…")
    await emu.wait_for(lambda: bool(emu.views(ALICE)), what="the Other modal")
    await alice.type(emu.views(ALICE)[0], block_id="approve", text="Only rm -rf build/tmp")
    await alice.submit(emu.views(ALICE)[0])
    done = await hook.finished()
    assert done.output["hookSpecificOutput"] == {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": (
            f"Slack user {ALICE} did not allow Bash in Slack and said: “Only rm -rf build/tmp”"
        ),
    }


async def test_backticks_and_long_commands_cannot_break_out_of_the_code(
    server: Server, emu: SlackEmulator
) -> None:
    command = "echo `whoami` && cat <<'EOF'\n```\n<!channel>\nEOF\n" + "x" * 200
    hook = await Hook.start(server.url, pre_tool_use("Bash", {"command": command}))
    message = await posted(emu)
    shown = json.dumps(message.blocks, ensure_ascii=False)
    assert "<!channel>" not in shown
    assert "\\n`\u200b`\u200b`\\n&lt;!channel&gt;\\n" in shown
    assert "\\n> " not in shown
    await emu.person(ALICE).click(message, text="Deny")
    assert (await hook.finished()).output["hookSpecificOutput"]["permissionDecision"] == "deny"


def elicited(action: str, content: dict[str, object] | None = None) -> dict[str, object]:
    decision: dict[str, object] = {"hookEventName": "Elicitation", "action": action}
    if content is not None:
        decision["content"] = content
    return {"hookSpecificOutput": decision}


ENVIRONMENT = {
    "properties": {
        "env": {
            "type": "string",
            "title": "Environment",
            "oneOf": [
                {"const": "stg", "title": "Staging"},
                {"const": "prd", "title": "Production"},
            ],
        }
    },
    "required": ["env"],
}


async def test_an_enum_elicitation_answers_with_the_const_of_the_chosen_title(
    server: Server, emu: SlackEmulator
) -> None:
    hook = await Hook.start(server.url, elicitation(ENVIRONMENT))
    message = await posted(emu)
    assert "deployer: Deploy settings?" in json.dumps(message.blocks)
    await emu.person(ALICE).click(message, text="Production")
    done = await hook.finished()
    assert (done.code, done.output) == (0, elicited("accept", {"env": "prd"}))


async def test_a_multi_enum_elicitation_answers_with_a_list_in_schema_order(
    server: Server, emu: SlackEmulator
) -> None:
    schema = {
        "properties": {
            "regions": {
                "type": "array",
                "title": "Regions",
                "items": {"type": "string", "enum": ["eu-west-1", "us-east-1", "ap-south-1"]},
            }
        }
    }
    hook = await Hook.start(server.url, elicitation(schema))
    message = await posted(emu)
    alice = emu.person(ALICE)
    await alice.check(message, block_id="regions", values=["2", "0"])
    await alice.click(message, text="Submit")
    done = await hook.finished()
    assert done.output == elicited("accept", {"regions": ["eu-west-1", "ap-south-1"]})


async def test_a_boolean_elicitation_is_yes_or_no(server: Server, emu: SlackEmulator) -> None:
    schema = {"properties": {"migrate": {"type": "boolean", "title": "Run the migration now?"}}}
    hook = await Hook.start(server.url, elicitation(schema))
    await emu.person(ALICE).click(await posted(emu), text="No")
    done = await hook.finished()
    assert done.output == elicited("accept", {"migrate": False})


async def test_a_number_elicitation_refuses_a_bad_number_and_asks_again(
    server: Server, emu: SlackEmulator
) -> None:
    schema = {
        "properties": {
            "replicas": {"type": "integer", "title": "Replicas", "minimum": 1, "maximum": 10}
        },
        "required": ["replicas"],
    }
    hook = await Hook.start(server.url, elicitation(schema))
    first = await posted(emu)
    alice = emu.person(ALICE)
    await alice.reply(CHANNEL, str(first.thread_ts), "a few")
    again = await posted(emu, 2)
    assert "Not accepted: “a few” is not a whole number" in json.dumps(
        again.blocks, ensure_ascii=False
    )
    await alice.reply(CHANNEL, str(first.thread_ts), "3")
    done = await hook.finished()
    assert done.output == elicited("accept", {"replicas": 3})


async def test_a_form_of_several_fields_is_one_batch(server: Server, emu: SlackEmulator) -> None:
    schema = {
        "properties": {
            **ENVIRONMENT["properties"],  # type: ignore[dict-item]
            "note": {"type": "string", "title": "Release note", "maxLength": 200},
        },
        "required": ["env"],
    }
    hook = await Hook.start(server.url, elicitation(schema))
    message = await posted(emu)
    alice = emu.person(ALICE)
    await alice.choose(message, block_id="env", value="0")
    await alice.type(message, block_id="note", text="Faster invoices")
    await alice.click(message, text="Submit")
    done = await hook.finished()
    assert done.output == elicited("accept", {"env": "stg", "note": "Faster invoices"})


async def test_an_unreachable_relay_denies_the_plan_within_seconds() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    hook = await Hook.start(url, pre_tool_use("ExitPlanMode", EXIT_PLAN))
    done = await hook.finished()  # the default outage budget is 5 s, not 30
    why = f"ASK_FAILED: the relay at {url} was unreachable for 5 s"
    assert (done.code, done.output, done.stderr) == (
        0,
        denied("ExitPlanMode", why),
        asking() + f"slack-questions hook: {why}\n",
    )


async def test_a_relay_that_went_down_denies_the_tool(emu: SlackEmulator, tmp_path: Path) -> None:
    async with in_process(emu, tmp_path / "asks.db") as server:
        url = server.url
    done = await (await Hook.start(url, pre_tool_use("Bash", RM), "--max-outage", "0.5")).finished()
    why = f"ASK_FAILED: the relay at {url} was unreachable for 0.5 s"
    assert (done.code, done.output, done.stderr) == (
        0,
        denied("Bash", why),
        asking() + f"slack-questions hook: {why}\n",
    )


async def test_a_wrong_relay_token_denies_the_tool(server: Server, emu: SlackEmulator) -> None:
    hook = await Hook.start(
        server.url, pre_tool_use("Bash", RM), SLACK_QUESTIONS_RELAY_TOKEN="not-the-relay-token"
    )
    done = await hook.finished()
    why = "ASK_FAILED: relay POST /v1/asks: HTTP 401 UNAUTHORIZED: missing or wrong bearer token"
    assert (done.code, done.output) == (0, denied("Bash", why))
    assert ask_posts(emu) == []


async def test_sigterm_withdraws_a_bash_approval_and_denies(
    server: Server, emu: SlackEmulator
) -> None:
    hook = await Hook.start(server.url, pre_tool_use("Bash", RM))
    message = await posted(emu)
    hook.proc.send_signal(signal.SIGTERM)
    done = await hook.finished()
    why = "stopped before anyone answered; the ask was withdrawn in Slack"
    assert (done.code, done.output, done.stderr) == (
        0,
        denied("Bash", why),
        asking() + f"slack-questions hook: {why}\n",
    )
    await emu.wait_for(
        lambda: (
            "Withdrawn, nobody answered: the agent withdrew it through the relay"
            in json.dumps(emu.message(CHANNEL, message.ts).blocks)
        ),
        what="the message shown withdrawn",
    )


async def test_a_malformed_event_of_a_gated_tool_is_denied(server: Server) -> None:
    event = pre_tool_use("Bash", RM)
    del event["session_id"]
    done = await (await Hook.start(server.url, event)).finished()
    assert (done.code, done.output["hookSpecificOutput"]) == (
        0,
        {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": (
                "Bash was not run: no person approved it in Slack ("
                "not a hook event this hook answers: PreToolUse.session_id: Field required"
                "). Do not retry it or work around it without a person's approval."
            ),
        },
    )


async def test_an_event_this_hook_does_not_answer_is_denied(server: Server) -> None:
    event = {**pre_tool_use("Bash", RM), "hook_event_name": "PostToolUse"}
    done = await (await Hook.start(server.url, event)).finished()
    assert (done.code, done.output["hookSpecificOutput"]["permissionDecision"]) == (0, "deny")
    assert "not a hook event this hook answers" in done.stderr


async def test_a_malformed_ask_user_question_input_is_refused(server: Server) -> None:
    event = pre_tool_use("AskUserQuestion", {"questions": []})
    done = await (await Hook.start(server.url, event)).finished()
    assert (done.code, done.output) == (1, None)
    assert done.stderr == (
        "slack-questions hook: AskUserQuestion input is not what Claude Code sends: "
        "questions: List should have at least 1 item after validation, not 0\n"
    )


async def test_url_mode_elicitation_is_refused_clearly(server: Server) -> None:
    event = {
        **elicitation({}),
        "message": "Please authenticate",
        "mode": "url",
        "url": "https://auth.example.com/login",
    }
    del event["requested_schema"]
    done = await (await Hook.start(server.url, event)).finished()
    assert (done.code, done.output) == (1, None)
    assert done.stderr == f"slack-questions hook: {URL_MODE_REFUSED}\n"


async def test_a_form_slack_cannot_show_is_refused_naming_the_field(server: Server) -> None:
    schema = {"properties": {"limits": {"type": "object", "title": "Limits"}}}
    done = await (await Hook.start(server.url, elicitation(schema))).finished()
    assert (done.code, done.output) == (1, None)
    assert done.stderr == (
        "slack-questions hook: cannot ask deployer's form in Slack: property 'limits' has type "
        "'object'; a form may hold strings, numbers, integers, booleans and enums\n"
    )


async def test_an_approval_nobody_gives_in_time_is_denied(
    server: Server, emu: SlackEmulator
) -> None:
    hook = await Hook.start(server.url, pre_tool_use("Bash", RM), "--wait", "1")
    await posted(emu)
    done = await hook.finished()
    assert (done.code, done.output["hookSpecificOutput"]["permissionDecision"]) == (0, "deny")


async def test_an_elicitation_nobody_answers_in_time_is_cancelled(
    server: Server, emu: SlackEmulator
) -> None:
    hook = await Hook.start(server.url, elicitation(ENVIRONMENT), "--wait", "1")
    await posted(emu)
    done = await hook.finished()
    assert (done.code, done.output) == (0, elicited("cancel"))


async def test_several_questions_are_one_batch_and_a_skipped_one_is_left_out(
    server: Server, emu: SlackEmulator
) -> None:
    event = pre_tool_use("AskUserQuestion", {"questions": [DATABASE, FEATURES]})
    hook = await Hook.start(server.url, event)
    message = await posted(emu)
    alice = emu.person(ALICE)
    await alice.choose(message, block_id="q1", value="1")
    await alice.check(message, block_id="sq~s.1", values=["skip"])
    await alice.click(message, text="Submit")
    done = await hook.finished()
    assert done.output["hookSpecificOutput"]["updatedInput"] == {
        "questions": [DATABASE, FEATURES],
        "answers": {"Which database should the service use?": "SQLite"},
    }
