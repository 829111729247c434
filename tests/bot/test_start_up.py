"""What `python -m bot` loads before it knows the command: nothing of the service.

Claude Code runs `python -m bot hook claude-code` before every gated tool call, with a person
waiting, so its start-up is on their path: it needs the relay client and its own events only.
Importing the service's modules (Bolt, slack_sdk, the store, Markdown rendering, metrics)
doubled it. These tests keep `bot/cli.py`'s per-command imports from regressing; each runs a
fresh interpreter, as Claude Code does.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from .service.harness import ROOT

# Libraries only the service needs; the hook and --help start without any of them.
SERVICE_LIBRARIES = frozenset(
    {"slack_bolt", "slack_sdk", "markdown_it", "prometheus_client", "sqlite3", "mcp", "uvicorn"}
)
# The modules of bot/ every command may load: the entry point (the hook adds bot.hooks.*).
ENTRY_MODULES = frozenset({"bot", "bot.cli", "bot.flags", "bot.logs"})
# Stdlib-only helpers the hook may load too.
HOOK_HELPERS = frozenset({"bot.hosts"})
MODULES = "--- sys.modules ---"
# What a tool approval (a Bash PreToolUse) has no use for: the elicitation forms and their
# flow, and the seam's in-process service, tool and answer contract (the relay checks those).
NOT_FOR_A_TOOL_APPROVAL = frozenset(
    {
        "provider.elicitation",
        "provider.elicitation_forms",
        "provider.service",
        "provider.tool",
        "provider.contract",
    }
)
# Nobody listens on port 9 (discard) on loopback: the hook's create is refused there.
NO_RELAY = {
    "SLACK_QUESTIONS_RELAY_URL": "http://127.0.0.1:9",
    "SLACK_QUESTIONS_RELAY_TOKEN": "t" * 20,
}
BASH = {
    "session_id": "s1",
    "cwd": "/work/project",
    "hook_event_name": "PreToolUse",
    "tool_name": "Bash",
    "tool_input": {"command": "git push", "description": "Push the branch"},
}


def run_listing(
    script: str, *, stdin: str = "", env: Mapping[str, str] | None = None
) -> tuple[str, set[str]]:
    """What a fresh interpreter running `script` printed, and the modules it then holds."""
    listed = f"{script}\nimport sys\nprint({MODULES!r}, *sys.modules, sep='\\n')"
    done = subprocess.run(
        [sys.executable, "-c", listed],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), **(env or {})},
        input=stdin,
    )
    printed, _, modules = done.stdout.rpartition(MODULES)
    return printed, set(modules.split())


def loaded_by(script: str) -> set[str]:
    """The modules a fresh interpreter holds after running `script` (stdin empty, no relay
    settings: a hook run stops right after its imports, at the missing settings)."""
    return run_listing(script)[1]  # not what the command printed


def heavy(loaded: set[str]) -> set[str]:
    """The loaded modules that belong to the service, not to the entry point or the hook."""
    return {
        name
        for name in loaded
        if name.split(".")[0] in SERVICE_LIBRARIES
        or (
            name.split(".")[0] == "bot"
            and name not in ENTRY_MODULES
            and not name.startswith("bot.hooks")
            and name not in HOOK_HELPERS
        )
    }


def run_as_main(*argv: str, code: int) -> str:
    """A script that runs `python -m bot *argv` (through bot/__main__.py), ending with `code`."""
    return (
        "import runpy, sys\n"
        f"sys.argv = ['bot', *{list(argv)!r}]\n"
        "try:\n"
        "    runpy.run_module('bot', run_name='__main__', alter_sys=True)\n"
        "except SystemExit as exit_:\n"
        f"    assert exit_.code == {code}, exit_.code\n"
    )


def test_the_hook_command_loads_no_service_module() -> None:
    # No relay settings: the hook denies (exit 0, a gate fails closed) once it has imported
    # all it runs with.
    loaded = loaded_by(run_as_main("hook", "claude-code", code=0))
    assert "bot.hooks.command" in loaded  # the hook did run
    assert "provider.relay_client" in loaded
    assert heavy(loaded) == set()
    # Its few requests go over asyncio streams (bot/hooks/http.py): aiohttp's import was a
    # third of the hook's start-up.
    assert {name for name in loaded if name.split(".")[0] == "aiohttp"} == set()


def test_a_tool_approval_sends_its_create_without_the_modules_it_does_not_use() -> None:
    # A Bash PreToolUse, its relay refusing the connection (--max-outage 0: reported at once):
    # the hook has validated the event, built the ask and sent its create by the time it
    # denies, so everything it needed up to the relay is loaded — and nothing more.
    printed, loaded = run_listing(
        run_as_main("hook", "claude-code", "--max-outage", "0", code=0),
        stdin=json.dumps(BASH),
        env=NO_RELAY,
    )
    decision = json.loads(printed)["hookSpecificOutput"]
    assert decision["permissionDecision"] == "deny"
    assert "unreachable" in decision["permissionDecisionReason"]  # it did try the relay
    assert loaded & NOT_FOR_A_TOOL_APPROVAL == set()
    assert heavy(loaded) == set()
    assert {name for name in loaded if name.split(".")[0] == "aiohttp"} == set()


def test_help_loads_no_service_module() -> None:
    loaded = loaded_by(run_as_main("--help", code=0))  # exit 0: the help was printed
    assert heavy(loaded) == set()


def test_the_entry_point_loads_no_command_until_one_is_chosen() -> None:
    loaded = loaded_by("import bot.cli")
    assert {name for name in loaded if name.startswith("bot")} == ENTRY_MODULES
    assert heavy(loaded) == set()


def test_the_credentials_command_loads_no_slack_and_no_server(tmp_path: Path) -> None:
    db = tmp_path / "asks.db"
    loaded = loaded_by(run_as_main("credentials", "list", "--db", str(db), code=0))
    assert "bot.service.credentials_command" in loaded  # the command did run
    slack_and_server = {"slack_bolt", "slack_sdk", "markdown_it", "prometheus_client", "mcp"}
    assert {name for name in loaded if name.split(".")[0] in slack_and_server} == set()
    assert {
        name for name in loaded if name.startswith(("bot.service.server", "bot.parts"))
    } == set()


def test_the_erase_command_loads_the_store_but_nothing_of_slack() -> None:
    # No store at that path: erase refuses (exit 2) once it has imported all it runs with.
    loaded = loaded_by(run_as_main("erase", "a1", "--db", "/nonexistent/asks.db", code=2))
    assert "bot.service.erase" in loaded
    assert "bot.store.sqlite" in loaded
    assert {name.split(".")[0] for name in heavy(loaded)} & {
        "slack_bolt",
        "slack_sdk",
        "markdown_it",
        "mcp",
        "uvicorn",
    } == set()
    assert not any(name.startswith(("bot.parts", "bot.slack.", "bot.config")) for name in loaded)


def test_mcp_on_a_relay_loads_the_sdk_and_the_relay_client_but_no_service() -> None:
    relay = {
        "SLACK_QUESTIONS_RELAY_URL": "http://127.0.0.1:9",
        "SLACK_QUESTIONS_RELAY_TOKEN": "t" * 20,
    }
    loaded = loaded_by(
        "import bot.mcp.desk\n"
        "from bot.mcp.main import RelayTarget, resolve_target\n"
        f"assert isinstance(resolve_target({relay!r}), RelayTarget)\n"
    )
    assert {"bot.mcp.desk", "mcp", "provider.relay_client"} <= loaded
    assert {name.split(".")[0] for name in loaded} & {
        "slack_bolt",
        "slack_sdk",
        "markdown_it",
    } == set()
    assert not any(
        name.startswith(("bot.service", "bot.parts", "bot.config", "bot.slack", "bot.store"))
        for name in loaded
    )
