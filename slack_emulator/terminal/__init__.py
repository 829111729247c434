"""A person at a terminal, using the emulated Slack: Block Kit as text, answers typed as lines."""

from slack_emulator.terminal.session import Terminal, color_wanted

__all__ = ["Terminal", "color_wanted"]
