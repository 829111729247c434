"""The Web API methods the emulator serves, by name."""

from __future__ import annotations

from typing import Final

from bot.emulator.methods import chat, conversations, directory, views
from bot.emulator.web_api import Method

METHODS: Final[dict[str, Method]] = {
    "auth.test": Method(directory.auth_test),
    "apps.connections.open": Method(directory.apps_connections_open, token="app"),
    "users.info": Method(directory.users_info),
    "usergroups.users.list": Method(directory.usergroups_users_list),
    "chat.postMessage": Method(chat.post_message),
    "chat.update": Method(chat.update),
    "chat.delete": Method(chat.delete),
    "chat.postEphemeral": Method(chat.post_ephemeral),
    "chat.getPermalink": Method(chat.get_permalink),
    "conversations.history": Method(conversations.history),
    "conversations.replies": Method(conversations.replies),
    "conversations.members": Method(conversations.members),
    "views.open": Method(views.open_view),
    "views.push": Method(views.push),
    "views.update": Method(views.update),
    "views.publish": Method(views.publish),
}
