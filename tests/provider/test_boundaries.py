"""Claims the README makes about the seam's boundaries."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import provider

PROVIDER_DIR = Path(provider.__file__).parent


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def test_the_seam_imports_no_slack_and_nothing_from_bot() -> None:
    offenders = {
        f"{path.name}: {name}"
        for path in PROVIDER_DIR.glob("*.py")
        for name in imported_modules(path)
        if name.split(".")[0] in {"slack_sdk", "slack_bolt", "bot"}
    }
    assert offenders == set()


def test_the_vocabulary_imports_no_service_code() -> None:
    local = {
        name for name in imported_modules(PROVIDER_DIR / "types.py") if name.startswith("provider")
    }
    assert local == set()  # only relative imports of abort/agents, checked below
    relative = {
        node.module
        for node in ast.walk(ast.parse((PROVIDER_DIR / "types.py").read_text()))
        if isinstance(node, ast.ImportFrom) and node.level == 1
    }
    assert relative == {"abort", "agents"}


def test_only_the_relay_client_talks_http() -> None:
    users = sorted(
        path.name
        for path in PROVIDER_DIR.glob("*.py")
        if any(name.split(".")[0] == "aiohttp" for name in imported_modules(path))
    )
    assert users == ["relay_client.py"]


PURE_MODULES = ("provider.types", "bot.render", "bot.answers", "bot.store")


def loaded_after_importing(modules: tuple[str, ...]) -> set[str]:
    """The top modules a fresh interpreter holds once it has imported `modules`."""
    script = (
        f"import sys\nfor name in {list(modules)!r}:\n    __import__(name)\n"
        "print('\\n'.join(sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    return set(done.stdout.split())


def test_importing_the_pure_modules_loads_no_http_bolt_or_socket_code() -> None:
    loaded = loaded_after_importing(PURE_MODULES)
    heavy = {
        name
        for name in loaded
        if name.split(".")[0] in {"aiohttp", "slack_bolt"}
        or "socket_mode" in name
        or name in {"provider.relay_client", "bot.interactions.app", "bot.slack_provider"}
    }
    assert heavy == set()


def test_the_relay_provider_still_loads_from_the_package_on_first_use() -> None:
    loaded = loaded_after_importing(("provider",))
    assert "aiohttp" not in loaded
    from provider import RelayProvider
    from provider.relay_client import RelayProvider as Direct

    assert RelayProvider is Direct


def test_the_store_and_the_outcome_table_load_no_presentation() -> None:
    loaded = loaded_after_importing(("bot.store", "bot.outcomes"))
    assert {name for name in loaded if name.startswith("bot.render")} == set()
