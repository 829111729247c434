"""Editing a review before approving it: "Edit and allow" on a tool approval, "Edit and
approve" on a plan review.

The edit modal is offered to whoever may approve, and only where approving is possible at
all (a tool approval whose whole input Slack shows, and whose policy lets Slack allow it).
Its submission is checked before the ack, so a field whose JSON type changed is refused in
the modal itself, and counted as an approval by `approvals.py`, which refuses what the
policy refuses. The answer carries the edited input (`updated_input`); the agent runs that.
"""

from __future__ import annotations

from pydantic import JsonValue

from bot.asks.lifecycle import Asks, review_on_clicks
from bot.asks.live import LiveAsk
from bot.block_ids import AskRef, ViewMeta
from bot.clock import Clock
from bot.interactions.admission import Admission
from bot.interactions.approvals import Approvals
from bot.payloads import StateValues
from bot.render.edit_input import (
    Edited,
    edit_diff,
    plan_edit_modal,
    plan_editable,
    read_plan_edit,
    read_tool_edit,
    tool_edit_modal,
    tool_editable,
)
from bot.render.tool_approval import card
from bot.review import ReviewPolicies
from bot.slack.messages import AskMessages
from bot.store import AskStore
from bot.store.audit import AuditEntry, AuditKind, AuditPayload
from provider import PlanReviewIntent, ToolApprovalIntent

NOTHING_TO_EDIT = "There is nothing here that can be edited in Slack; approve it as asked, or not."


class Edits:
    """Handlers of the edit modals of tool approvals and plan reviews."""

    def __init__(
        self,
        asks: Asks,
        admission: Admission,
        messages: AskMessages,
        policies: ReviewPolicies,
        clock: Clock,
        store: AskStore | None = None,
    ) -> None:
        self._asks = asks
        self._admission = admission
        self._messages = messages
        self._approvals = Approvals(asks, admission, messages, policies, clock)
        self._store = store  # where the decision log keeps the edit's diff (None: not kept)
        self._clock = clock

    async def open(self, user: str, ref: AskRef, trigger_id: str, *, push: bool) -> None:
        """Open the edit modal for `user`, or tell them why they may not edit this review."""
        live = await self._admission.admit(user, ref.ask_id)
        if live is None:
            return
        refused = await self._refused(live, user)
        if refused is not None:
            await self._messages.ephemeral(live.record, user, refused)
            return
        question = live.layout.questions[0].question
        intent = question.intent
        if isinstance(intent, ToolApprovalIntent) and intent.input is not None:
            view = tool_edit_modal(ref.ask_id, intent.tool, intent.input, intent.allow)
        else:
            assert isinstance(intent, PlanReviewIntent)
            view = plan_edit_modal(ref.ask_id, question.detail or "", intent.approve)
        await self._messages.open_modal(live.record, user, trigger_id, view, push=push)

    def check(self, meta: ViewMeta, values: StateValues) -> dict[str, str]:
        """The errors the modal must show before it may close (empty: accept it). An ask not
        in hand here is checked again after the ack, where the person is told."""
        live = self._asks.live(meta.ask)
        if live is None or review_on_clicks(live.layout) is None:
            return {}
        return _read(live, values).errors

    async def submit(self, user: str, meta: ViewMeta, values: StateValues) -> None:
        """Approve the review with the edited input, if `user` may and the edit keeps the
        input's shape."""
        live = await self._admission.admit(user, meta.ask)
        if live is None:
            return
        refused = await self._refused(live, user)
        if refused is not None:
            await self._messages.ephemeral(live.record, user, refused)
            return
        edited = _read(live, values)
        if edited.value is None:
            problems = "\n".join(f"• {message}" for message in edited.errors.values())
            await self._messages.ephemeral(
                live.record, user, f"Your edit was not sent; nothing changed:\n{problems}"
            )
            return
        await self._approvals.approve(live, user, updated_input=edited.value)
        await self._log_edit(live, user, edited.value)

    async def _log_edit(self, live: LiveAsk, user: str, value: dict[str, JsonValue]) -> None:
        """Chain the edit's diff into the decision log once it decided the ask: the answered
        link says who allowed it, this one what they changed (original → edited)."""
        record = live.record
        answer = record.answer
        decided = (
            record.decided_by == user
            and answer is not None
            and any(item.updated_input == value for item in answer.answers)
        )
        if self._store is None or not decided:
            return
        intent = live.layout.questions[0].question.intent
        if isinstance(intent, ToolApprovalIntent) and intent.input is not None:
            diff = edit_diff(intent.input, value)
        else:
            plan = live.layout.questions[0].question.detail or ""
            diff = edit_diff({"plan": plan}, {"plan": value.get("plan", plan)})
        await self._store.audit_append(
            AuditEntry(
                at=self._clock.now(),
                kind=AuditKind.EDITED,
                ask_id=record.id,
                actor=user,
                payload=AuditPayload(detail=diff),
            )
        )

    async def _refused(self, live: LiveAsk, user: str) -> str | None:
        """Why `user` may not edit `live`: not a review one click approves, nothing to edit,
        Allow offered nowhere in Slack (the input is not all shown, or the policy says no),
        or the policy would not count their approval."""
        kind = review_on_clicks(live.layout)
        question = live.layout.questions[0].question
        intent = question.intent
        if kind == "tool-approval" and isinstance(intent, ToolApprovalIntent):
            if not tool_editable(intent.input):
                return NOTHING_TO_EDIT
            status = await self._messages.review_status(live.record)
            record = live.record
            made = card(record.id, live.layout, record.agent_name, record.agent_id, status)
            if made.not_here() is not None:
                return "This tool cannot be allowed from Slack, edited or not; you may deny it."
        elif kind == "plan-review" and isinstance(intent, PlanReviewIntent):
            if not plan_editable(question.detail):
                return NOTHING_TO_EDIT
        else:
            return NOTHING_TO_EDIT
        return await self._approvals.refusal(live, user, edited=True)


def _read(live: LiveAsk, values: StateValues) -> Edited:
    question = live.layout.questions[0].question
    intent = question.intent
    if isinstance(intent, ToolApprovalIntent):
        return read_tool_edit(intent.input or {}, values)
    return read_plan_edit(question.detail or "", values)
