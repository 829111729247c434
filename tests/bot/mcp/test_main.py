"""Where `python -m bot mcp` sends questions, and every refusal it starts with."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.config import ConfigError
from bot.mcp.main import (
    NOWHERE,
    RelayTarget,
    SocketTarget,
    parse_mcp_args,
    requester_of,
    resolve_target,
)

ROOT = Path(__file__).resolve().parents[3]
RELAY = {"SLACK_QUESTIONS_RELAY_URL": "http://relay:3000", "SLACK_QUESTIONS_RELAY_TOKEN": "t" * 20}
SOCKET = {
    "SLACK_BOT_TOKEN": "xoxb-1",
    "SLACK_APP_TOKEN": "xapp-1",
    "SLACK_QUESTIONS_CHANNEL": "C0QUESTION",
    "SLACK_QUESTIONS_RESPONDERS": "*",
}


def refusal(env: dict[str, str]) -> str:
    with pytest.raises(ConfigError) as caught:
        resolve_target(env)
    return str(caught.value)


def test_relay_variables_make_it_a_relay_client() -> None:
    assert resolve_target(RELAY) == RelayTarget(url="http://relay:3000", token="t" * 20)


def test_the_relay_wins_when_slack_credentials_are_set_too() -> None:
    assert isinstance(resolve_target(RELAY | SOCKET), RelayTarget)


def test_slack_credentials_alone_run_socket_mode_here() -> None:
    target = resolve_target(SOCKET)
    assert isinstance(target, SocketTarget)
    assert target.config.slack.channel == "C0QUESTION"


def test_with_neither_it_lists_both_set_ups() -> None:
    assert refusal({}) == NOWHERE


def test_half_a_relay_names_the_missing_variable() -> None:
    assert refusal({"SLACK_QUESTIONS_RELAY_URL": "http://relay"}) == (
        "cannot start:\n  - SLACK_QUESTIONS_RELAY_TOKEN is missing (the relay needs both)"
    )


def test_a_relay_url_that_is_not_http_is_refused() -> None:
    assert "SLACK_QUESTIONS_RELAY_URL must be an http(s) URL, not 'relay:3000'" in refusal(
        RELAY | {"SLACK_QUESTIONS_RELAY_URL": "relay:3000"}
    )


def test_socket_mode_names_each_missing_credential() -> None:
    assert refusal({"SLACK_BOT_TOKEN": "xoxb-1"}) == (
        "cannot start:\n"
        "  - SLACK_APP_TOKEN is missing (Socket Mode in this process needs "
        "SLACK_BOT_TOKEN, SLACK_APP_TOKEN, SLACK_QUESTIONS_CHANNEL)\n"
        "  - SLACK_QUESTIONS_CHANNEL is missing (Socket Mode in this process needs "
        "SLACK_BOT_TOKEN, SLACK_APP_TOKEN, SLACK_QUESTIONS_CHANNEL)"
    )


def test_socket_mode_reuses_the_services_checks() -> None:
    assert "SLACK_APP_TOKEN must start with 'xapp-'" in refusal(
        SOCKET | {"SLACK_APP_TOKEN": "xoxb-2"}
    )


def test_stdio_is_the_default_transport() -> None:
    assert parse_mcp_args([]).http is None


def test_http_takes_host_and_port() -> None:
    assert parse_mcp_args(["--http", "127.0.0.1:8765"]).http == ("127.0.0.1", 8765)
    assert parse_mcp_args(["--http", "[::1]:8765"]).http == ("::1", 8765)


def test_http_without_a_port_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        parse_mcp_args(["--http", "localhost"])
    assert caught.value.code == 2
    assert "expected HOST:PORT such as 127.0.0.1:8765, not 'localhost'" in capsys.readouterr().err


def run_python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        env={"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(ROOT), **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_the_service_entry_point_does_not_import_the_mcp_sdk() -> None:
    ran = run_python("import sys, bot.cli; assert 'mcp' not in sys.modules, 'mcp imported'")
    assert ran.returncode == 0, ran.stderr


def test_without_the_mcp_extra_it_exits_2_saying_what_to_install() -> None:
    ran = run_python(
        "import sys; sys.modules['mcp'] = None; from bot.cli import main; sys.exit(main(['mcp']))",
        **RELAY,
    )
    assert ran.returncode == 2
    assert ran.stdout == ""
    assert ran.stderr == (
        "python -m bot mcp needs the MCP SDK: pip install 'slack-questions[mcp]'\n"
    )


def test_the_requester_is_read_from_the_environment_as_the_hook_reads_it() -> None:
    assert requester_of({"SLACK_QUESTIONS_REQUESTER": " U0ALICE001 "}) == "U0ALICE001"
    assert requester_of({"SLACK_QUESTIONS_REQUESTER": ""}) is None
    assert requester_of({}) is None


def test_a_requester_that_is_not_a_slack_user_id_exits_2_naming_it() -> None:
    ran = run_python(
        "import sys; from bot.cli import main; sys.exit(main(['mcp']))",
        **RELAY,
        SLACK_QUESTIONS_REQUESTER="S0REVIEWER",
    )
    assert (ran.returncode, ran.stdout) == (2, "")
    assert ran.stderr == (
        "cannot start: SLACK_QUESTIONS_REQUESTER='S0REVIEWER' is not a Slack user id (U… or W…)\n"
    )
