"""The life of an ask: store, post, wait, settle once; deadlines, waiters and what observes it.

`live.py` holds the open asks (`LiveAsk`, `LiveAsks`), `lifecycle.py` changes their state
(`Asks`: create, claim, settle, wait, save progress, show), `posting.py` puts them in Slack
(`Posting`: post, queue, recover, sweep), `observers.py` hears of each stored transition
(`AskObserver`: log lines, metrics, the waiting line; `deadlines.py` is one more).

Imports the vocabulary, `render/`, `store/` and `slack/`; never `interactions/` or Bolt.
"""
