""" "Allow for this session" on a tool approval: the call is allowed as Allow allows it, and
a grant is stored so the same agent session's next call of this tool with exactly this input
is allowed before anyone is pinged (`bot/asks/automatic.py`), until the ask's policy's
`grant_ttl` (8 hours where none is set) has passed.

Who may click it is who may click Allow (`Approvals.refusal`, the same admission): a grant is
an approval that lasts, so it is refused wherever one person's approval would not decide —
several approvals needed, Allow offered nowhere in Slack, the requester approving their own
agent's call — and where the call names no agent session to scope it to.
"""

from __future__ import annotations

import json
import re
import secrets

from pydantic import JsonValue

from bot.asks.grants import Grants
from bot.asks.lifecycle import Asks, review_on_clicks
from bot.asks.live import LiveAsk
from bot.block_ids import AskRef
from bot.clock import Clock
from bot.interactions.admission import Admission
from bot.interactions.approvals import Approvals
from bot.render.decided import when
from bot.render.tool_approval import card
from bot.review import REGEX_PREFIX, ReviewPolicies
from bot.slack.messages import AskMessages
from bot.store import AskStore, Grant
from provider import ToolApprovalIntent


def exact_patterns(tool_input: dict[str, JsonValue]) -> dict[str, str]:
    """Patterns that match exactly this input, field by field: each value as `args_match`
    reads it (a string as is, else canonical JSON), escaped in a whole-value regular
    expression, so no glob character in it widens the grant."""
    return {name: f"{REGEX_PREFIX}{re.escape(_text(value))}" for name, value in tool_input.items()}


def _text(value: JsonValue) -> str:
    # The same reading as `bot.review._arg_text`, which the patterns are matched against.
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class SessionGrants:
    """The handler of "Allow for this session"."""

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
        self._grants = Grants(store, clock)
        self._clock = clock
        self._approvals = Approvals(asks, admission, messages, policies, clock)

    async def allow(self, user: str, ref: AskRef) -> None:
        """Allow the call and store `user`'s grant for its session, or tell them why not."""
        live = await self._admission.admit(user, ref.ask_id)
        if live is None:
            return
        refused = await self._refused(live, user)
        if refused is not None:
            await self._messages.ephemeral(live.record, user, refused)
            return
        intent = live.layout.questions[0].question.intent
        assert isinstance(intent, ToolApprovalIntent)
        assert intent.tool is not None
        assert intent.input is not None
        now = self._clock.now()
        grant = Grant(
            id=secrets.token_hex(6),
            tool=intent.tool,
            args=exact_patterns(intent.input),
            scope="session",
            subject=intent.session,
            granted_by=user,
            created_at=now,
            expires_at=now + self._policies.grant_ttl(live.record),
        )
        # Stored before the call is allowed: the agent's next call may follow at once.
        await self._grants.add(grant, ask_id=live.record.id)
        assert grant.expires_at is not None
        await self._approvals.approve(
            live,
            user,
            reason=f"for this session (until {when(grant.expires_at)})",
        )

    async def _refused(self, live: LiveAsk, user: str) -> str | None:
        """Why `user` may not grant this call for its session; None: they may."""
        intent = live.layout.questions[0].question.intent
        if review_on_clicks(live.layout) != "tool-approval" or not isinstance(
            intent, ToolApprovalIntent
        ):
            return "Only a tool approval can be allowed for a session."
        if intent.session is None or intent.tool is None or intent.input is None:
            return "This call names no agent session to allow it for; allow it once, or not."
        status = await self._messages.review_status(live.record)
        record = live.record
        made = card(record.id, live.layout, record.agent_name, record.agent_id, status)
        if made.not_here() is not None:
            return "This tool cannot be allowed from Slack; you may deny it."
        refused = await self._approvals.refusal(live, user)
        if refused is not None:
            return refused
        policy = self._policies.of(record)
        if policy.approvals > 1 or record.approvals:
            return (
                f"A grant can be made only where one approval decides; this tool needs "
                f"{policy.approvals}. Nothing changed; allow it once, or deny it."
            )
        return None
