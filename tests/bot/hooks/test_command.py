"""The hook command's edges: settings, arguments, exit codes, the console script."""

from __future__ import annotations

import io
import json
from importlib.metadata import entry_points

from bot.hooks.command import main

from .hook import pre_tool_use

EVENT = json.dumps(pre_tool_use("Bash", {"command": "ls"}))


def run(argv: list[str], env: dict[str, str], stdin: str = EVENT) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, stdin=io.StringIO(stdin), stdout=out, stderr=err, env=env)
    return code, out.getvalue(), err.getvalue()


def test_without_relay_settings_it_prints_nothing_and_says_which_to_set() -> None:
    assert run(["claude-code"], env={}) == (
        1,
        "",
        "slack-questions hook: set SLACK_QUESTIONS_RELAY_URL and SLACK_QUESTIONS_RELAY_TOKEN "
        "to reach the relay\n",
    )


def test_bad_arguments_are_a_non_blocking_error_never_exit_2() -> None:
    code, out, _ = run(["codex"], env={})
    assert (code, out) == (1, "")


def test_stdin_that_is_not_json_is_refused() -> None:
    env = {"SLACK_QUESTIONS_RELAY_URL": "http://127.0.0.1:9", "SLACK_QUESTIONS_RELAY_TOKEN": "t"}
    code, out, err = run(["claude-code"], env=env, stdin="{not json")
    assert (code, out) == (1, "")
    assert err.startswith("slack-questions hook: not a hook event this hook answers: body: ")


def test_the_console_script_is_the_bot_entry_point() -> None:
    [script] = entry_points(group="console_scripts", name="slack-questions")
    assert script.value == "bot.cli:main"
