"""How the ask's modules depend on each other: collaborators are given, and only
`ask_messages.py` talks to Slack about an ask."""

from __future__ import annotations

import re
from pathlib import Path

import bot

BOT = Path(bot.__file__).parent
PROVIDER_MODULES = [
    p for p in BOT.rglob("*.py") if not {"emulator", "offline"} & set(p.relative_to(BOT).parts)
]
REACH_THROUGH = re.compile(r"asks\.(client|store|threads|clock|policies|messages|tasks)\b")
SLACK_CALL = re.compile(r"slack_call\(|\.client\.|chat_\w+\(|views_\w+\(")
ASK_HANDLERS = [
    "asks/lifecycle.py",
    "interactions/answering.py",
    "interactions/plan_reviews.py",
    "interactions/admission.py",
    "asks/deadlines.py",
]


def test_nothing_reaches_through_asks_to_its_collaborators() -> None:
    found = [
        f"{path.relative_to(BOT)}:{n}"
        for path in PROVIDER_MODULES
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if REACH_THROUGH.search(line)
    ]
    assert found == []


def test_the_ask_handlers_leave_every_slack_call_to_ask_messages() -> None:
    found = [
        f"{name}:{n}"
        for name in ASK_HANDLERS
        for n, line in enumerate((BOT / name).read_text().splitlines(), 1)
        if SLACK_CALL.search(line)
    ]
    assert found == []
