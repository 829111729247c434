"""The Web API methods the emulator serves, by name."""

from __future__ import annotations

from typing import Final

from slack_emulator.methods import (
    agent_methods,
    chat_methods,
    conversations_methods,
    directory_methods,
    files_methods,
    views_methods,
)
from slack_emulator.web_api import Method

METHODS: Final[dict[str, Method]] = {
    "auth.test": Method(directory_methods.auth_test),
    "apps.connections.open": Method(directory_methods.apps_connections_open, token="app"),
    "users.info": Method(directory_methods.users_info),
    "usergroups.users.list": Method(directory_methods.usergroups_users_list),
    "chat.postMessage": Method(chat_methods.post_message),
    "chat.update": Method(chat_methods.update),
    "chat.delete": Method(chat_methods.delete),
    "chat.postEphemeral": Method(chat_methods.post_ephemeral),
    "chat.getPermalink": Method(chat_methods.get_permalink),
    "assistant.threads.setStatus": Method(chat_methods.set_thread_status),
    "agents.sessions.setStatus": Method(agent_methods.set_session_status),
    "agents.sessions.rename": Method(agent_methods.rename_session),
    "conversations.history": Method(conversations_methods.history),
    "conversations.replies": Method(conversations_methods.replies),
    "conversations.members": Method(conversations_methods.members),
    "views.open": Method(views_methods.open_view),
    "views.push": Method(views_methods.push),
    "views.update": Method(views_methods.update),
    "views.publish": Method(views_methods.publish),
    "files.getUploadURLExternal": Method(files_methods.get_upload_url_external),
    "files.completeUploadExternal": Method(files_methods.complete_upload_external),
}
