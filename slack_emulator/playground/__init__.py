"""The emulated workspace in a browser, drawn as Slack draws it, where every click, pick,
submit, close, message and slash command travels the emulator's people API to the app.

Imports only the emulator's public names (`slack_emulator`). See README.md beside this file.
"""

from slack_emulator.playground.blocks import render_blocks
from slack_emulator.playground.http_app import Playground
from slack_emulator.playground.mrkdwn import Names

__all__ = ["Names", "Playground", "render_blocks"]
