"""The team view: what the agents are waiting on, and every decision made for them, by whom.

Pure: records (newest first) and permalinks in, Block Kit out. The same two sections render
for the Home tab (`home_view`, up to 100 blocks) and for `/agent-questions` (`command_message`,
up to 50 blocks); a long history is cut and the cut says how many more there are. Every piece
of agent text (questions, answers, reasons, agent names) is escaped and sized here, so a
section never exceeds Slack's 3,000 characters.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Final

from pydantic import JsonValue
from slack_sdk.models.blocks import (
    Block,
    BlockElement,
    ContextBlock,
    DividerBlock,
    HeaderBlock,
    MarkdownTextObject,
    PlainTextObject,
    SectionBlock,
)
from slack_sdk.models.views import View

from bot.outcomes import PLAN_ENDINGS, PlanOutcome, plan_outcome
from bot.render import MessageContent
from bot.render.agent_text import code_span, one_line
from bot.render.decided import when
from bot.render.edit_input import as_text
from bot.render.feedback import feedback_menu
from bot.render.figures import AgentFigures, figures_blocks
from bot.render.grants import grant_blocks
from bot.render.home_filters import HomeFilter, filter_blocks
from bot.render.layout import MESSAGE_BLOCKS_MAX
from bot.render.message import agent_label
from bot.render.question import SECTION_TEXT_MAX
from bot.render.text import cut_escaped, escape
from bot.review import AutoDecider, auto_decider
from bot.store import AskRecord, Grant, StoredRule, Verdict
from provider import AskUserQuestionAnswerItem, AskUserQuestionItem, ToolApprovalIntent

HOME_BLOCKS_MAX: Final = 100
HOME_GRANTS_MAX: Final = 30  # the Home tab's "Grants" section: its share of the 100 blocks
QUESTIONS_SHOWN: Final = 3  # per ask; the rest are counted
QUESTION_MAX: Final = 150
LABEL_MAX: Final = 75
ANSWER_MAX: Final = 300
REASON_MAX: Final = 200
APPROVERS_SHOWN: Final = 10
EDITS_SHOWN: Final = 3  # edited fields of an allow, one line each; the rest are counted
EDIT_MAX: Final = 80
GRANT_WORDS: Final = {"session": "session grant", "agent": "agent grant", "everyone": "grant"}

WAITING_TITLE: Final = "Waiting for an answer"
DECIDED_TITLE: Final = "Recent decisions"
NOTHING_WAITING: Final = ":white_check_mark: Nothing is waiting for an answer right now."
NO_DECISIONS: Final = (
    "_No decisions yet._ When someone answers an agent's question, it shows up here."
)
HOME_INTRO: Final = (
    "What your agents asked people in Slack, and who decided. Newest first; "
    "`/agent-questions` shows the same list anywhere."
)
NO_RECENT_DECISIONS: Final = "_No decisions among the newest asks._"
OLDER_NOT_LISTED: Final = "Older decisions are not listed."
MORE_ON_HOME: Final = " The app's Home tab shows a longer list."
MIN_BLOCKS: Final = 7  # headers, divider, and per list one ask and its "more" line

# Ids Slack gives people (U…, W…): anything else is not mentioned as a person.
_USER_ID = re.compile(r"^[UW][A-Z0-9]{2,}$")
# Ids of channels (C…, G…, D…): anything else is named as plain text, not linked.
_CHANNEL_ID = re.compile(r"^[CGD][A-Z0-9]{2,}$")
CHANNELS_NAMED: Final = 10


def hidden_note(channels: Sequence[str]) -> str:
    """Why the view may lack asks: `channels`' members could not be read, so only the asks
    the person may answer or review are shown from them."""
    named = [f"<#{c}>" if _CHANNEL_ID.match(c) else escape(c) for c in channels[:CHANNELS_NAMED]]
    if len(channels) > CHANNELS_NAMED:
        named.append(f"{len(channels) - CHANNELS_NAMED} more")
    return (
        f":lock: Some asks in {', '.join(named)} are hidden: the bot could not read who is in "
        f"{'that channel' if len(channels) == 1 else 'those channels'}, so from there you see "
        "only the asks you may answer or review."
    )


def _hidden_blocks(hidden: Sequence[str]) -> list[Block]:
    if not hidden:
        return []
    return [
        ContextBlock(
            block_id="sq~team.hidden",
            elements=[MarkdownTextObject(verbatim=True, text=hidden_note(hidden))],
        )
    ]


def home_view(
    records: Sequence[AskRecord],
    links: Mapping[str, str],
    *,
    older: bool = False,
    hidden: Sequence[str] = (),
    slas: Mapping[str, str] | None = None,
    grants: Sequence[Grant] | None = None,
    grants_notice: str | None = None,
    rules: Sequence[StoredRule] = (),
    feedback: Mapping[str, str] | None = None,
    figures: Sequence[AgentFigures] | None = None,
    filters: HomeFilter | None = None,
    agents: Sequence[str] = (),
    deciders: Mapping[str, Grant] | None = None,
) -> View:
    """The Home tab: an intro, the filters (when given: `agents` are the names offered;
    the filter travels as the view's private_metadata), each agent's figures (when given),
    then the waiting asks and the recent decisions.

    `records` are the asks to show, newest first; `links` maps an ask id to the permalink
    of its message; `older` says the store holds older asks than these; `hidden`: channels
    whose asks were withheld because their members could not be read (said under the intro).
    `grants`: the active grants the person may revoke, listed last with a Revoke button each
    (`grants_notice`: what their last Revoke did), then the saved `rules` they may revoke;
    None leaves the section out. `deciders` by id: who made the grants that decided some of
    the asks."""
    intro: list[Block] = [
        HeaderBlock(block_id="sq~team.title", text=PlainTextObject(text="Agent questions")),
        ContextBlock(
            block_id="sq~team.intro",
            elements=[MarkdownTextObject(verbatim=True, text=HOME_INTRO)],
        ),
        *_hidden_blocks(hidden),
        *(filter_blocks(filters, agents) if filters is not None else []),
        *(figures_blocks(figures) if figures is not None else []),
    ]
    granted: list[Block] = []
    if grants is not None:
        granted = [
            DividerBlock(block_id="sq~grants.divider"),
            *grant_blocks(
                grants, max_blocks=HOME_GRANTS_MAX - 1, notice=grants_notice, rules=rules
            ),
        ]
    body = team_blocks(
        records,
        links,
        max_blocks=HOME_BLOCKS_MAX - len(intro) - len(granted),
        older=older,
        slas=slas,
        feedback=feedback,
        deciders=deciders,
    )
    metadata = filters.model_dump_json(exclude_defaults=True) if filters is not None else None
    return View(
        type="home",
        callback_id="sq~team.home",
        blocks=[*intro, *body, *granted],
        private_metadata=metadata,
    )


def command_message(
    records: Sequence[AskRecord],
    links: Mapping[str, str],
    *,
    older: bool = False,
    hidden: Sequence[str] = (),
    slas: Mapping[str, str] | None = None,
    feedback: Mapping[str, str] | None = None,
    deciders: Mapping[str, Grant] | None = None,
) -> MessageContent:
    """The `/agent-questions` answer: the same two sections, within a message's 50 blocks
    (first, when `hidden` names channels, why some asks are not shown)."""
    pending, settled = _split(records)
    note = _hidden_blocks(hidden)
    blocks = note + team_blocks(
        records,
        links,
        max_blocks=MESSAGE_BLOCKS_MAX - len(note),
        older=older,
        hint=MORE_ON_HOME,
        slas=slas,
        feedback=feedback,
        deciders=deciders,
    )
    decisions = _count(len(settled), "recent decision", "recent decisions")
    text = f"Agent questions: {len(pending)} waiting for an answer, {decisions}"
    return MessageContent(text=text, blocks=blocks)


def team_blocks(
    records: Sequence[AskRecord],
    links: Mapping[str, str],
    *,
    max_blocks: int,
    older: bool = False,
    hint: str = "",
    slas: Mapping[str, str] | None = None,
    feedback: Mapping[str, str] | None = None,
    deciders: Mapping[str, Grant] | None = None,
) -> list[Block]:
    """Both sections in at most `max_blocks` blocks, one per ask; a cut list ends with how
    many more it has (and `hint`, where to see them). `feedback`: ask id -> its review line
    (`bot.render.feedback.feedback_summary`); each answered ask offers the feedback menu.
    `deciders` by id: who made the grants that decided some of the asks."""
    if max_blocks < MIN_BLOCKS:
        raise ValueError(f"the team view needs at least {MIN_BLOCKS} blocks, not {max_blocks}")
    pending, settled = _split(records)
    room = max_blocks - 3  # two headers and the divider between them
    shown_pending, shown_settled = _shares(len(pending), len(settled), room, older=older)
    hidden_pending = len(pending) - shown_pending
    hidden_settled = len(settled) - shown_settled
    waiting_more = (
        f"…and {hidden_pending} more waiting for an answer.{hint}" if hidden_pending else None
    )
    if hidden_settled:
        and_older = ", and older ones" if older else ""
        more = _count(hidden_settled, "more decision", "more decisions")
        decided_more: str | None = f"…and {more}{and_older}.{hint}"
    else:
        decided_more = OLDER_NOT_LISTED if older else None
    return [
        HeaderBlock(block_id="sq~team.waiting", text=PlainTextObject(text=WAITING_TITLE)),
        *_items(
            "w",
            [
                _pending_text(r, links.get(r.id), (slas or {}).get(r.id))
                for r in pending[:shown_pending]
            ],
            empty=NOTHING_WAITING,
            more=waiting_more,
        ),
        DividerBlock(block_id="sq~team.divider"),
        HeaderBlock(block_id="sq~team.decided", text=PlainTextObject(text=DECIDED_TITLE)),
        *_items(
            "d",
            [
                _settled_text(r, links.get(r.id), (feedback or {}).get(r.id), deciders or {})
                for r in settled[:shown_settled]
            ],
            empty=NO_RECENT_DECISIONS if older else NO_DECISIONS,
            more=decided_more,
            menus=[
                feedback_menu(r.id) if r.ended_as is Verdict.ANSWERED else None
                for r in settled[:shown_settled]
            ],
        ),
    ]


def _split(records: Sequence[AskRecord]) -> tuple[list[AskRecord], list[AskRecord]]:
    # Waiting: newest asked first. Decisions: newest decided first (a long-open ask decided
    # just now belongs at the top). `sorted` is stable, so ties keep the store's order.
    pending = sorted(
        (r for r in records if not r.settled), key=lambda r: r.created_at, reverse=True
    )
    settled = sorted(
        (r for r in records if r.settled),
        key=lambda r: r.decided_at if r.decided_at is not None else r.created_at,
        reverse=True,
    )
    return pending, settled


def _shares(pending: int, settled: int, room: int, *, older: bool) -> tuple[int, int]:
    """How many asks of each list fit in `room` blocks. An empty list spends one block on
    its empty state, a cut one (or the decisions, when older ones exist) one on its last
    line. The waiting list may take up to half the room; the decisions get the rest."""
    need_pending = max(pending, 1)
    need_settled = max(settled, 1) + (1 if older else 0)
    if need_pending + need_settled <= room:
        return pending, settled
    half = room // 2
    if need_pending <= half:
        return pending, room - need_pending - 1
    if need_settled <= room - half:
        return room - need_settled - 1, settled
    return half - 1, room - half - 1


def _items(
    key: str,
    texts: list[str],
    *,
    empty: str,
    more: str | None,
    menus: Sequence[BlockElement | None] = (),
) -> list[Block]:
    blocks: list[Block] = [
        _section(f"sq~team.{key}.{n}", text, menus[n] if n < len(menus) else None)
        for n, text in enumerate(texts)
    ]
    if not texts:
        blocks.append(_section(f"sq~team.{key}.empty", empty))
    if more:
        blocks.append(
            ContextBlock(
                block_id=f"sq~team.{key}.more",
                elements=[MarkdownTextObject(verbatim=True, text=more)],
            )
        )
    return blocks


def _section(block_id: str, text: str, accessory: BlockElement | None = None) -> SectionBlock:
    # The pieces are sized to fit; the cut is a last guard that never splits an entity.
    return SectionBlock(
        block_id=block_id,
        text=MarkdownTextObject(verbatim=True, text=cut_escaped(text, SECTION_TEXT_MAX)),
        accessory=accessory,
    )


def _pending_text(record: AskRecord, link: str | None, sla: str | None = None) -> str:
    if record.is_plan_review:
        lines = [_plan_title(record)]
        if record.approvals:
            lines.append(f"Approved so far by {_approvers(record)}")
    else:
        lines = [f"*{_question(q)}*" for q in record.questions[:QUESTIONS_SHOWN]]
        lines += _more_questions(record)
        lines[0] = f":hourglass_flowing_sand: {lines[0]}"
    asked = f"asked {when(record.created_at)}"
    # Not in Slack yet: the channel is at Slack's posting rate and it waits its turn.
    lines.append(_meta(record, f"{asked}, queued to be posted" if record.queued else asked, link))
    if sla is not None:
        lines.append(sla)  # the SLA step reached and the next one (bot/render/sla.py)
    if record.holder is not None:
        # Who holds it (bot/claims.py): the one person who may answer it now.
        since = f" since {when(record.claimed_at)}" if record.claimed_at is not None else ""
        lines.append(f"🙋 Claimed by <@{record.holder}>{since}")
    return "\n".join(lines)


def _settled_text(
    record: AskRecord,
    link: str | None,
    review: str | None = None,
    grants: Mapping[str, Grant] | None = None,
) -> str:
    verdict = record.ended_as or Verdict.FAILED
    at = when(record.decided_at if record.decided_at is not None else record.created_at)
    if record.is_plan_review:
        lines = [_plan_title(record), *_plan_outcome(record, verdict)]
    else:
        answers = {a.id: a for a in record.answer.answers} if record.answer else {}
        lines = []
        for q in record.questions[:QUESTIONS_SHOWN]:
            line = f"*{_question(q)}*"
            if verdict is Verdict.ANSWERED:
                line += f" → {_answer_words(answers.get(q.id))}"
            lines.append(line)
            lines += _edits(q, answers.get(q.id)) if verdict is Verdict.ANSWERED else []
        lines += _more_questions(record)
        lines.append(_tool_outcome(record, verdict, grants or {}) or _outcome(record, verdict))
    lines.append(_meta(record, at, link))
    if review is not None:
        lines.append(review)  # 👍 / 👎 and the latest note (bot/render/feedback.py)
    return "\n".join(lines)


def _outcome(record: AskRecord, verdict: Verdict) -> str:
    who = _who(record.decided_by)
    match verdict:
        case Verdict.ANSWERED:
            return f":white_check_mark: Answered by {who}"
        case Verdict.WITHDRAWN:
            reason = _reason(record) or "the agent no longer needed an answer"
            return f":heavy_minus_sign: Withdrawn, nobody answered: {reason}"
        case Verdict.CLOSED:
            return f":x: Dismissed: {who} closed the form"
        case Verdict.CANCELLED:
            return f":speech_balloon: Discussed: {who} chose to talk it over in the thread"
        case Verdict.EXPIRED:
            return ":alarm_clock: Expired, nobody answered" + _colon(_reason(record))
        case Verdict.FAILED:
            return ":warning: Failed" + _colon(_reason(record))
        case Verdict.STOPPED:
            return f":octagonal_sign: Stopped in Slack by {who}"


def _tool_outcome(record: AskRecord, verdict: Verdict, grants: Mapping[str, Grant]) -> str | None:
    """How a rule or a grant decided a tool call: "Allowed by rule `git-read-only`",
    "Denied by rule `no-force-push`", "Allowed by @x's session grant". None for another
    ask, or one a person decided."""
    decider = auto_decider(record.decided_by)
    if decider is None or verdict is not Verdict.ANSWERED or record.answer is None:
        return None
    intent = record.questions[0].intent if len(record.questions) == 1 else None
    if not isinstance(intent, ToolApprovalIntent) or not record.answer.answers:
        return None
    by = _decider_words(decider, grants)
    if record.answer.answers[0].selected == [intent.allow]:
        return f":white_check_mark: Allowed by {by}"
    return f":x: Denied by {by}"


def _decider_words(decider: AutoDecider, grants: Mapping[str, Grant]) -> str:
    if decider.kind == "rule":
        return f"rule {code_span(decider.name, 70)}"
    grant = grants.get(decider.name)
    if grant is None:
        return f"grant {code_span(decider.name, 30)}"  # purged since (no one to name)
    return f"{_who(grant.granted_by)}'s {GRANT_WORDS[grant.scope]}"


def _edits(question: AskUserQuestionItem, item: AskUserQuestionAnswerItem | None) -> list[str]:
    """An allow with its input edited: each changed field as original → edited (its first
    line, cut), one line each."""
    intent = question.intent
    if item is None or item.updated_input is None or not isinstance(intent, ToolApprovalIntent):
        return []
    original = intent.input or {}
    changed = [
        (name, before, item.updated_input[name])
        for name, before in original.items()
        if name in item.updated_input and item.updated_input[name] != before
    ]
    lines = [
        f"✏️ {code_span(name, 40)} edited: {_edit_value(before)} → {_edit_value(after)}"
        for name, before, after in changed[:EDITS_SHOWN]
    ]
    hidden = len(changed) - EDITS_SHOWN
    if hidden > 0:
        lines.append(f"_…and {_count(hidden, 'more edited field', 'more edited fields')}_")
    return lines


def _edit_value(value: JsonValue) -> str:
    lines = as_text(value).strip().splitlines()
    if not lines:
        return "_empty_"
    return code_span(lines[0] + (" …" if len(lines) > 1 else ""), EDIT_MAX)


def _plan_outcome(record: AskRecord, verdict: Verdict) -> list[str]:
    question = record.questions[0]
    intent = question.intent
    item = record.answer.answers[0] if record.answer and record.answer.answers else None
    who = _who(record.decided_by)
    if verdict is Verdict.ANSWERED and item is not None and intent is not None:
        outcome = plan_outcome(verdict, item, intent.label)
        head = f"{PLAN_ENDINGS[outcome].emoji} *{PLAN_ENDINGS[outcome].words}* by"
        if outcome is PlanOutcome.APPROVED:
            return [f"{head} {_approvers(record) or who}"]
        if outcome is PlanOutcome.CHANGES_REQUESTED:
            comment = one_line(item.custom or "", ANSWER_MAX)
            return [f"{head} {who}", f"> {comment}", *_earlier(record)]
        return [f"{head} {who}: {_answer_words(item)}", *_earlier(record)]
    # A review that ended undecided reads like any other ask's ending in this list.
    return [_outcome(record, verdict), *_earlier(record)]


def _earlier(record: AskRecord) -> list[str]:
    # Approvals that came before a decline or an ending: the review still shows them.
    return [f"Approved before that by {_approvers(record)}"] if record.approvals else []


def _plan_title(record: AskRecord) -> str:
    revision = f" (revision {record.revision})" if record.revision > 1 else ""
    return f":clipboard: Plan review{revision}: *{_question(record.questions[0])}*"


def _question(question: AskUserQuestionItem) -> str:
    return one_line(question.question, QUESTION_MAX)


def _more_questions(record: AskRecord) -> list[str]:
    hidden = len(record.questions) - QUESTIONS_SHOWN
    return [f"_…and {_count(hidden, 'more question', 'more questions')}_"] if hidden > 0 else []


def _answer_words(item: AskUserQuestionAnswerItem | None) -> str:
    """One answer on one line: the chosen labels in bold, then the typed text in quotes."""
    if item is None:
        return "_no answer_"
    words = [f"*{one_line(label, LABEL_MAX)}*" for label in item.selected]
    if item.custom is not None:
        custom = one_line(item.custom, ANSWER_MAX)
        words.append(f"“{custom}”")
    if not words:
        return "_skipped_"
    return cut_escaped(", ".join(words), ANSWER_MAX + 2 * LABEL_MAX)


def _meta(record: AskRecord, stamp: str, link: str | None) -> str:
    parts = [stamp, f"from {agent_label(record.agent_name, record.agent_id)}"]
    if link:
        parts.append(f"<{_url(link)}|View in Slack>")
    return " · ".join(parts)


def _url(link: str) -> str:
    # A permalink comes from Slack, but a `|` or `>` in it would still end the link early.
    return escape(link).replace("|", "%7C")


def _who(user: str | None) -> str:
    return f"<@{user}>" if user and _USER_ID.match(user) else "someone"


def _approvers(record: AskRecord) -> str:
    names = [_who(a.by) for a in record.approvals[:APPROVERS_SHOWN]]
    hidden = len(record.approvals) - APPROVERS_SHOWN
    if hidden > 0:
        names.append(f"{hidden} more")
    return ", ".join(names)


def _reason(record: AskRecord) -> str:
    return one_line(record.reason, REASON_MAX) if record.reason else ""


def _colon(text: str) -> str:
    return f": {text}" if text else ""


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"
