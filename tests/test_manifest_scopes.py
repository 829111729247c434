"""manifest.yml requests exactly the bot scopes the code needs: derived from the Web API
methods `bot/` calls, the events it subscribes to and its slash command."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Final

import yaml
from slack_sdk.web.async_client import AsyncWebClient

ROOT = Path(__file__).resolve().parents[1]

METHOD_SCOPES: Final[dict[str, frozenset[str]]] = {
    # Each row from the method's "Scopes → Bot token" on docs.slack.dev/reference/methods
    # (docs/slack-facts.md §11). Conversations methods list one scope per conversation type;
    # the bot works in public and private channels only, so only those two are needed.
    "auth.test": frozenset(),
    "chat.postMessage": frozenset({"chat:write"}),
    "chat.update": frozenset({"chat:write"}),
    "chat.postEphemeral": frozenset({"chat:write"}),
    "chat.delete": frozenset({"chat:write"}),
    # Accepts chat:write since 2026-03 (changelog "Set status method scope update"), so a
    # channel app can show a thread status without assistant:write.
    "assistant.threads.setStatus": frozenset({"chat:write"}),
    # A declared agent's thread sessions: "The chat:write scope is required to manage
    # thread-based sessions" (docs.slack.dev, agent sessions).
    "agents.sessions.setStatus": frozenset({"chat:write"}),
    "agents.sessions.rename": frozenset({"chat:write"}),
    "chat.getPermalink": frozenset(),
    "conversations.members": frozenset({"channels:read", "groups:read"}),
    "conversations.info": frozenset({"channels:read", "groups:read"}),
    "conversations.history": frozenset({"channels:history", "groups:history"}),
    "conversations.replies": frozenset({"channels:history", "groups:history"}),
    "usergroups.users.list": frozenset({"usergroups:read"}),
    "users.info": frozenset({"users:read"}),
    "views.open": frozenset(),
    "views.push": frozenset(),
    "views.update": frozenset(),
    "views.publish": frozenset(),
    "files.getUploadURLExternal": frozenset({"files:write"}),
    "files.completeUploadExternal": frozenset({"files:write"}),
}
"""Web API method → the bot scopes it needs (for the conversation types the bot uses)."""

EVENT_SCOPES: Final[dict[str, frozenset[str]]] = {
    "message.channels": frozenset({"channels:history"}),
    "message.groups": frozenset({"groups:history"}),
    "app_home_opened": frozenset(),
}
"""Subscribed event → the bot scope Slack requires to deliver it."""

SLASH_COMMAND_SCOPE: Final = "commands"

_CLIENT_CALL = re.compile(r"\bclient\.([A-Za-z]+(?:_[A-Za-z]+)+)\(")


def manifest() -> dict[str, Any]:
    loaded = yaml.safe_load((ROOT / "manifest.yml").read_text())
    assert isinstance(loaded, dict)
    return loaded


def methods_called() -> set[str]:
    """Every Web API method `bot/` calls: `client.chat_postMessage(` → `chat.postMessage`."""
    found: set[str] = set()
    for path in (ROOT / "bot").rglob("*.py"):
        source = path.read_text()
        for name in _CLIENT_CALL.findall(source):
            # Only the Web API client's own methods (not e.g. a socket client's is_connected).
            if callable(getattr(AsyncWebClient, name, None)):
                found.add(name.replace("_", "."))
    return found


def needed_scopes() -> set[str]:
    data = manifest()
    unknown = methods_called() - METHOD_SCOPES.keys()
    assert not unknown, f"add these methods and their scopes to METHOD_SCOPES: {sorted(unknown)}"
    scopes: set[str] = set()
    for method in methods_called():
        scopes |= METHOD_SCOPES[method]
    for event in data["settings"]["event_subscriptions"]["bot_events"]:
        scopes |= EVENT_SCOPES[event]
    if data["features"].get("slash_commands"):
        scopes.add(SLASH_COMMAND_SCOPE)
    return scopes


def test_the_scan_finds_the_methods_the_bot_is_known_to_call() -> None:
    assert {
        "auth.test",
        "chat.postMessage",
        "chat.update",
        "conversations.members",
        "usergroups.users.list",
        "views.publish",
    } <= methods_called()


def test_the_manifest_requests_exactly_the_bot_scopes_the_code_uses() -> None:
    requested = manifest()["oauth_config"]["scopes"]["bot"]
    assert len(requested) == len(set(requested))
    assert set(requested) == needed_scopes()


def test_users_read_is_requested_for_the_delegate_command_alone() -> None:
    assert {m for m in methods_called() if m.startswith("users.")} == {"users.info"}
    assert "users:read" in manifest()["oauth_config"]["scopes"]["bot"]


def test_the_slash_command_sends_picked_people_as_ids() -> None:
    [command] = manifest()["features"]["slash_commands"]
    assert command["should_escape"] is True
