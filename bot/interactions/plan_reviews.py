"""What reviewers do to a plan review in Slack: approve (as many times as the policy needs,
counted by `approvals.py`, which tool approvals share), move it to a discussion, and read the
whole plan or what changed since the declined revision. A decline or a change request is an
answer like any other (`answering.py`)."""

from __future__ import annotations

from bot.asks.lifecycle import Asks, review_on_clicks
from bot.asks.live import LiveAsk
from bot.block_ids import AskRef, PageRef
from bot.clock import Clock
from bot.interactions.admission import Admission
from bot.interactions.approvals import Approvals
from bot.render.plan_review import changes_modal, diff_modal, plan_modal
from bot.review import ReviewPolicies
from bot.slack.messages import AskMessages
from bot.store import Verdict


class PlanReviews:
    """Handlers for the controls only a plan review has."""

    def __init__(
        self,
        asks: Asks,
        admission: Admission,
        messages: AskMessages,
        policies: ReviewPolicies,
        clock: Clock,
    ) -> None:
        self._asks = asks
        self._admission = admission
        self._messages = messages
        self._policies = policies
        self._clock = clock
        self._approvals = Approvals(asks, admission, messages, policies, clock)

    async def approve(self, user: str, ref: AskRef) -> None:
        """One reviewer approves (Approve on a plan, or on a tool approval that has the
        control): counted by `approvals.py`, settled once the policy's count is reached."""
        live = await self._admission.admit(user, ref.ask_id)
        if live is not None and review_on_clicks(live.layout) is not None:
            await self.approve_admitted(live, user)

    def counts_approvals(self, live: LiveAsk) -> bool:
        """Whether an approving pick of `live` is counted here (see `Approvals.counted`)."""
        return self._approvals.counted(live)

    async def approve_admitted(self, live: LiveAsk, user: str) -> None:
        """Count `user`'s approval of a review they were admitted to (a pick of the approving
        label comes here too), unless its policy refuses it."""
        await self._approvals.approve(live, user)

    async def discuss(self, user: str, ref: AskRef) -> None:
        """The reviewer would rather talk: the agent gets `ASK_CANCELLED`."""
        live = await self._admission.admit(user, ref.ask_id)
        if live is None:
            return
        await self._asks.settle(
            ref.ask_id,
            Verdict.CANCELLED,
            actor=user,
            detail=f"{user} chose to discuss the plan in the Slack thread instead",
        )

    async def open_changes(self, user: str, ref: AskRef, trigger_id: str) -> None:
        """Open the "Request changes" modal."""
        live = await self._admission.admit(user, ref.ask_id)
        if live is None:
            return
        view = changes_modal(ref.ask_id, live.layout.questions[0].question)
        await self._messages.open_modal(live.record, user, trigger_id, view, push=False)

    async def open_plan(
        self,
        user: str,
        ref: PageRef,
        trigger_id: str,
        *,
        view_id: str | None,
        view_hash: str | None,
    ) -> None:
        """Show page `ref.page` of the whole plan (turning pages inside the modal)."""
        record = await self._asks.record(ref.ask_id)
        if record is None or not record.questions[0].detail:
            return
        view = plan_modal(record.id, record.questions[0].detail, ref.page)
        if view_id is None:
            await self._messages.open_modal(record, user, trigger_id, view, push=False)
        else:
            await self._messages.update_modal(record, view_id, view_hash, view)

    async def open_diff(self, user: str, ref: AskRef, trigger_id: str) -> None:
        """Show what changed since the declined revision."""
        record = await self._asks.record(ref.ask_id)
        if record is None or record.revises is None:
            return
        status = await self._messages.review_status(record)
        diff = status.diff(record.questions[0].detail or "")
        if diff is not None:
            view = diff_modal(diff, record.revision)
            await self._messages.open_modal(record, user, trigger_id, view, push=False)
