"""The handlers of "Claim", "Release" and "Reassign…" on an ask sent to a pool (bot/claims.py
says when one is offered).

Who may: claiming is answering's right (fail closed: `Admission.admit`, so only someone who
may answer the ask claims it, and a claimed ask refuses everyone but its holder, naming
them). The holder releases it. Handing it on is the holder's while it is claimed, else that
of anyone who may answer; the person it is handed to holds it — admitted by name even if no
policy lists them, while the policy's reviewers stay who may answer once it returns to the
pool. It is never handed to a bot, nor claimed by or handed to the requester of a review
their policy forbids them to approve (`requester_may_approve = false`): held by them, it
could only be declined.

Each change is one conditional save (`Asks.save_progress`: two people claiming at once on
two replicas, one wins) and then one line in the thread; the claim's lapse is
bot/asks/claim_lapses.py's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bot.asks.escalation import noun_of
from bot.asks.lifecycle import Asks
from bot.asks.live import LiveAsk
from bot.block_ids import AskRef, ViewMeta
from bot.claims import claimed_line, held_refusal, pool_of, reassigned_line, released_line
from bot.clock import Clock
from bot.interactions.admission import Admission
from bot.payloads import StateValues
from bot.render.claim import REASSIGN_BLOCK_ID, reassign_modal
from bot.review import REVIEWS, ReviewPolicies, kind_of
from bot.slack.messages import AskMessages
from bot.slack.responders import mentions
from bot.slack.users import Users
from bot.store import AskRecord, EventKind

NOT_OFFERED = "This ask cannot be claimed or handed on: its policy offers no claims."


class Claims:
    """Claim, release and hand on the asks sent to a pool."""

    def __init__(
        self,
        asks: Asks,
        admission: Admission,
        messages: AskMessages,
        policies: ReviewPolicies,
        clock: Clock,
        users: Users,
        *,
        responders: Sequence[str] | str = (),
    ) -> None:
        self._asks = asks
        self._admission = admission
        self._messages = messages
        self._policies = policies
        self._clock = clock
        self._users = users
        self._responders = responders

    async def claim(self, user: str, ref: AskRef) -> None:
        """`user` holds the ask from now on, or is told why not."""
        live = await self._offered(user, ref.ask_id)
        if live is None:
            return
        if live.record.holder == user:
            await self._tell(live, user, f"You hold {noun_of(live.record)} already.")
            return
        if self._may_not_approve(live, user):
            # Held by them, it could only ever be declined: nobody else could approve it.
            await self._tell(
                live,
                user,
                f"You are who the agent acts for, and its policy does not let you approve "
                f"{noun_of(live.record)}: you cannot claim it, so nothing changed.",
            )
            return
        now = self._clock.now()

        def claimed(record: AskRecord) -> AskRecord | None:
            if record.holder is not None:
                return None  # someone else claimed it first (on another replica)
            return record.model_copy(update={"holder": user, "claimed_at": now})

        saved = await self._save(live, EventKind.CLAIMED, claimed, user)
        if saved is None:
            await self._refuse_as_held(live, user)
            return
        await self._messages.remind(saved, claimed_line(user, noun_of(saved)))

    async def release(self, user: str, ref: AskRef) -> None:
        """The holder gives the ask back to its pool."""
        live = await self._offered(user, ref.ask_id)
        if live is None:
            return
        noun = noun_of(live.record)
        if live.record.holder is None:
            await self._tell(live, user, f"Nobody holds {noun}: nothing changed.")
            return

        def released(record: AskRecord) -> AskRecord | None:
            if record.holder != user:
                return None
            return record.model_copy(update={"holder": None, "claimed_at": None})

        saved = await self._save(live, EventKind.RELEASED, released, user)
        if saved is None:
            # Released (or lapsed) on another replica since it was read.
            await self._refuse_as_held(live, user, free=f"Nobody holds {noun}: nothing changed.")
            return
        pool = mentions(pool_of(self._policies.of(saved), self._responders))
        await self._messages.remind(saved, released_line(user, noun_of(saved), pool))

    async def open_reassign(self, user: str, ref: AskRef, trigger_id: str) -> None:
        """Open "Reassign…" for someone who may hand the ask on."""
        live = await self._offered(user, ref.ask_id)
        if live is None:
            return
        record = live.record
        modal = reassign_modal(record.id, noun_of(record), record.channel)
        await self._messages.open_modal(record, user, trigger_id, modal, push=False)

    async def reassign(self, user: str, meta: ViewMeta, values: StateValues) -> None:
        """Hand the ask to the person chosen in "Reassign…": they hold it now, and the
        thread says so with a mention, so Slack notifies them."""
        live = await self._offered(user, meta.ask)
        if live is None:
            return
        target = _chosen(values)
        if target is None:
            await self._tell(live, user, "Choose the person to hand it to: nothing changed.")
            return
        refused = await self._refusal(live, user, target)
        if refused is not None:
            await self._tell(live, user, refused)
            return
        before = live.record.holder
        now = self._clock.now()

        def handed(record: AskRecord) -> AskRecord | None:
            if record.holder != before:
                return None  # claimed, released or handed on since the modal was sent
            return record.model_copy(update={"holder": target, "claimed_at": now})

        saved = await self._save(live, EventKind.REASSIGNED, handed, user, detail=target)
        if saved is None:
            await self._refuse_as_held(live, user)
            return
        await self._messages.remind(saved, reassigned_line(user, target))

    def check(self, user: str, meta: ViewMeta, values: StateValues) -> dict[str, str]:
        """What "Reassign…" must show under its picker before it may close (empty: accept
        it). Only what needs no lookup: whether the person is a bot is checked after the ack."""
        live = self._asks.live(meta.ask)
        target = _chosen(values)
        if live is None or target is None:
            return {}  # settled meanwhile, or nobody chosen: told after the ack
        unfit = self._unfit(live, user, target)
        return {} if unfit is None else {REASSIGN_BLOCK_ID: unfit}

    async def _refusal(self, live: LiveAsk, user: str, target: str) -> str | None:
        """Why `user` may not hand the ask to `target`, as told after the ack; None: they
        may."""
        unfit = self._unfit(live, user, target)
        if unfit is None and not await self._users.is_person(target):
            unfit = "They are not a person who can answer."
        if unfit is None:
            return None
        return f"{unfit} It was not handed to <@{target}>, so nothing changed."

    def _unfit(self, live: LiveAsk, user: str, target: str) -> str | None:
        """Why `target` may not be handed the ask by `user`, in words a modal's plain-text
        error can carry (no mentions); None: nothing known here stops it."""
        record = live.record
        noun = noun_of(record)
        if target == record.holder:
            return f"They hold {noun} already."
        if target == user and record.holder is None:
            return f"To take {noun} yourself, press Claim."
        if self._may_not_approve(live, target):
            return f"The agent acts for them, and its policy does not let them approve {noun}."
        return None

    def _may_not_approve(self, live: LiveAsk, person: str) -> bool:
        """Whether `person` is the requester of a review whose policy keeps them from
        approving it (`requester_may_approve = false`)."""
        record = live.record
        policy = self._policies.of(record)
        return (
            person == record.requester
            and kind_of(record.questions) in REVIEWS
            and not policy.requester_may_approve
        )

    async def _offered(self, user: str, ask_id: str) -> LiveAsk | None:
        """The open ask if it offers claims and `user` may act on it now; else they are
        told why not (admission says who may, and who holds it)."""
        live = await self._admission.admit(user, ask_id)
        if live is None:
            return None
        if not self._admission.offers_claims(live):
            await self._tell(live, user, NOT_OFFERED)
            return None
        return live

    async def _save(
        self,
        live: LiveAsk,
        kind: EventKind,
        change: Callable[[AskRecord], AskRecord | None],
        user: str,
        *,
        detail: str = "",
    ) -> AskRecord | None:
        # Every part is shown again: its claim line names the holder now.
        return await self._asks.save_progress(
            live,
            kind,
            change,
            actor=user,
            detail=detail,
            show=tuple(range(len(live.layout.parts))),
        )

    async def _refuse_as_held(self, live: LiveAsk, user: str, *, free: str | None = None) -> None:
        """A save that found the hold changed (or the ask ended): say what stands now;
        `free`, what to say if nobody holds it."""
        record = await self._asks.record(live.record.id)
        if record is None or record.settled:
            await self._admission.too_late(user, live.record.id)
        elif record.holder is not None and record.holder != user:
            await self._tell(live, user, held_refusal(record.holder, noun_of(record)))
        elif record.holder is None and free is not None:
            await self._tell(live, user, free)
        else:
            await self._tell(live, user, "Someone changed this ask at the same time: try again.")

    async def _tell(self, live: LiveAsk, user: str, text: str) -> None:
        await self._messages.ephemeral(live.record, user, text)


def _chosen(values: StateValues) -> str | None:
    """The person picked in "Reassign…"."""
    picked = values.get(REASSIGN_BLOCK_ID, {})
    return next((state.selected_user for state in picked.values() if state.selected_user), None)
