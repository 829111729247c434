"""Offline mode: the local Slack emulator, the real bot, a demo agent and a terminal person."""
