"""Per-agent figures of how asks were decided: the Home tab's and `/metrics`' shared words.

Pure. For each agent (by name): how many asks, the median time from asking to a person's
answer, the share decided automatically (a rule, `rule:<name>`, or a grant, `grant:<id>`),
the share that expired, and how many answers a person gave within `QUICK_SECONDS` of the ask
appearing in Slack — too fast to have read it: a rubber-stamp signal.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from slack_sdk.models.blocks import (
    Block,
    HeaderBlock,
    MarkdownTextObject,
    PlainTextObject,
    SectionBlock,
)

from bot.render.agent_text import one_line
from bot.render.question import SECTION_TEXT_MAX
from bot.render.text import cut_escaped
from bot.store import AskRecord, Verdict

QUICK_SECONDS: Final = 2.0
UNNAMED: Final = "unnamed"
AGENTS_SHOWN: Final = 10
FIGURES_TITLE: Final = "How your agents' asks were decided"

Automatic = Literal["rule", "grant"]


def automatic_by(decided_by: str | None) -> Automatic | None:
    """ "rule" or "grant" when `decided_by` names one (`bot/asks/automatic.py`), else None."""
    if decided_by is not None and decided_by.startswith("rule:"):
        return "rule"
    if decided_by is not None and decided_by.startswith("grant:"):
        return "grant"
    return None


def agent_of(record: AskRecord) -> str:
    """The agent an ask counts for: its name (a session id would count each session apart)."""
    return record.agent_name or UNNAMED


def quick(record: AskRecord, posted_at: float | None) -> bool:
    """A person answered within `QUICK_SECONDS` of the ask being posted."""
    return (
        record.ended_as is Verdict.ANSWERED
        and automatic_by(record.decided_by) is None
        and posted_at is not None
        and record.decided_at is not None
        and record.decided_at - posted_at <= QUICK_SECONDS
    )


@dataclass(frozen=True)
class AgentFigures:
    """One agent's figures over a set of asks."""

    agent: str
    asks: int
    median_answer_seconds: float | None  # None: no person answered any
    automatic: int  # decided by a rule or a grant
    expired: int
    quick_answers: int  # a person's answer within QUICK_SECONDS of posting


def agent_figures(
    records: Sequence[AskRecord], posted_at: Mapping[str, float]
) -> list[AgentFigures]:
    """Each agent's figures over `records`, most asks first (then by name). `posted_at`: ask
    id -> when its first part appeared in Slack."""
    by_agent: dict[str, list[AskRecord]] = {}
    for record in records:
        by_agent.setdefault(agent_of(record), []).append(record)
    figures = []
    for agent, asks in by_agent.items():
        answered = [
            r.decided_at - r.created_at
            for r in asks
            if r.ended_as is Verdict.ANSWERED
            and automatic_by(r.decided_by) is None
            and r.decided_at is not None
        ]
        figures.append(
            AgentFigures(
                agent=agent,
                asks=len(asks),
                median_answer_seconds=statistics.median(answered) if answered else None,
                automatic=sum(1 for r in asks if automatic_by(r.decided_by) is not None),
                expired=sum(1 for r in asks if r.ended_as is Verdict.EXPIRED),
                quick_answers=sum(1 for r in asks if quick(r, posted_at.get(r.id))),
            )
        )
    return sorted(figures, key=lambda f: (-f.asks, f.agent))


def duration(seconds: float) -> str:
    """A time to answer in people's words: "42 s", "3 min 5 s", "2 h 10 min"."""
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes} min {secs} s" if secs else f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"


def percent(part: int, whole: int) -> str:
    """A share, rounded to a whole percent."""
    return f"{round(100 * part / whole)} %" if whole else "n/a"


def figures_line(f: AgentFigures) -> str:
    """One agent's figures on one line (mrkdwn; the name is agent text)."""
    median = duration(f.median_answer_seconds) if f.median_answer_seconds is not None else "n/a"
    return (
        f"*{one_line(f.agent, 80)}*: {f.asks} {'ask' if f.asks == 1 else 'asks'} · "
        f"median answer {median} · auto-decided {percent(f.automatic, f.asks)} · "
        f"expired {percent(f.expired, f.asks)} · answered within {QUICK_SECONDS:g} s: "
        f"{f.quick_answers}"
    )


def figures_blocks(figures: Sequence[AgentFigures]) -> list[Block]:
    """The Home tab's figures: a header and one section (at most AGENTS_SHOWN agents)."""
    lines = [figures_line(f) for f in figures[:AGENTS_SHOWN]]
    if len(figures) > AGENTS_SHOWN:
        lines.append(f"_…and {len(figures) - AGENTS_SHOWN} more agents_")
    text = "\n".join(lines) if lines else "_No asks in this period._"
    return [
        HeaderBlock(block_id="sq~team.figures", text=PlainTextObject(text=FIGURES_TITLE)),
        SectionBlock(
            block_id="sq~team.figures.0",
            text=MarkdownTextObject(text=cut_escaped(text, SECTION_TEXT_MAX), verbatim=True),
        ),
    ]
