"""How `bot/` is layered, read from its import graph.

Every module of `bot/` is parsed with `ast` (imports inside functions included) into one graph
of module -> imported module. Three things are checked on it: each folder imports only what
its rule in `RULES` allows, only the modules that listen to Slack import Bolt, and no module
imports itself back through others. Two checks on the code itself keep what imports cannot
say: nothing reaches through an `asks` object to its collaborators, and the life of an ask and
the interactions leave every Slack call to `slack/`.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import bot

BOT: Final = Path(bot.__file__).parent

# The top of bot/: the vocabulary every layer shares, plumbing, and the entry points.
VOCABULARY: Final = frozenset(
    {
        "outcomes",
        "block_ids",
        "payloads",
        "answers",
        "review",
        "clock",
        "tasks",
        "sla",
        "delegation",
        "claims",
    }
)
PLUMBING: Final = frozenset({"logs", "metrics", "hosts"})
ENTRY: Final = frozenset(
    {"__init__", "__main__", "cli", "flags", "config", "parts", "slack_provider"}
)
TEAM: Final = frozenset({"team"})
# The folders of bot/ (render/ is vocabulary too: pure Block Kit from the vocabulary).
FOLDERS: Final = frozenset(
    {"render", "store", "slack", "asks", "interactions", "service", "mcp", "hooks", "offline"}
)
STORE_RECORDS: Final = "bot.store"  # the store folder's face: its records, no backend


@dataclass(frozen=True)
class Rule:
    """What a group of modules may import from `bot/` besides itself, and why."""

    allowed: frozenset[str]
    why: str
    records: bool = False  # may import the store's records (`bot.store`), not its backends


def rule(*allowed: str, why: str, records: bool = False) -> Rule:
    return Rule(frozenset(allowed), why, records)


BELOW_SERVICE: Final = ("vocabulary", "plumbing", "store", "slack", "asks", "team", "entry")
RULES: Final = {
    "vocabulary": rule(
        why="the words every layer shares, and their Block Kit: nothing above them to know",
        records=True,  # the team view renders the records the store keeps
    ),
    "plumbing": rule(why="logs and counts: every layer logs and counts, so they know no layer"),
    "store": rule("vocabulary", why="persistence only: it keeps the vocabulary, knows no Slack"),
    "slack": rule(
        "vocabulary",
        "plumbing",
        "store",
        why="every Web API call: the asks and interactions above call it, never the reverse",
    ),
    "asks": rule(
        "vocabulary",
        "plumbing",
        "store",
        "slack",
        why="the life of an ask: the interactions above settle it, it knows nothing of them",
    ),
    "team": rule(
        "vocabulary",
        "plumbing",
        "store",
        "slack",
        why="the team view: records and permalinks to Block Kit; interactions register it",
    ),
    "interactions": rule(
        "vocabulary",
        "plumbing",
        "store",
        "slack",
        "asks",
        "team",
        why="from Bolt to a settled ask: the top of the Slack provider, below its entry points",
    ),
    "service": rule(*BELOW_SERVICE, why="python -m bot: serves what the composition root builds"),
    "mcp": rule(
        "vocabulary",
        "plumbing",
        "slack",
        "service",
        "entry",
        why="the MCP server: the service's composition root behind MCP tools",
    ),
    "offline": rule(
        "vocabulary",
        "plumbing",
        "service",
        "entry",
        why="offline mode: the service against a local emulator",
    ),
    "hooks": rule(
        "plumbing",
        why="Claude Code hooks: they reach the service through provider's relay client "
        "(test_start_up pins that they load nothing heavy)",
    ),
    "entry": rule(
        *BELOW_SERVICE,
        "interactions",
        "service",
        "mcp",
        "offline",
        "hooks",
        why="the entry points and the composition root: they put the folders together",
    ),
}
# Only what listens to Slack speaks Bolt: the interactions, the Socket Mode connection, the
# HTTP server's events route (and its check of a request before Bolt reads it), and the
# composition root that builds the app.
BOLT_SPEAKERS: Final = frozenset(
    {
        "bot.slack.socket_mode",
        "bot.slack.requests",
        "bot.service.server",
        "bot.parts",
        "bot.slack_provider",
    }
)
BOLT_FOLDERS: Final = frozenset({"interactions"})
# The vocabulary imports no I/O: the standard library and these only.
PURE_LIBRARIES: Final = ("provider", "pydantic", "slack_sdk.models", "markdown_it")


@dataclass(frozen=True)
class Module:
    """One module of `bot/`: its dotted name, its group, and what it imports."""

    name: str
    group: str
    imports: frozenset[str]  # modules of bot/
    libraries: frozenset[str]  # everything else, as written


def module_name(path: Path) -> str:
    parts = path.relative_to(BOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def group_of(path: Path) -> str:
    """The group a module's rule is looked up by: its folder, or what it is at the top."""
    parts = path.relative_to(BOT).with_suffix("").parts
    if len(parts) > 1:
        assert parts[0] in FOLDERS, f"bot/{parts[0]}/ is a folder without a rule in RULES"
        return "vocabulary" if parts[0] == "render" else parts[0]
    top = parts[0]
    for group, names in (
        ("vocabulary", VOCABULARY),
        ("plumbing", PLUMBING),
        ("entry", ENTRY),
        ("team", TEAM),
    ):
        if top in names:
            return group
    raise AssertionError(f"bot/{top}.py is neither vocabulary nor an entry point: give it a folder")


def imported_names(path: Path, name: str, modules: Collection[str]) -> Iterator[str]:
    """Every module `path` imports, anywhere in it, relative imports resolved: for
    `from a import b` in bot/, a.b when that is a module (`from bot import answers`), else a."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, *([module] if module else [])])
            for alias in node.names:
                named = f"{module}.{alias.name}"
                # Outside bot/ the full name is kept: `from slack_sdk import WebClient` is
                # not `slack_sdk.models`.
                ours = module.split(".")[0] == "bot" and named not in modules
                yield module if ours else named


def read_graph() -> dict[str, Module]:
    paths = {module_name(path): path for path in sorted(BOT.rglob("*.py"))}
    graph = {}
    for name, path in paths.items():
        names = set(imported_names(path, name, paths))
        local = {n for n in names if n in paths and n != name}
        libraries = {n for n in names if n.split(".")[0] != "bot"}
        unknown = names - local - libraries - {name}
        assert not unknown, f"{name} imports {unknown}, which are not modules of bot/"
        graph[name] = Module(name, group_of(path), frozenset(local), frozenset(libraries))
    return graph


def is_stdlib(name: str) -> bool:
    return name.split(".")[0] in sys.stdlib_module_names


def rule_violations(graph: dict[str, Module]) -> set[str]:
    """Every import that crosses its module's rule, in words."""
    found = set()
    for module in graph.values():
        rule = RULES[module.group]
        for imported in module.imports:
            target = graph[imported].group
            allowed = target == module.group or target in rule.allowed
            if not allowed and not (rule.records and imported == STORE_RECORDS):
                found.add(f"{module.name} ({module.group}) imports {imported} ({target})")
        if module.group == "vocabulary":
            found |= {
                f"{module.name} imports {library}, not a pure library"
                for library in module.libraries
                if not is_stdlib(library)
                and not any(
                    library == pure or library.startswith(f"{pure}.") for pure in PURE_LIBRARIES
                )
            }
        speaks_bolt = any(library.split(".")[0] == "slack_bolt" for library in module.libraries)
        if speaks_bolt and module.name not in BOLT_SPEAKERS and module.group not in BOLT_FOLDERS:
            found.add(f"{module.name} imports slack_bolt")
    return found


def cycles(graph: dict[str, Module]) -> set[tuple[str, ...]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: set[tuple[str, ...]] = set()

    def visit(name: str) -> None:
        index[name] = low[name] = len(index)
        stack.append(name)
        for imported in graph[name].imports:
            if imported not in index:
                visit(imported)
                low[name] = min(low[name], low[imported])
            elif imported in stack:
                low[name] = min(low[name], index[imported])
        if low[name] == index[name]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == name:
                    break
            if len(component) > 1:
                found.add(tuple(sorted(component)))

    for name in graph:
        if name not in index:
            visit(name)
    return found


def test_each_folder_imports_only_what_its_rule_allows_and_no_module_imports_itself_back() -> None:
    graph = read_graph()
    assert rule_violations(graph) == set()
    assert cycles(graph) == set()


def test_the_graph_sees_imports_inside_functions_and_from_packages() -> None:
    graph = read_graph()
    # `bot/__init__.py` imports the composition root inside __getattr__, on first use.
    assert "bot.slack_provider" in graph["bot"].imports
    # `from bot import answers` is an import of the module, not of the package.
    assert "bot.answers" in graph["bot.interactions.answering"].imports
    assert "bot" not in graph["bot.interactions.answering"].imports


REACHED_THROUGH: Final = frozenset({"client", "store", "threads", "clock", "policies", "messages"})
WEB_API_PREFIXES: Final = ("chat_", "views_", "conversations_", "reactions_", "users_")
SLACK_FREE_FOLDERS: Final = ("asks", "interactions")


def attributes(path: Path) -> Iterator[tuple[int, ast.Attribute]]:
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Attribute):
            yield node.lineno, node


def on_a_client(node: ast.Attribute) -> bool:
    """`….client.x`: something used on a Web API client (handing the client on is fine)."""
    value = node.value
    return (isinstance(value, ast.Attribute) and value.attr == "client") or (
        isinstance(value, ast.Name) and value.id == "client"
    )


def test_nothing_reaches_through_asks_to_its_collaborators() -> None:
    # `x.asks.store.get(...)`: a collaborator the caller should be given, not borrow.
    found = [
        f"{path.relative_to(BOT)}:{line}"
        for path in BOT.rglob("*.py")
        if "offline" not in path.relative_to(BOT).parts
        for line, node in attributes(path)
        if node.attr in REACHED_THROUGH
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "asks"
    ]
    assert found == []


def test_the_asks_and_the_interactions_leave_every_slack_call_to_slack() -> None:
    found = [
        f"{path.relative_to(BOT)}:{line}"
        for folder in SLACK_FREE_FOLDERS
        for path in (BOT / folder).rglob("*.py")
        for line, node in attributes(path)
        if node.attr.startswith(WEB_API_PREFIXES) or on_a_client(node)
    ]
    found += [
        f"{path.relative_to(BOT)}:{node.lineno}"
        for folder in SLACK_FREE_FOLDERS
        for path in (BOT / folder).rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "slack_call"
    ]
    assert found == []


def test_an_import_across_a_folders_rule_and_a_cycle_are_both_reported() -> None:
    graph = {
        "bot.store.sqlite": Module(
            "bot.store.sqlite", "store", frozenset({"bot.slack.api"}), frozenset()
        ),
        "bot.slack.api": Module(
            "bot.slack.api", "slack", frozenset({"bot.store.sqlite"}), frozenset()
        ),
        "bot.asks.posting": Module(
            "bot.asks.posting", "asks", frozenset(), frozenset({"slack_bolt.async_app"})
        ),
    }
    assert rule_violations(graph) == {
        "bot.store.sqlite (store) imports bot.slack.api (slack)",
        "bot.asks.posting imports slack_bolt",
    }
    assert cycles(graph) == {("bot.slack.api", "bot.store.sqlite")}
