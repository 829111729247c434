"""The README's claim, checked: the emulator imports nothing from the rest of `bot` or from
`provider`; only the standard library, aiohttp, pydantic and slack_sdk."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

EMULATOR = Path(__file__).resolve().parents[3] / "bot" / "emulator"
ALLOWED_THIRD_PARTY = {"aiohttp", "pydantic", "slack_sdk"}


def imported_modules(path: Path) -> set[str]:
    modules: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules.add(node.module)
    return modules


def test_the_emulator_imports_only_itself_the_stdlib_aiohttp_pydantic_and_slack_sdk() -> None:
    offenders = {
        f"{path.relative_to(EMULATOR)}: {module}"
        for path in EMULATOR.rglob("*.py")
        for module in imported_modules(path)
        if not (
            module == "bot.emulator"
            or module.startswith("bot.emulator.")
            or module.split(".")[0] in sys.stdlib_module_names
            or module.split(".")[0] in ALLOWED_THIRD_PARTY
        )
    }
    assert offenders == set()


def test_the_emulator_has_a_readme() -> None:
    assert (EMULATOR / "README.md").is_file()
