"""Approving a review in Slack, one click at a time: the plan reviews' Approve and the tool
approvals' Allow share this one counter.

An approving click counts only if the ask's policy lets it: never from Slack where the policy
says `approve_in_slack = false` (a forged or stale click), never from the agent's requester
unless `requester_may_approve`, once per reviewer, and the review is approved when its
`approvals` are reached. A refused click is told why, and who could approve instead, in an
ephemeral, and changes nothing: no record, message or relay state moves. A decline is not
counted here: it is an answer like any other, the requester's too (`answering.py`).
"""

from __future__ import annotations

from pydantic import JsonValue

from bot.asks.lifecycle import Asks, review_on_clicks
from bot.asks.live import LiveAsk
from bot.clock import Clock
from bot.interactions.admission import Admission
from bot.review import ReviewPolicies, ReviewPolicy, enforced_on_clicks
from bot.slack.messages import AskMessages
from bot.slack.responders import mentions
from bot.store import Approval, AskRecord, EventKind
from provider import AskUserQuestionAnswerItem


class Approvals:
    """Counts approving clicks of plan reviews and tool approvals against their policies."""

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

    def counted(self, live: LiveAsk) -> bool:
        """Whether `live`'s approving clicks come here rather than answering at once: every
        plan review, and a tool approval whose policy asks anything of its clicks (a quorum,
        no approval by its requester, none from Slack). Such an ask is never decided before
        the ack: counting may read the store and must tell people why not."""
        kind = review_on_clicks(live.layout)
        if kind == "plan-review":
            return True
        if kind is None:
            return False
        policy = self._policies.of(live.record)
        return bool(enforced_on_clicks(policy, kind, live.record.requester))

    async def approve(
        self,
        live: LiveAsk,
        user: str,
        updated_input: dict[str, JsonValue] | None = None,
        *,
        reason: str | None = None,
    ) -> None:
        """Count `user`'s approval of a review they were admitted to, unless its policy
        refuses it; approve the review once the policy's count is reached. `updated_input`:
        they edited it first (`edits.py`), which only one approval may decide."""
        record = live.record
        question = live.layout.questions[0].question
        assert question.intent is not None
        policy = self._policies.of(record)
        acting_for = await self._admission.acting_for(live, user)
        refused = self._refusal(
            live, policy, user, edited=updated_input is not None, acting_for=acting_for
        )
        if refused is not None:
            detail, text = refused
            await self._asks.note(record.id, EventKind.REFUSED, user, detail)
            await self._messages.ephemeral(record, user, text)
            return
        # A reviewer counts once, whoever clicks for them: their own click or a delegate's.
        mine = {user} | acting_for
        if any(a.by == user for a in record.approvals):
            await self._messages.ephemeral(
                record, user, f"You already approved this {_what(live)}; it needs another reviewer."
            )
            return
        counted = [a for a in record.approvals if mine & _counts_for(a)]
        if counted:
            by = counted[0].by
            text = (
                f"<@{by}> already approved this {_what(live)} for you, as your delegate"
                if user in counted[0].acting_for
                else f"This {_what(live)} already has an approval for "
                f"{mentions(sorted(_counts_for(counted[0]) & mine))}, whom you answer for"
            )
            await self._messages.ephemeral(record, user, f"{text}; it needs another reviewer.")
            return
        if live.claimed:
            await self._admission.too_late(user, record.id)
            return
        approval = Approval(by=user, at=self._clock.now(), acting_for=tuple(sorted(acting_for)))
        needed = policy.approvals

        def approve(current: AskRecord) -> AskRecord | None:
            if any(mine & _counts_for(a) for a in current.approvals):
                return None  # counted already (a click that reached another replica too)
            return current.model_copy(update={"approvals": [*current.approvals, approval]})

        if len(record.approvals) + 1 < needed:
            saved = await self._asks.save_progress(
                live,
                EventKind.APPROVED,
                approve,
                actor=user,
                detail=f"{len(record.approvals) + 1}/{needed}",
                show=tuple(range(len(record.message_ts))),
            )
            if saved is None or len(saved.approvals) < needed:
                return
        else:
            # The approval that decides: counted synchronously with the check above, so two
            # approvals at once are both counted.
            approved = approve(record)
            if approved is None:
                return
            live.record = approved
        item = AskUserQuestionAnswerItem(
            id=question.id, selected=[question.intent.label], updated_input=updated_input
        )
        await self._admission.answer(live, user, [item], reason=reason)

    async def refusal(self, live: LiveAsk, user: str, *, edited: bool = False) -> str | None:
        """What `user` is told when their approval (edited or not) would not count; None:
        it may."""
        acting_for = await self._admission.acting_for(live, user)
        policy = self._policies.of(live.record)
        refused = self._refusal(live, policy, user, edited=edited, acting_for=acting_for)
        return refused[1] if refused is not None else None

    def _refusal(
        self,
        live: LiveAsk,
        policy: ReviewPolicy,
        user: str,
        *,
        edited: bool = False,
        acting_for: set[str] | None = None,
    ) -> tuple[str, str] | None:
        """Why `user`'s approval must not count under `policy`, as (the event's detail, what
        they are told); None: it may count. `acting_for`: whom `user` answers for as their
        delegate (empty: in their own right)."""
        record = live.record
        tool = review_on_clicks(live.layout) == "tool-approval"
        decline = "deny" if tool else "decline"
        if tool and not policy.approve_in_slack:
            # `where` reads after "Approve it", as on the card: "in the deploy console".
            where = f" Approve it {policy.where}." if policy.where else ""
            return (
                "not approved from Slack",
                f"This tool may not be allowed from Slack.{where} Nothing changed; you may "
                f"still {decline} it.",
            )
        if user == record.requester and not policy.requester_may_approve:
            what = (
                "allow a tool your own agent asked to run"
                if tool
                else ("approve a plan your own agent asked for")
            )
            return (
                "the requester may not approve",
                f"You may not {what}; ask {self._others(live, user)}. Nothing changed; you may "
                f"still {decline} it.",
            )
        if acting_for and acting_for <= {record.requester} and not policy.requester_may_approve:
            # A delegate has the delegator's rights, never more: the requester's are no
            # approval of what their own agent asked for.
            return (
                "the requester's delegate may not approve",
                f"You answer here for <@{record.requester}>, whose own agent asked for this, "
                f"so you may not approve it either; ask {self._others(live, user, record.requester)}. Nothing "
                f"changed; you may still {decline} it.",
            )
        if edited and (policy.approvals > 1 or live.record.approvals):
            # The others approved (or will approve) what the agent asked, not this edit.
            return (
                "an edit needs one approval",
                f"An edit can be approved only where one approval decides; this "
                f"{_what(live)} needs {policy.approvals}. Nothing changed; approve it as "
                f"asked, or {decline} it.",
            )
        return None

    def _others(self, live: LiveAsk, *instead_of: str | None) -> str:
        """Who could approve instead of the people `instead_of`, as mentions."""
        allowed = self._admission.who_may_answer(live)
        if allowed.anyone:
            return "someone else in this channel"
        others = [u for u in sorted(allowed.users) if u not in instead_of] + sorted(allowed.groups)
        if not others:
            return "whoever keeps the review policy: nobody else may approve it"
        return f"{mentions(others)} to approve it"


def _counts_for(approval: Approval) -> set[str]:
    """Whom an approval counts for: its reviewer, and those they approved for as delegate."""
    return {approval.by, *approval.acting_for}


def _what(live: LiveAsk) -> str:
    return "tool" if review_on_clicks(live.layout) == "tool-approval" else "plan"
