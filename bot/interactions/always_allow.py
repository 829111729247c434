""" "Always allow" on a tool approval: the modal proposing a rule from the call, and saving the
reviewer's rule, which allows this call and, from then on, the calls it covers before anyone
is asked (`bot/asks/automatic.py`, after the policy file's deny rules).

Who may save one is who may click Allow (`Approvals.refusal`, the same admission): a rule is
an approval that lasts, so it is refused wherever one person's approval would not decide —
several approvals needed, Allow offered nowhere in Slack, the requester approving their own
agent's call — and wherever a `[[tools]]` rule matching the call says `always_allow = false`
(a forged or stale click is refused the same way, with an ephemeral saying so).

The submission is checked before its ack when the ask is in hand here: what is wrong comes
back inline (`response_action: errors`), and a rule other than the one the modal put in
words comes back reworded (`response_action: update`) to be read before it is saved.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from slack_sdk.models.views import View

from bot.asks.lifecycle import Asks, review_on_clicks
from bot.asks.live import LiveAsk
from bot.block_ids import AskRef, ViewMeta
from bot.clock import Clock
from bot.interactions.admission import Admission
from bot.interactions.approvals import Approvals
from bot.payloads import StateValues
from bot.render.always_allow import (
    ReadRule,
    always_modal,
    covers,
    proposable,
    propose,
    read_rule,
    ttl_text_of,
)
from bot.render.tool_approval import ALWAYS_REASON, card
from bot.review import ReviewPolicies, agent_root, tools_of
from bot.slack.messages import AskMessages
from bot.store import AskStore, StoredRule
from bot.store.audit import AuditEntry, AuditKind, AuditPayload
from provider import ToolApprovalIntent

RESHOWN = (
    "⚠️ *The rule changed since it was put in words.* Read what it covers now (below), then save it."
)


@dataclass(frozen=True)
class ModalReply:
    """What the ack of a submitted "Always allow" modal carries: inline errors, or the modal
    shown again with the rule reworded; neither: accept it."""

    errors: dict[str, str] = field(default_factory=dict)
    view: View | None = None


class AlwaysAllow:
    """The handlers of "Always allow": open the proposal, check and save the rule."""

    def __init__(
        self,
        asks: Asks,
        admission: Admission,
        messages: AskMessages,
        policies: ReviewPolicies,
        store: AskStore,
        clock: Clock,
    ) -> None:
        self._asks = asks
        self._admission = admission
        self._messages = messages
        self._policies = policies
        self._store = store
        self._clock = clock
        self._approvals = Approvals(asks, admission, messages, policies, clock)

    async def open(self, user: str, ref: AskRef, trigger_id: str, *, push: bool) -> None:
        """Open the modal proposing a rule from this call, or tell `user` why not."""
        live = await self._admission.admit(user, ref.ask_id)
        if live is None:
            return
        refused = await self._refused(live, user)
        if refused is not None:
            await self._messages.ephemeral(live.record, user, refused)
            return
        intent = _intent(live)
        assert intent.tool is not None
        assert intent.input is not None
        proposal = propose(intent.tool, intent.input, live.record.agent_id)
        taken = await self._taken()
        free = next(
            f"{proposal.name}-{n}"
            for n in range(2, len(taken) + 3)
            if f"{proposal.name}-{n}" not in taken
        )
        if proposal.name in taken:
            # Proposed free: a name is checked again on saving, another may take it first.
            proposal = replace(proposal, name=free[:64])
        view = always_modal(ref.ask_id, proposal, intent.input, live.record.agent_id)
        await self._messages.open_modal(live.record, user, trigger_id, view, push=push)

    async def check(self, meta: ViewMeta, values: StateValues) -> ModalReply:
        """Before the ack: what the modal must show before it may close. An ask not in hand
        here is checked again after the ack, where the person is told."""
        live = self._asks.live(meta.ask)
        if live is None or review_on_clicks(live.layout) != "tool-approval":
            return ModalReply()
        read = await self._read(live, values)
        if read.proposal is None:
            return ModalReply(errors=read.errors)
        if read.proposal.digest() != meta.shown:
            intent = _intent(live)
            assert intent.input is not None
            view = always_modal(
                meta.ask,
                read.proposal,
                intent.input,
                live.record.agent_id,
                ttl_text=ttl_text_of(values),
                note=RESHOWN,
            )
            return ModalReply(view=view)
        return ModalReply()

    async def submit(self, user: str, meta: ViewMeta, values: StateValues) -> None:
        """Save `user`'s rule and allow the call, if they may and the rule is the one shown."""
        live = await self._admission.admit(user, meta.ask)
        if live is None:
            return
        refused = await self._refused(live, user)
        if refused is not None:
            await self._messages.ephemeral(live.record, user, refused)
            return
        read = await self._read(live, values)
        proposal = read.proposal
        if proposal is None or proposal.digest() != meta.shown:
            problems = "\n".join(f"• {message}" for message in read.errors.values()) or (
                "• The rule changed after it was shown; open Always allow again."
            )
            await self._messages.ephemeral(
                live.record, user, f"Your rule was not saved; nothing changed:\n{problems}"
            )
            return
        intent = _intent(live)
        assert intent.input is not None
        record = live.record
        now = self._clock.now()
        rule = StoredRule(
            name=proposal.name,
            tool=proposal.tool,
            args=proposal.args,
            scope=proposal.scope,
            subject=agent_root(record.agent_id)
            if proposal.scope == "agent" and record.agent_id
            else None,
            created_by=user,
            created_at=now,
            ask_id=record.id,
            expires_at=None if proposal.ttl is None else now + proposal.ttl,
        )
        try:
            # Stored before the call is allowed: the agent's next call may follow at once.
            await self._store.add_rule(rule)
        except ValueError:
            await self._messages.ephemeral(
                record,
                user,
                f"A rule named `{rule.name}` was saved by someone else just now; nothing "
                "changed. Open Always allow again and choose another name.",
            )
            return
        words = covers(proposal, intent.input, record.agent_id, rule.expires_at)
        await self._store.audit_append(
            AuditEntry(
                at=now,
                kind=AuditKind.RULE_CREATED,
                ask_id=record.id,
                actor=user,
                payload=AuditPayload(detail=rule.model_dump_json()),
            )
        )
        await self._approvals.approve(
            live, user, reason=ALWAYS_REASON.format(name=rule.name, covers=words)
        )

    async def _read(self, live: LiveAsk, values: StateValues) -> ReadRule:
        intent = _intent(live)
        assert intent.tool is not None
        assert intent.input is not None
        taken = await self._taken()
        return read_rule(intent.tool, intent.input, live.record.agent_id, values, taken)

    async def _taken(self) -> frozenset[str]:
        """Every rule name in use: the policy file's and the saved rules'."""
        return self._policies.rule_names() | {r.name for r in await self._store.rules()}

    async def _refused(self, live: LiveAsk, user: str) -> str | None:
        """Why `user` may not always allow this call; None: they may."""
        intent = live.layout.questions[0].question.intent
        if review_on_clicks(live.layout) != "tool-approval" or not isinstance(
            intent, ToolApprovalIntent
        ):
            return "Only a tool approval can be always allowed."
        if not proposable(intent.tool, intent.input):
            return "This call cannot be made a rule in Slack; allow it once, or not."
        record = live.record
        forbids = self._policies.always_allow_forbidden(tools_of(record.questions))
        if forbids is not None:
            return (
                f"The review policy forbids always allowing this tool: rule `{forbids}` says "
                "always_allow = false. Nothing changed; allow it once, or deny it."
            )
        status = await self._messages.review_status(record)
        made = card(record.id, live.layout, record.agent_name, record.agent_id, status)
        if made.not_here() is not None:
            return "This tool cannot be allowed from Slack; you may deny it."
        refused = await self._approvals.refusal(live, user)
        if refused is not None:
            return refused
        policy = self._policies.of(record)
        if policy.approvals > 1 or record.approvals:
            return (
                f"A rule can be saved only where one approval decides; this tool needs "
                f"{policy.approvals}. Nothing changed; allow it once, or deny it."
            )
        return None


def _intent(live: LiveAsk) -> ToolApprovalIntent:
    intent = live.layout.questions[0].question.intent
    assert isinstance(intent, ToolApprovalIntent)
    return intent
