"""What `python -m bot hook claude-code` loads: the relay client and its own events, no service.

Claude Code runs the hook before every gated tool call, with a person waiting, so its start-up
is on their path. Importing the service's modules (Bolt, slack_sdk, the store, Markdown
rendering, metrics) doubled it; these tests keep `bot/cli.py`'s per-command imports from
regressing. Each runs a fresh interpreter, as Claude Code does.
"""

from __future__ import annotations

import subprocess
import sys

from ..service.harness import ROOT

# Libraries only the service needs; the hook must start without any of them.
SERVICE_LIBRARIES = frozenset(
    {"slack_bolt", "slack_sdk", "markdown_it", "prometheus_client", "sqlite3", "mcp", "uvicorn"}
)
# The modules of bot/ that `python -m bot hook` may load: the entry point and the hook itself.
HOOK_MODULES = frozenset({"bot", "bot.cli", "bot.logs"})


def loaded_by(script: str) -> set[str]:
    """The modules a fresh interpreter holds after running `script` (stdin empty, no relay
    settings, so a hook run stops right after its imports, at the missing settings)."""
    done = subprocess.run(
        [sys.executable, "-c", f"{script}\nimport sys\nprint('\\n'.join(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT)},
        stdin=subprocess.DEVNULL,
    )
    return set(done.stdout.split())


def heavy(loaded: set[str]) -> set[str]:
    """The loaded modules that belong to the service, not to the hook."""
    return {
        name
        for name in loaded
        if name.split(".")[0] in SERVICE_LIBRARIES
        or (
            name.split(".")[0] == "bot"
            and name not in HOOK_MODULES
            and not name.startswith("bot.hooks")
        )
    }


def test_the_hook_command_loads_no_service_module() -> None:
    # What `python -m bot hook claude-code` runs, through bot/__main__.py.
    loaded = loaded_by(
        "import runpy, sys\n"
        "sys.argv = ['bot', 'hook', 'claude-code']\n"
        "try:\n"
        "    runpy.run_module('bot', run_name='__main__', alter_sys=True)\n"
        "except SystemExit as exit_:\n"
        "    assert exit_.code == 1, exit_.code  # no relay settings: refused after the imports\n"
    )
    assert "bot.hooks.command" in loaded  # the hook did run
    assert "provider.relay_client" in loaded
    assert heavy(loaded) == set()


def test_the_entry_point_loads_no_command_until_one_is_chosen() -> None:
    loaded = loaded_by("import bot.cli")
    assert {name for name in loaded if name.startswith("bot")} == HOOK_MODULES
    assert heavy(loaded) == set()
