"""The steps every handler of a person's action shares: who may act, admitting them or saying
why not, and turning an answer into the ask's settlement (the first valid one wins)."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from bot.asks.escalation import noun_of
from bot.asks.lifecycle import Asks
from bot.asks.live import LiveAsk
from bot.claims import held_refusal, offers_claims
from bot.clock import Clock, SystemClock
from bot.delegation import acting_for, active, away_line, routes
from bot.render.notes import settled_note
from bot.review import ReviewPolicies
from bot.slack.messages import AskMessages
from bot.slack.responders import ANYONE, Responders
from bot.store import AskStore, EventKind, MemoryStore, Verdict
from provider import (
    AnswerContractError,
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    check_answer,
)

log = logging.getLogger(__name__)

# How long a "too late" note waits for the winning answer to be saved, to name its author.
SETTLING_WAIT_S = 10.0


class Admission:
    """Admits people to an open ask and settles it with their answer."""

    def __init__(
        self,
        asks: Asks,
        messages: AskMessages,
        responders: Responders,
        policies: ReviewPolicies,
        *,
        store: AskStore | None = None,
        clock: Clock | None = None,
    ) -> None:
        self._asks = asks
        self._messages = messages
        self._responders = responders
        self._policies = policies
        # Where out-of-office delegations are read (every replica's, so read each time).
        self._store: AskStore = store if store is not None else MemoryStore()
        self._clock: Clock = clock or SystemClock()
        self._reviewers: dict[tuple[str, ...], Responders] = {}

    def who_may_answer(self, live: LiveAsk) -> Responders:
        """The reviewers the ask's policy names (whatever its kind); else the responders."""
        policy = self._policies.of(live.record)
        reviewers = policy.reviewers
        if live.record.escalated_at is not None and not (self._responders.anyone and not reviewers):
            # Its SLA ladder escalated it: the backup may answer too (escalation never approves).
            base = reviewers or (*sorted(self._responders.users), *sorted(self._responders.groups))
            reviewers = (*base, *policy.escalate_to)
        if not reviewers:
            return self._responders
        if reviewers not in self._reviewers:
            self._reviewers[reviewers] = Responders(self._responders.client, reviewers)
        return self._reviewers[reviewers]

    async def admit(
        self, user: str, ask_id: str, *, part: int | None = None, lookups: bool = True
    ) -> LiveAsk | None:
        """The open ask if `user` may act on it now; otherwise tell them why not.

        `lookups=False` is the decide phase of a click, before its ack: nothing is awaited
        and nobody is told anything. The ask must be in hand here, not being decided, its post
        not being recorded (that would hold the ack until it is), and `user` plainly allowed
        (anyone may answer, or they are named). None otherwise, and the click takes the
        ordinary path, which looks up the store and a user group's members and says why not."""
        if not lookups:
            live = self._asks.live(ask_id)
            if live is None or live.claimed or live.being_posted:
                return None
            holder = live.record.holder
            if holder is not None:
                return live if user == holder else None
            allowed = self.who_may_answer(live)
            return live if allowed.anyone or user in allowed.users else None
        live = await self._asks.held(ask_id)
        if live is not None and self.offers_claims(live):
            # Another replica may have claimed it since this copy was read.
            live = live if await self._asks.held_asks.refresh(live) else None
        if live is None:
            await self.too_late(user, ask_id)
            return None
        holder = live.record.holder
        if holder is not None and user != holder:
            await self._asks.note(ask_id, EventKind.REFUSED, user, f"claimed by {holder}")
            await self._messages.ephemeral(
                live.record, user, held_refusal(holder, noun_of(live.record))
            )
            return None
        # Its holder may, even one who is not a reviewer: it was handed to them by name.
        if holder is None and not await self._allows(live, user):
            return None
        done = live.record.parts_done.get(part) if part is not None else None
        if done is not None:
            await self._messages.ephemeral(
                live.record, user, f"This part was already answered by <@{done.by}>."
            )
            return None
        return live

    async def _allows(self, live: LiveAsk, user: str) -> bool:
        """Whether `user` may answer the ask (in their own right, or as the delegate of someone
        who may); if not, they are told who may."""
        allowed = self.who_may_answer(live)
        if not await allowed.allows(user) and await self._escalated_elsewhere(live):
            allowed = self.who_may_answer(live)
        if not await allowed.allows(user) and not await self.acting_for(live, user):
            await self._asks.note(
                live.record.id, EventKind.REFUSED, user, "not an allowed responder"
            )
            await self._messages.ephemeral(live.record, user, await self._refusal(allowed))
            return False
        return True

    def offers_claims(self, live: LiveAsk) -> bool:
        """Whether the ask offers "Claim": its policy sets `claim_lapse` and it is sent to
        a pool (bot/claims.py)."""
        responders = self._responders
        ids = ANYONE if responders.anyone else sorted(responders.users | responders.groups)
        return offers_claims(self._policies.of(live.record), ids)

    async def may_act(self, live: LiveAsk, user: str) -> bool:
        """Whether `user` may act on the ask: allowed, or a delegate of someone who is."""
        return await self.who_may_answer(live).allows(user) or bool(
            await self.acting_for(live, user)
        )

    async def acting_for(self, live: LiveAsk, user: str) -> set[str]:
        """The people the ask names whom `user` answers for as their delegate, when `user`
        may not answer in their own right (empty: they may, or they are nobody's delegate
        here). A delegate has the rights of these people only (bot/interactions/approvals.py)."""
        allowed = self.who_may_answer(live)
        if allowed.anyone or await allowed.lists(user):
            return set()
        in_force = active(await self._store.delegations(), self._clock.now())
        return acting_for(user, sorted(allowed.users), in_force)

    async def _refusal(self, allowed: Responders) -> str:
        """What someone who may not answer is told: who may, and who answers for whom."""
        text = allowed.refusal()
        in_force = active(await self._store.delegations(), self._clock.now())
        away = [away_line(found) for found in routes(sorted(allowed.users), in_force)]
        return text if not away else f"{text} {'; '.join(away)}."

    async def _escalated_elsewhere(self, live: LiveAsk) -> bool:
        """Whether another replica escalated the ask since this copy was read (then `live`
        holds the stored record)."""
        if live.record.escalated_at is not None:
            return False
        return await self._asks.held_asks.refresh(live) and live.record.escalated_at is not None

    async def answer(
        self,
        live: LiveAsk,
        user: str,
        items: list[AskUserQuestionAnswerItem],
        *,
        lookups: bool = True,
        reason: str | None = None,
    ) -> bool:
        """Settle the ask with `items` as `user`'s answer, unless someone was first; whether
        this answer decided it.

        `lookups=False` is the decide phase of a click, before its ack: the settlement is
        saved and the waiters woken, and the decision is shown later, in a tracked task. False
        then means nothing was decided (someone was first, or the answer breaks the contract)
        and nobody was told: the click takes the ordinary path, which tells them why."""
        answer = AskUserQuestionAnswer(answers=items)
        if not lookups:
            try:
                check_answer(live.record.request, answer)
            except AnswerContractError:
                return False  # the ordinary path fails the ask, loudly
        claimed = self._asks.claim(live.record.id)
        if claimed is None:
            if lookups:
                await self.too_late(user, live.record.id)
            return False
        if not lookups:
            return await self._asks.settle(
                live.record.id,
                Verdict.ANSWERED,
                claimed=claimed,
                actor=user,
                answer=answer,
                show_later=True,
            )
        return await self.settle_answer(claimed, user, answer, reason=reason)

    async def settle_answer(
        self,
        live: LiveAsk,
        user: str,
        answer: AskUserQuestionAnswer,
        *,
        reason: str | None = None,
    ) -> bool:
        """Settle a claimed ask with `answer`, checked against the seam's contract first;
        whether it was this answer that decided the ask. `reason`: what the answer did beyond
        answering (a grant made with it), shown on the decided card and logged."""
        try:
            check_answer(live.record.request, answer)
        except AnswerContractError as broken:
            # Our own parser produced it, so this is a bug: fail loudly rather than mislead.
            log.error("ask %s: answer breaks the contract: %s", live.record.id, broken)
            await self._asks.settle(
                live.record.id,
                Verdict.FAILED,
                claimed=live,
                actor=user,
                reason="the answer could not be read",
                detail=f"invalid answer: {broken}",
            )
            return False
        if not await self._asks.settle(
            live.record.id,
            Verdict.ANSWERED,
            claimed=live,
            actor=user,
            answer=answer,
            reason=reason,
        ):
            await self.too_late(user, live.record.id)  # another replica settled it first
            return False
        return True

    async def too_late_for_part(self, user: str, live: LiveAsk, part: int) -> None:
        """Tell `user` their part was answered first by someone else, or the ask ended."""
        done = live.record.parts_done.get(part)
        if done is not None and self._asks.live(live.record.id) is live:
            await self._messages.ephemeral(
                live.record, user, f"This part was already answered by <@{done.by}>."
            )
            return
        await self.too_late(user, live.record.id)

    async def too_late(self, user: str, ask_id: str) -> None:
        """Tell `user` the ask has already ended, and how."""
        record = await self._asks.stored(ask_id)
        if record is None:
            return
        if not record.settled:
            # Someone's answer is being saved right now (here or on another replica): say
            # who won once it is.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(SETTLING_WAIT_S):
                    record = await self._asks.wait(ask_id)
        await self._asks.note(ask_id, EventKind.REFUSED, user, "already settled")
        note = (
            settled_note(record.ended_as, record.decided_by)
            if record.settled
            else "Someone else's answer to this question is being saved; yours changed nothing."
        )
        await self._messages.ephemeral(record, user, note)
