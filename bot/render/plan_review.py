"""A plan review in Slack: the plan, its approval state, Approve / decline / changes / discuss."""

from __future__ import annotations

from dataclasses import dataclass, field

from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    ConfirmObject,
    ContextBlock,
    HeaderBlock,
    InputBlock,
    MarkdownTextObject,
    PlainTextInputElement,
    PlainTextObject,
    SectionBlock,
)
from slack_sdk.models.views import View

from bot.block_ids import Action, AskRef, BlockKind, Callback, OptionRef, PageRef, ViewMeta
from bot.outcomes import PLAN_ENDINGS, PlanOutcome, plan_outcome
from bot.render.agent_text import literal_within, one_line
from bot.render.decided import Settlement, answer_text, when
from bot.render.edit_input import plan_edit_section, plan_editable
from bot.render.layout import AskLayout
from bot.render.message import MessageContent, agent_label
from bot.render.plan import PlanDiff, plan_diff, plan_pages, plan_preview
from bot.render.question import BUTTON_TEXT_MAX, SECTION_TEXT_MAX
from bot.render.text import chunks, escape, escaped_within, truncate
from bot.review import DEFAULT_GRANT_TTL
from provider import AskUserQuestionAnswerItem, AskUserQuestionItem

DIFF_PREVIEW_LINES = 12
COMMENT_MAX = 3000


@dataclass(frozen=True)
class ReviewStatus:
    """Where a review (of a plan or a tool) stands: what it needs, who approved, what the
    policy lets Slack do, and what changed since last time."""

    needed: int = 1
    approvals: tuple[tuple[str, float], ...] = ()
    reviewers: str = ""  # mentions of who may approve; empty: anyone who may answer
    revision: int = 1
    previous_plan: str | None = None
    policy: str = "default"  # the name of the review policy that applies
    confirm: bool = True  # a confirm dialog before the approving click counts
    in_slack: bool = True  # False: the policy says it is never approved from chat
    requester: str | None = None  # whose agent asks; may they approve: `requester_may_approve`
    requester_may_approve: bool = False
    where: str | None = None  # in_slack False: where the policy says to approve instead
    rule: str | None = None  # a tool approval: the `[[tools]]` rule that asks; None: no rule
    grant_ttl: float = DEFAULT_GRANT_TTL  # how long "Allow for this session" would last
    forbids_always: str | None = None  # the rule saying `always_allow = false`, if one matches

    def diff(self, plan: str) -> PlanDiff | None:
        """The changes from the previous revision, if there is one."""
        return plan_diff(self.previous_plan, plan) if self.previous_plan is not None else None


@dataclass(frozen=True)
class _Parts:
    heading: list[Block] = field(default_factory=list)
    plan: list[Block] = field(default_factory=list)


def _question(layout: AskLayout) -> AskUserQuestionItem:
    return layout.questions[0].question


def _heading(
    layout: AskLayout,
    ask_id: str,
    agent_name: str | None,
    status: ReviewStatus,
    agent_id: str | None = None,
) -> _Parts:
    question = _question(layout)
    plan = question.detail or ""
    title = "📋 Plan review" + (f" · revision {status.revision}" if status.revision > 1 else "")
    # Agent text shown literally; the plan below is the agent's Markdown, so the bot says whose.
    who = agent_label(agent_name, agent_id)
    asks = (
        f"{who} asks: {literal_within(question.question, 1500)}\n"
        "_The plan below is the agent's, as it wrote it._"
    )
    if question.header:
        asks = f"*{one_line(question.header, 200)}*\n{asks}"
    heading: list[Block] = [
        HeaderBlock(
            block_id=layout.aux_block_id(BlockKind.PLAN_TITLE, 0), text=PlainTextObject(text=title)
        ),
        SectionBlock(
            block_id=layout.aux_block_id(BlockKind.PLAN_QUESTION, 0),
            text=MarkdownTextObject(verbatim=True, text=truncate(asks, SECTION_TEXT_MAX)),
        ),
    ]
    preview = plan_preview(plan)
    body: list[Block] = list(preview.blocks)
    if not preview.complete:
        body.append(
            SectionBlock(
                block_id=layout.aux_block_id(BlockKind.PLAN_CUT, 0),
                text=MarkdownTextObject(
                    verbatim=True,
                    text=f"_Showing {preview.shown_chars:,} of {preview.total_chars:,} "
                    "characters of the plan._",
                ),
                accessory=ButtonElement(
                    action_id=Action.PLAN,
                    text=PlainTextObject(text="View the whole plan"),
                    value=AskRef(ask_id).encode(),
                ),
            )
        )
    diff = status.diff(plan)
    if diff is not None:
        body.append(_diff_section(layout, ask_id, status, diff))
    return _Parts(heading, body)


def _diff_section(layout: AskLayout, ask_id: str, status: ReviewStatus, diff: PlanDiff) -> Block:
    lines = diff.unified.splitlines()[2:]  # skip the ---/+++ file lines
    shown = "\n".join(lines[:DIFF_PREVIEW_LINES])
    more = (
        f"\n… {len(lines) - DIFF_PREVIEW_LINES} more lines"
        if len(lines) > DIFF_PREVIEW_LINES
        else ""
    )
    text = (
        f"*Changes since revision {status.revision - 1}* (+{diff.added} -{diff.removed} lines)\n"
        f"```{escape(shown)}{more}```"
    )
    return SectionBlock(
        block_id=layout.aux_block_id(BlockKind.PLAN_DIFF, 0),
        text=MarkdownTextObject(verbatim=True, text=chunks(text, SECTION_TEXT_MAX - 3)[0]),
        accessory=ButtonElement(
            action_id=Action.DIFF,
            text=PlainTextObject(text="View changes"),
            value=AskRef(ask_id).encode(),
        ),
    )


def _status_line(status: ReviewStatus) -> str:
    who = f" from {status.reviewers}" if status.reviewers else ""
    need = f"Needs {status.needed} approval{'s' if status.needed > 1 else ''}{who}"
    if not status.approvals:
        return need
    by = ", ".join(f"<@{user}>" for user, _ in status.approvals)
    return f"{need} · approved {len(status.approvals)}/{status.needed}: {by}"


def plan_review_message(
    ask_id: str,
    layout: AskLayout,
    agent_name: str | None,
    status: ReviewStatus,
    *,
    agent_id: str | None = None,
) -> MessageContent:
    """The plan under review, with Approve (by label), the declines and the other choices."""
    question = _question(layout)
    intent = question.intent
    assert intent is not None
    parts = _heading(layout, ask_id, agent_name, status, agent_id)
    buttons: list[ButtonElement] = []
    for index, label in enumerate(question.labels):
        if label == intent.label:
            buttons.insert(
                0,
                ButtonElement(
                    action_id=Action.APPROVE,
                    text=PlainTextObject(text=truncate(label, BUTTON_TEXT_MAX), emoji=False),
                    value=OptionRef(ask_id, index).encode(),
                    style="primary",
                    # The policy's `confirm` (on unless it says otherwise).
                    confirm=ConfirmObject(
                        title="Approve this plan?",
                        text=truncate(
                            f"The agent will go ahead with this plan (revision {status.revision}).",
                            300,
                        ),
                        confirm="Approve",
                        deny="Not yet",
                    )
                    if status.confirm
                    else None,
                ),
            )
        else:
            buttons.append(
                ButtonElement(
                    action_id=f"{Action.PICK}.{index}",
                    text=PlainTextObject(text=truncate(label, BUTTON_TEXT_MAX), emoji=False),
                    value=OptionRef(ask_id, index).encode(),
                    style="danger",
                )
            )
    if plan_editable(question.detail):
        buttons.insert(
            1,
            ButtonElement(
                action_id=Action.EDIT,
                text=PlainTextObject(text="Edit and approve"),
                value=AskRef(ask_id).encode(),
            ),
        )
    buttons += [
        ButtonElement(
            action_id=Action.CHANGES,
            text=PlainTextObject(text="Request changes"),
            value=AskRef(ask_id).encode(),
        ),
        ButtonElement(
            action_id=Action.DISCUSS,
            text=PlainTextObject(text="Discuss in thread"),
            value=AskRef(ask_id).encode(),
        ),
    ]
    blocks = [
        *parts.heading,
        *parts.plan,
        ContextBlock(
            block_id=layout.aux_block_id(BlockKind.PLAN_STATUS, 0),
            elements=[MarkdownTextObject(verbatim=True, text=_status_line(status))],
        ),
        ActionsBlock(block_id=question.id, elements=buttons),
    ]
    text = escaped_within(f"Plan review: {question.question}", 300)
    return MessageContent(text, blocks)


def settled_plan_review(
    ask_id: str,
    layout: AskLayout,
    agent_name: str | None,
    status: ReviewStatus,
    settlement: Settlement,
    *,
    agent_id: str | None = None,
) -> MessageContent:
    """The plan as decided: the plan stays, the controls give way to the decision."""
    question = _question(layout)
    parts = _heading(layout, ask_id, agent_name, status, agent_id)
    stamp = when(settlement.at)
    who = f"<@{settlement.actor}>" if settlement.actor else "someone"
    item = settlement.answers.get(question.id)
    approve = question.intent.label if question.intent else None
    outcome = plan_outcome(settlement.verdict, item, approve)
    row = PLAN_ENDINGS[outcome]
    match outcome:
        case PlanOutcome.APPROVED:
            by = ", ".join(f"<@{user}>" for user, _ in status.approvals) or who
            edit = " with the plan amended (above)" if _amended(item) is not None else ""
            line = f"{row.emoji} *{row.words}* by {by}{edit} · {stamp}"
        case PlanOutcome.CHANGES_REQUESTED:
            line = f"{row.emoji} *{row.words}* by {who} · {stamp}\n{answer_text(question, item)}"
        case PlanOutcome.DECLINED:
            line = f"{row.emoji} *{row.words}* by {who}: {answer_text(question, item)} · {stamp}"
        case PlanOutcome.DISCUSSED:
            line = f"{row.emoji} {who} {row.words} · {stamp}"
        case PlanOutcome.EXPIRED | PlanOutcome.WITHDRAWN:
            line = f"{row.emoji} *{row.words}*{_reason(settlement)} · {stamp}"
        case PlanOutcome.FAILED:
            line = f"{row.emoji} {row.words}{_reason(settlement)} · {stamp}"
        case PlanOutcome.STOPPED:
            line = f"{row.emoji} *{row.words}* by {who} · {stamp}"
    amended = _amended(item) if outcome is PlanOutcome.APPROVED else None
    revision = (
        [
            SectionBlock(
                block_id=layout.aux_block_id(BlockKind.EDITED, 0),
                text=MarkdownTextObject(
                    verbatim=True, text=plan_edit_section(question.detail or "", amended)
                ),
            )
        ]
        if amended is not None
        else []
    )
    blocks = [
        *parts.heading,
        *parts.plan,
        *revision,
        SectionBlock(
            block_id=layout.aux_block_id(BlockKind.PLAN_VERDICT, 0),
            text=MarkdownTextObject(verbatim=True, text=truncate(line, SECTION_TEXT_MAX)),
        ),
    ]
    return MessageContent(escaped_within(f"Plan review: {question.question}", 300), blocks)


def _amended(item: AskUserQuestionAnswerItem | None) -> str | None:
    """The plan as the reviewer amended it before approving, if they did."""
    plan = item.updated_input.get("plan") if item and item.updated_input else None
    return plan if isinstance(plan, str) else None


def _reason(settlement: Settlement) -> str:
    return f": {escaped_within(settlement.reason, 500)}" if settlement.reason else ""


def changes_modal(ask_id: str, question: AskUserQuestionItem) -> View:
    """Ask the reviewer what should change; the comment becomes the answer's `custom`."""
    return View(
        type="modal",
        callback_id=Callback.CHANGES,
        title=PlainTextObject(text="Request changes"),
        submit=PlainTextObject(text="Send to the agent"),
        close=PlainTextObject(text="Back"),
        private_metadata=ViewMeta(ask=ask_id).model_dump_json(exclude_none=True),
        blocks=[
            InputBlock(
                block_id=question.id,
                label=PlainTextObject(text="What should change in the plan?"),
                element=PlainTextInputElement(
                    action_id=Action.INPUT,
                    multiline=True,
                    max_length=COMMENT_MAX,
                    placeholder=PlainTextObject(text="The agent reads this and revises its plan"),
                ),
            )
        ],
    )


def plan_modal(ask_id: str, plan: str, page: int) -> View:
    """Page `page` of the whole plan, with buttons to the neighbouring pages."""
    pages = plan_pages(plan)
    page = max(0, min(page, len(pages) - 1))
    blocks: list[Block] = list(pages[page])
    if len(pages) > 1:
        nav = []
        if page > 0:
            nav.append(
                ButtonElement(
                    action_id=Action.PLAN,
                    text=PlainTextObject(text="Previous page"),
                    value=PageRef(ask_id, page - 1).encode(),
                )
            )
        if page < len(pages) - 1:
            nav.append(
                ButtonElement(
                    action_id=Action.PLAN,
                    text=PlainTextObject(text="Next page"),
                    value=PageRef(ask_id, page + 1).encode(),
                )
            )
        blocks.append(ActionsBlock(block_id="sq~plan.nav", elements=nav))
    title = "The plan" if len(pages) == 1 else f"The plan ({page + 1}/{len(pages)})"
    return View(
        type="modal",
        callback_id=Callback.PLAN,
        title=PlainTextObject(text=title),
        close=PlainTextObject(text="Close"),
        private_metadata=ViewMeta(ask=ask_id, part=page).model_dump_json(exclude_none=True),
        blocks=blocks,
    )


def diff_modal(diff: PlanDiff, revision: int) -> View:
    """Every changed line since the previous revision."""
    body = escape("\n".join(diff.unified.splitlines()[2:]))
    pieces = chunks(body, SECTION_TEXT_MAX - 6)[:99]
    blocks: list[Block] = [
        SectionBlock(
            block_id=f"sq~diff.{i}", text=MarkdownTextObject(verbatim=True, text=f"```{piece}```")
        )
        for i, piece in enumerate(pieces)
    ]
    return View(
        type="modal",
        callback_id=Callback.PLAN,
        title=PlainTextObject(text=truncate(f"Changes in revision {revision}", 24)),
        close=PlainTextObject(text="Close"),
        blocks=blocks or [SectionBlock(text=MarkdownTextObject(text="_No changes._"))],
    )
