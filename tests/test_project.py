"""What README.md and manifest.yml promise, checked against the code."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import yaml

from bot.team import COMMAND

ROOT = Path(__file__).resolve().parents[1]


def readme_commands() -> list[str]:
    block = re.search(r"## Set-up\n.*?```sh\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert block is not None
    return [line for line in block.group(1).splitlines() if line and not line.startswith("#")]


def manifest() -> dict[str, Any]:
    loaded = yaml.safe_load((ROOT / "manifest.yml").read_text())
    assert isinstance(loaded, dict)
    return loaded


def test_the_readme_set_up_is_two_commands_one_runs_the_product_one_the_tests() -> None:
    run, test = readme_commands()
    assert run.endswith(".venv/bin/python -m bot")
    assert test.endswith(".venv/bin/python -m pytest")


def test_the_run_command_installs_only_the_product_and_the_test_command_the_test_tools() -> None:
    run, test = readme_commands()
    assert "pip install -q -e . &&" in run
    assert "pip install -q -e '.[dev]' &&" in test


def test_ci_runs_the_readmes_test_command_exactly() -> None:
    _, test = readme_commands()
    assert test in (ROOT / ".ci" / "run").read_text().splitlines()


def test_ci_also_runs_every_marked_test_the_default_run_leaves_out() -> None:
    pytest_options = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"][
        "ini_options"
    ]
    markers = sorted(line.split(":")[0] for line in pytest_options["markers"])
    left_out = " and ".join(f"not {marker}" for marker in markers)
    assert f"-m '{left_out}'" in pytest_options["addopts"]
    # One at a time (-n0): the marked tests time what they run.
    marked_run = f'.venv/bin/python -m pytest -m "{" or ".join(markers)}" -n0'
    assert marked_run in (ROOT / ".ci" / "run").read_text().splitlines()


def test_the_manifest_subscribes_to_the_events_the_app_listens_for() -> None:
    settings = manifest()["settings"]
    assert sorted(settings["event_subscriptions"]["bot_events"]) == [
        "app_home_opened",
        "message.channels",
        "message.groups",
    ]
    assert settings["interactivity"]["is_enabled"] is True


def test_every_request_url_in_the_manifest_is_the_apps_events_path() -> None:
    data = manifest()
    urls = [
        data["settings"]["event_subscriptions"]["request_url"],
        data["settings"]["interactivity"]["request_url"],
        *(command["url"] for command in data["features"]["slash_commands"]),
    ]
    assert all(url.endswith("/slack/events") for url in urls)


def test_the_manifest_declares_the_slash_command_and_scopes_the_bot_uses() -> None:
    data = manifest()
    assert [c["command"] for c in data["features"]["slash_commands"]] == [COMMAND]
    scopes = set(data["oauth_config"]["scopes"]["bot"])
    assert {
        "chat:write",
        "channels:history",
        "groups:history",
        "usergroups:read",
        "commands",
    } <= scopes
    assert data["features"]["app_home"]["home_tab_enabled"] is True


def test_the_dev_extra_installs_the_postgres_driver_the_tests_need() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    assert "slack-questions[postgres,mcp]" in extras["dev"]
    assert sorted(extras["postgres"]) == ["psycopg-pool>=3.2", "psycopg[binary]>=3.2"]
