"""An open ask's claim controls: "Claim" and "Reassign…" while it is with its pool; once
someone holds it, who (and until when, in each reader's local time) with "Release"; and the
"Reassign…" modal, a users_select of the person to hand it to."""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    ContextBlock,
    InputBlock,
    MarkdownTextObject,
    PlainTextObject,
    SectionBlock,
    UserSelectElement,
)
from slack_sdk.models.views import View

from bot.block_ids import Action, AskRef, Callback, ViewMeta
from bot.render.message import MessageContent
from bot.render.sla import MESSAGE_BLOCKS_MAX, slack_date

CONTROLS_BLOCK_ID: Final = "sq~claim"
HOLDER_BLOCK_ID: Final = "sq~held"
REASSIGN_BLOCK_ID: Final = "sq~reassign"


def holder_text(holder: str, until: float | None) -> str:
    """Who holds the ask, and until when its claim holds (None: until released)."""
    lasts = f" until {slack_date(until)}" if until is not None else ""
    return f"🙋 Claimed by <@{holder}>{lasts}"


def claim_blocks(ask_id: str, holder: str | None, until: float | None) -> list[Block]:
    """The claim controls of an open ask held by `holder` (None: with its pool)."""
    value = AskRef(ask_id).encode()
    reassign = ButtonElement(action_id=Action.REASSIGN, text="Reassign…", value=value)
    if holder is None:
        claim = ButtonElement(action_id=Action.CLAIM, text="Claim", value=value)
        return [ActionsBlock(block_id=CONTROLS_BLOCK_ID, elements=[claim, reassign])]
    release = ButtonElement(action_id=Action.RELEASE, text="Release", value=value)
    return [
        ContextBlock(
            block_id=HOLDER_BLOCK_ID,
            elements=[MarkdownTextObject(text=holder_text(holder, until), verbatim=True)],
        ),
        ActionsBlock(block_id=CONTROLS_BLOCK_ID, elements=[release, reassign]),
    ]


def with_claim(content: MessageContent, blocks: list[Block]) -> MessageContent:
    """`content` with the claim controls last (unchanged when they would break Slack's
    50-block cap: the ask is still answered as its pool's)."""
    if len(content.blocks) + len(blocks) > MESSAGE_BLOCKS_MAX:
        return content
    return replace(content, blocks=[*content.blocks, *blocks])


def reassign_modal(ask_id: str, noun: str, channel: str | None) -> View:
    """ "Reassign…": choose the person to hand the ask to."""
    return View(
        type="modal",
        callback_id=Callback.REASSIGN,
        title=PlainTextObject(text="Reassign"),
        submit=PlainTextObject(text="Hand it over"),
        close=PlainTextObject(text="Cancel"),
        private_metadata=ViewMeta(ask=ask_id, channel=channel).model_dump_json(exclude_none=True),
        blocks=[
            SectionBlock(
                block_id="sq~reassign.lead",
                text=MarkdownTextObject(
                    verbatim=True,
                    text=f"Hand {noun} to one person: they hold it, and are told in the thread.",
                ),
            ),
            InputBlock(
                block_id=REASSIGN_BLOCK_ID,
                label=PlainTextObject(text="Hand it to"),
                element=UserSelectElement(
                    action_id=Action.INPUT, placeholder=PlainTextObject(text="Choose a person")
                ),
            ),
        ],
    )
