"""The life of an ask: store, post, wait, settle once; deadlines, waiters and what observes it.

Imports the vocabulary, `render/`, `store/` and `slack/`; never `interactions/` or Bolt.
"""
