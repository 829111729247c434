"""The README's claim, checked: the playground uses the emulator only through its public
names (`slack_emulator`), and nothing else of `bot`, nor `provider`."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

PLAYGROUND = Path(__file__).resolve().parents[3] / "slack_emulator" / "playground"


def imported_modules(path: Path) -> set[str]:
    modules: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules.add(node.module)
    return modules


def test_the_playground_imports_the_emulator_only_by_its_public_names() -> None:
    offenders = {
        f"{path.name}: {module}"
        for path in PLAYGROUND.rglob("*.py")
        for module in imported_modules(path)
        if not (
            module == "slack_emulator"
            or module.startswith("slack_emulator.playground")
            or module.split(".")[0] in sys.stdlib_module_names
            or module.split(".")[0] in {"aiohttp", "pydantic"}
        )
    }
    assert offenders == set()


def test_the_playground_ships_one_hand_written_script_and_a_stylesheet() -> None:
    assert sorted(p.name for p in (PLAYGROUND / "static").iterdir()) == [
        "playground.css",
        "playground.js",
    ]
