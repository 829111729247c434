"""An open ask's away line: who it names is away, and who is asked for them
("@alice is away until Dec 24 — asking @bob"; bot/delegation.py says who)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Final

from slack_sdk.models.blocks import ContextBlock, MarkdownTextObject

from bot.render.message import MessageContent
from bot.render.sla import MESSAGE_BLOCKS_MAX

AWAY_BLOCK_ID: Final = "away"
# A context element holds 3,000 characters; the lines past these are summed up.
LINES_SHOWN: Final = 8


def away_text(lines: Sequence[str]) -> str | None:
    """The lines, one per away person (None: nobody is away)."""
    if not lines:
        return None
    shown = list(lines[:LINES_SHOWN])
    if len(lines) > LINES_SHOWN:
        shown.append(f"…and {len(lines) - LINES_SHOWN} more away")
    return ":palm_tree: " + "\n:palm_tree: ".join(shown)


def with_away(content: MessageContent, text: str | None) -> MessageContent:
    """`content` with its away line last (unchanged without one, or with no room for it)."""
    if text is None or len(content.blocks) >= MESSAGE_BLOCKS_MAX - 1:
        return content  # the SLA line may still come after it
    line = ContextBlock(
        block_id=AWAY_BLOCK_ID, elements=[MarkdownTextObject(text=text, verbatim=True)]
    )
    return replace(content, blocks=[*content.blocks, line])
