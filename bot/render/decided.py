"""The message after an ask is decided: what was chosen, by whom, when — controls removed."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime

from slack_sdk.models.blocks import Block, ContextBlock, MarkdownTextObject, SectionBlock

from bot.block_ids import BlockKind
from bot.outcomes import Verdict
from bot.render.agent_text import literal_within, one_line
from bot.render.layout import MESSAGE_BLOCKS_MAX, AskLayout
from bot.render.message import MessageContent
from bot.render.question import SECTION_TEXT_MAX
from bot.render.text import cut_escaped, truncate
from provider import AskUserQuestionAnswerItem, AskUserQuestionItem

SUMMARY_QUESTION_MAX = 300
SUMMARY_ANSWER_MAX = 900
REASON_MAX = 500


@dataclass(frozen=True)
class Settlement:
    """What to show in place of the controls: how the ask ended, or (`waiting`) that this
    part is answered while other parts are still open."""

    verdict: Verdict
    at: float
    actor: str | None = None
    answers: Mapping[str, AskUserQuestionAnswerItem] = field(default_factory=dict)
    reason: str | None = None
    waiting: bool = False


def when(at: float) -> str:
    """A Slack date token that each reader sees in their own time zone."""
    fallback = datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%d %H:%M UTC")
    return f"<!date^{int(at)}^{{date_short_pretty}} at {{time}}|{fallback}>"


def answer_text(question: AskUserQuestionItem, item: AskUserQuestionAnswerItem | None) -> str:
    """One answer in words (mrkdwn): the chosen labels in bold, typed text after them quoted,
    both shown literally, so neither can draw a line that reads as the bot's."""
    if item is None:
        return "_no answer_"
    chosen = [f"*{one_line(label, SUMMARY_ANSWER_MAX)}*" for label in item.selected]
    if item.custom is not None:
        custom = literal_within(item.custom, SUMMARY_ANSWER_MAX).replace("\n", "\n> ")
        chosen.append(f"\n> {custom}" if question.options else custom)
    return ", ".join(chosen) if chosen else "_skipped_"


def verdict_line(settlement: Settlement) -> str:
    """The footer: what happened, who did it, and when (this surface's wording table)."""
    who = f"<@{settlement.actor}>" if settlement.actor else "someone"
    stamp = when(settlement.at)
    reason = f": {one_line(settlement.reason, REASON_MAX)}" if settlement.reason else ""
    if settlement.waiting:
        return f":white_check_mark: This part answered by {who} · {stamp} · waiting for the rest"
    match settlement.verdict:
        case Verdict.ANSWERED:
            return f":white_check_mark: Answered by {who} · {stamp}"
        case Verdict.WITHDRAWN:
            return f":heavy_minus_sign: Withdrawn, nobody answered{reason or ': the agent no longer needs an answer'} · {stamp}"
        case Verdict.CLOSED:
            return f":x: {who} closed the form; the agent was told the question was dismissed · {stamp}"
        case Verdict.CANCELLED:
            return f":speech_balloon: {who} chose to discuss this instead · {stamp}"
        case Verdict.EXPIRED:
            return f":alarm_clock: Expired, nobody answered{reason} · {stamp}"
        case Verdict.FAILED:
            return f":warning: Could not be collected{reason} · {stamp}"
        case Verdict.STOPPED:
            return (
                f":octagonal_sign: Stopped in Slack by {who}; the agent was told to stop · {stamp}"
            )


def settled_message(layout: AskLayout, part_number: int, settlement: Settlement) -> MessageContent:
    """The part's message once decided: each question with its answer, then the verdict."""
    show_answers = settlement.verdict is Verdict.ANSWERED
    lines = []
    for q in layout.parts[part_number].questions:
        line = f"*{one_line(q.question.question, SUMMARY_QUESTION_MAX)}*"
        if show_answers:
            answer = answer_text(q.question, settlement.answers.get(q.question.id))
            # A typed "Other" answer alone is a quote on lines of its own: named, so no
            # arrow stands alone above it.
            line += f"\n→ {'_other answer:_' if answer.startswith(chr(10)) else ''}{answer}"
        lines.append(line)
    blocks: list[Block] = []
    budget = MESSAGE_BLOCKS_MAX - 1
    current = ""
    for line in lines:
        if current and len(current) + len(line) + 2 > SECTION_TEXT_MAX:
            blocks.append(_section(layout, len(blocks), current))
            current = ""
        current = f"{current}\n\n{line}" if current else cut_escaped(line, SECTION_TEXT_MAX)
    if current:
        blocks.append(_section(layout, len(blocks), current))
    blocks = blocks[:budget]
    footer = verdict_line(settlement)
    blocks.append(
        ContextBlock(
            block_id=layout.aux_block_id(BlockKind.VERDICT, part_number),
            elements=[MarkdownTextObject(verbatim=True, text=footer)],
        )
    )
    return MessageContent(text=truncate(_plain(footer), 300), blocks=blocks)


def _section(layout: AskLayout, n: int, text: str) -> SectionBlock:
    return SectionBlock(
        block_id=layout.aux_block_id(BlockKind.ANSWERS, n),
        text=MarkdownTextObject(verbatim=True, text=text),
    )


def _plain(footer: str) -> str:
    # Notification text: the footer without the date token's markup.
    head, _, _ = footer.partition(" · <!date")
    return head
