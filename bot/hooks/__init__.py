"""Hooks of agents that did not write code for us: their own question tools, asked in Slack."""
