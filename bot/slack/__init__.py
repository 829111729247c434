"""Slack I/O: every Web API call of the bot, its pacing per channel, threads, messages and who may answer.

Imports the vocabulary, `render/` and `store/`; never `asks/` or `interactions/`.
"""
