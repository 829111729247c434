"""The hook command's edges: settings, arguments, exit codes, the console script."""

from __future__ import annotations

import io
import json
from importlib.metadata import entry_points

from bot.hooks.command import expires_in, main, parse_args

from .hook import pre_tool_use

EVENT = json.dumps(pre_tool_use("Bash", {"command": "ls"}))


def run(argv: list[str], env: dict[str, str], stdin: str = EVENT) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, stdin=io.StringIO(stdin), stdout=out, stderr=err, env=env)
    return code, out.getvalue(), err.getvalue()


ENV = {"SLACK_QUESTIONS_RELAY_URL": "http://127.0.0.1:9", "SLACK_QUESTIONS_RELAY_TOKEN": "t"}
QUESTION = json.dumps(
    pre_tool_use("AskUserQuestion", {"questions": [{"question": "Which?", "options": []}]})
)


def decision(out: str) -> str:
    return str(json.loads(out)["hookSpecificOutput"]["permissionDecision"])


def test_without_relay_settings_a_gated_tool_is_denied_saying_which_to_set() -> None:
    code, out, err = run(["claude-code"], env={})
    assert (code, decision(out)) == (0, "deny")
    assert err == (
        "slack-questions hook: set SLACK_QUESTIONS_RELAY_URL and SLACK_QUESTIONS_RELAY_TOKEN "
        "to reach the relay\n"
    )


def test_without_relay_settings_a_question_falls_back_to_claude_codes_dialog() -> None:
    assert run(["claude-code"], env={}, stdin=QUESTION)[:2] == (1, "")


def test_bad_arguments_deny_a_gated_tool_never_exit_2() -> None:
    code, out, _ = run(["codex"], env={})
    assert (code, decision(out)) == (0, "deny")


def test_stdin_that_is_not_json_is_denied() -> None:
    code, out, err = run(["claude-code"], env=ENV, stdin="{not json")
    assert (code, decision(out)) == (0, "deny")
    assert err.startswith("slack-questions hook: not a hook event this hook answers: body: ")


def test_on_failure_ask_hands_a_failure_to_the_terminal() -> None:
    code, out, _ = run(["claude-code", "--on-failure", "ask"], env={})
    assert (code, decision(out)) == (0, "ask")


def test_plain_http_to_another_machine_is_refused() -> None:
    env = {**ENV, "SLACK_QUESTIONS_RELAY_URL": "http://relay.example.com"}
    code, out, err = run(["claude-code"], env=env)
    assert (code, decision(out)) == (0, "deny")
    assert err == (
        "slack-questions hook: SLACK_QUESTIONS_RELAY_URL='http://relay.example.com': a relay off "
        "this machine must be reached over https (http is accepted only on 127.0.0.1, ::1 and "
        "localhost)\n"
    )


def test_a_requester_that_is_not_a_slack_user_id_is_refused() -> None:
    code, out, err = run(["claude-code"], env={**ENV, "SLACK_QUESTIONS_REQUESTER": "alice"})
    assert (code, decision(out)) == (0, "deny")
    assert "SLACK_QUESTIONS_REQUESTER='alice' is not a Slack user id" in err


def test_the_console_script_is_the_bot_entry_point() -> None:
    [script] = entry_points(group="console_scripts", name="slack-questions")
    assert script.value == "bot.cli:main"


def test_wait_defaults_to_just_under_the_timeout_and_the_ask_expires_at_it() -> None:
    args = parse_args(["claude-code", "--timeout", "60"])
    assert (args.wait, expires_in(args.wait)) == (58.0, 60)


def test_without_a_timeout_the_hook_keeps_under_claude_codes_default() -> None:
    args = parse_args(["claude-code"])
    assert (args.timeout, args.wait, expires_in(args.wait)) == (600.0, 598.0, 600)


def test_a_wait_of_zero_is_bad_arguments_and_denies() -> None:
    code, out, err = run(["claude-code", "--wait", "0"], env=ENV)
    assert (code, decision(out)) == (0, "deny")
    assert err == "slack-questions hook: bad hook arguments: claude-code --wait 0\n"
