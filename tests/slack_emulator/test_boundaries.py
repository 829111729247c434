"""The README's claims about the package's edges: the emulator (terminal included) imports
nothing of `bot` or `provider`, only the standard library, aiohttp, pydantic and slack_sdk;
no module name is reused between it and `bot`; and `bot` uses it only to run offline."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EMULATOR = ROOT / "slack_emulator"
BOT = ROOT / "bot"
ALLOWED_THIRD_PARTY = {"aiohttp", "pydantic", "slack_sdk"}


def imported_modules(path: Path) -> set[str]:
    modules: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules.add(node.module)
    return modules


def module_basenames(package: Path) -> set[str]:
    return {path.stem for path in package.rglob("*.py")} - {"__init__", "__main__"}


def test_the_emulator_imports_only_itself_the_stdlib_aiohttp_pydantic_and_slack_sdk() -> None:
    offenders = {
        f"{path.relative_to(EMULATOR)}: {module}"
        for path in EMULATOR.rglob("*.py")
        for module in imported_modules(path)
        if not (
            module.split(".")[0] == "slack_emulator"
            or module.split(".")[0] in sys.stdlib_module_names
            or module.split(".")[0] in ALLOWED_THIRD_PARTY
        )
    }
    assert offenders == set()


def test_loading_the_emulator_and_its_terminal_loads_nothing_of_bot_or_provider() -> None:
    probe = (
        "import sys, slack_emulator, slack_emulator.terminal, slack_emulator.__main__; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('bot', 'provider')))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout == "[]\n"


def test_no_module_name_is_shared_by_the_emulator_and_bot() -> None:
    assert module_basenames(EMULATOR) & module_basenames(BOT) == set()


def emulator_names_imported(path: Path) -> set[str]:
    """`module.name` for every name `path` imports from slack_emulator."""
    return {
        f"{node.module}.{alias.name}"
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ImportFrom)
        and node.level == 0
        and (node.module or "").split(".")[0] == "slack_emulator"
        for alias in node.names
    }


def test_bot_uses_the_emulator_only_in_its_offline_glue_and_never_its_manual_clock() -> None:
    users = {
        str(path.relative_to(BOT)): emulator_names_imported(path)
        for path in BOT.rglob("*.py")
        if emulator_names_imported(path)
        or any(module.split(".")[0] == "slack_emulator" for module in imported_modules(path))
    }
    assert users == {
        "offline/run.py": {
            "slack_emulator.SlackEmulator",
            "slack_emulator.seed_workspace",
            "slack_emulator.playground.Playground",
            "slack_emulator.terminal.Terminal",
        }
    }


def test_the_emulator_has_a_readme() -> None:
    assert (EMULATOR / "README.md").is_file()
