"""An open ask's SLA line: when its next step comes, in Slack's own date formatting, so each
reader sees it in their local time (`<!date^…>`, with a UTC fallback for old clients)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import Final

from slack_sdk.models.blocks import ContextBlock, MarkdownTextObject

from bot.render.message import MessageContent
from bot.sla import Due, Step

SLA_BLOCK_ID: Final = "sla"
# Slack's limit on a message's blocks: the line is left out rather than break it.
MESSAGE_BLOCKS_MAX: Final = 50


def slack_date(moment: float) -> str:
    """`moment` in Slack's date token: each reader's local date and time."""
    fallback = datetime.fromtimestamp(moment, UTC).strftime("%Y-%m-%d %H:%M UTC")
    return f"<!date^{int(moment)}^{{date_short_pretty}} at {{time}}|{fallback}>"


def sla_text(steps: list[Due], escalate_to: str) -> str | None:
    """The next step and the expiry of the steps still due (None: none are); `escalate_to`
    the backup as mentions."""
    if not steps:
        return None
    words = {
        Step.REMIND: "Reminder",
        Step.ESCALATE: f"Escalates to {escalate_to}",
        Step.EXPIRE: "Expires unanswered",
    }
    shown = [steps[0]]
    if steps[-1].step is Step.EXPIRE and steps[-1] is not steps[0]:
        shown.append(steps[-1])
    return ":hourglass_flowing_sand: " + " · ".join(
        f"{words[due.step]} {slack_date(due.at)}" for due in shown
    )


def team_sla_text(
    steps: list[Due], escalate_to: str, *, reminded: bool, escalated: bool
) -> str | None:
    """A waiting ask's SLA in the team view: the step it has reached (who is asked now),
    then what comes next and when. None: its policy has no ladder."""
    if not steps and not (reminded or escalated):
        return None
    if escalated:
        reached = f"Escalated to {escalate_to}"
    elif reminded:
        reached = "Reminded"
    else:
        reached = "Not yet reminded"
    upcoming = sla_text(steps, escalate_to)
    if upcoming is None:
        return f":stopwatch: {reached}"
    return f":stopwatch: {reached} · next: {upcoming.removeprefix(':hourglass_flowing_sand: ')}"


def with_sla(content: MessageContent, text: str | None) -> MessageContent:
    """`content` with its SLA line last (unchanged without one, or with no room for it)."""
    if text is None or len(content.blocks) >= MESSAGE_BLOCKS_MAX:
        return content
    line = ContextBlock(
        block_id=SLA_BLOCK_ID, elements=[MarkdownTextObject(text=text, verbatim=True)]
    )
    return replace(content, blocks=[*content.blocks, line])
