"""What people do to an ask in Slack: answer, open forms, reply, close.

Each handler admits who acted (`admission.py`), reads the answer with the pure parser in
`answers.py`, and settles through `Asks`, so the first valid answer wins and everyone else is
told why not. The controls only a plan review has are handled in `plan_reviews.py`.
"""

from __future__ import annotations

import logging

from bot import answers
from bot.asks.lifecycle import Asks
from bot.asks.live import LiveAsk
from bot.block_ids import AskRef, OptionRef, PartRef, QuestionRef, ViewMeta
from bot.clock import Clock
from bot.interactions.admission import Admission
from bot.interactions.plan_reviews import PlanReviews
from bot.payloads import StateValues
from bot.render import details_modal, form_modal, lay_out, other_modal
from bot.render.text import escaped_within
from bot.render.tool_approval import tool_approval_modal
from bot.slack.messages import AskMessages
from bot.store import AskRecord, EventKind, PartAnswer, Verdict
from provider import AskUserQuestionAnswer, AskUserQuestionAnswerItem

log = logging.getLogger(__name__)


class Answering:
    """Handlers for clicks, submissions, closed forms and thread replies."""

    def __init__(
        self,
        asks: Asks,
        admission: Admission,
        plan_reviews: PlanReviews,
        messages: AskMessages,
        clock: Clock,
        *,
        decide_before_ack: bool = True,
    ) -> None:
        self._asks = asks
        self._admission = admission
        self._plan_reviews = plan_reviews
        self._messages = messages
        self._clock = clock
        # Off when replicas share the store: there a copy in hand may be stale, and settling
        # reads the row again first, which the ack should not wait for.
        self._decide_before_ack = decide_before_ack

    # --- answering -------------------------------------------------------------------------

    async def pick(self, user: str, ref: OptionRef, *, lookups: bool = True) -> bool:
        """A one-click answer: option `ref.option` of the lone question. Whether this pick
        settled the ask (an approval it counts towards a review is not reported).

        `lookups=False` is its decide phase, before the ack, when nothing needs looking up:
        the ask is in hand, `user` is plainly allowed, the option is its own and not part of a
        review that counts approvals (a plan review; a tool approval whose policy asks more
        of an Allow than one reviewer's click). Its settlement, committed before the ack, is
        then what keeps the click (no inbox row), and the waiting agent is woken at once.
        False: nothing was decided, nobody was told, and the click is kept and handled with
        lookups after its ack."""
        if not lookups and not self._decide_before_ack:
            return False
        live = await self._admission.admit(user, ref.ask_id, lookups=lookups)
        if live is None:
            return False
        question = live.layout.questions[0].question
        try:
            item = answers.pick(question, ref.option)
        except ValueError:
            if lookups:
                log.warning("ignoring pick of unknown option %s of ask %s", ref.option, ref.ask_id)
            return False
        if question.intent and self._plan_reviews.counts_approvals(live):
            if not lookups:
                return False  # a review counts approvals and declines on its policy
            if item.selected == [question.intent.label]:
                await self._plan_reviews.approve_admitted(live, user)
                return False  # counted; whether it decided the review is not told here
        # Any decline ends a review at once, whatever approvals came before: fail closed.
        return await self._admission.answer(live, user, [item], lookups=lookups)

    async def submit_part(self, user: str, ref: PartRef, values: StateValues) -> None:
        """Submit pressed under a form part in the message."""
        live = await self._admission.admit(user, ref.ask_id, part=ref.part)
        if live is None:
            return
        result = answers.read_form(live.layout, ref.part, values)
        if result.errors:
            await self._messages.ephemeral(live.record, user, _errors_text(live, result.errors))
            return
        await self._complete_part(live, user, ref.part, result.answers)

    def check_form(self, meta: ViewMeta, values: StateValues) -> dict[str, str]:
        """Errors to show under the form's blocks before it may close (empty: accept it)."""
        live = self._asks.live(meta.ask)
        if live is None or meta.part is None or meta.part >= len(live.layout.parts):
            return {}  # settled meanwhile: accept, and tell them after the ack
        return answers.read_form(live.layout, meta.part, values).errors

    async def submit_form(self, user: str, meta: ViewMeta, values: StateValues) -> None:
        """A form modal submitted (already checked by `check_form`)."""
        live = await self._admission.admit(user, meta.ask, part=meta.part)
        if live is None or meta.part is None:
            return
        result = answers.read_form(live.layout, meta.part, values)
        if not result.errors:
            await self._complete_part(live, user, meta.part, result.answers)

    def check_other(self, meta: ViewMeta, values: StateValues) -> dict[str, str]:
        """Errors for a blank "Other" answer or change request (empty: accept it)."""
        live = self._asks.live(meta.ask)
        if live is None:
            return {}
        question = live.layout.questions[0].question
        if answers.typed(question, _typed_text(values, question.id)) is None:
            return {question.id: answers.MISSING_LONE_TEXT}
        return {}

    async def submit_other(self, user: str, meta: ViewMeta, values: StateValues) -> None:
        """A free-text answer: "Other…" on a one-click question, or a plan's requested
        changes (the answer is the text, with nothing selected)."""
        live = await self._admission.admit(user, meta.ask)
        if live is None:
            return
        question = live.layout.questions[0].question
        item = answers.typed(question, _typed_text(values, question.id))
        if item is not None:
            await self._admission.answer(live, user, [item])

    async def reply(self, channel: str, thread_ts: str, user: str, text: str) -> None:
        """A reply in a thread answers the newest open lone question there: its text, or the
        option it names. A reply that names none is told how to answer, not ignored."""
        live = self._asks.reply_target(channel, thread_ts)
        if live is None:
            return
        question = live.layout.questions[0].question
        said = answers.reply_text(text)
        item = answers.replied(question, said)
        if item is None:
            if said:
                await self._messages.ephemeral(live.record, user, answers.how_to_reply(question))
            return
        admitted = await self._admission.admit(user, live.record.id)
        if admitted is not None:
            await self._admission.answer(admitted, user, [item])

    async def close_form(self, user: str, meta: ViewMeta) -> None:
        """The person closed the form: the ask ends as closed (`ASK_ABORTED` to the agent)."""
        live = await self._asks.held(meta.ask)
        if live is None or not await self._admission.may_act(live, user):
            return
        await self._asks.settle(
            meta.ask, Verdict.CLOSED, actor=user, detail=f"{user} closed the form"
        )

    # --- opening modals --------------------------------------------------------------------

    async def open_form(
        self, user: str, ref: PartRef, trigger_id: str, values: StateValues | None = None
    ) -> None:
        """Open the modal holding part `ref.part`, holding what its message's form held
        (`values`: the message's `state.values`)."""
        live = await self._admission.admit(user, ref.ask_id, part=ref.part)
        if live is None:
            return
        record = live.record
        if record.channel is None:
            return
        view = form_modal(
            ref.ask_id,
            live.layout,
            ref.part,
            record.agent_name,
            record.channel,
            agent_id=record.agent_id,
            prefill=answers.prefill(live.layout, ref.part, values or {}),
        )
        await self._messages.open_modal(live.record, user, trigger_id, view, push=False)

    async def open_other(self, user: str, ref: AskRef, trigger_id: str) -> None:
        """Open the free-text "Other" modal of a one-click question."""
        live = await self._admission.admit(user, ref.ask_id)
        if live is None:
            return
        view = other_modal(ref.ask_id, 0, live.layout.questions[0].question)
        await self._messages.open_modal(live.record, user, trigger_id, view, push=False)

    async def open_details(
        self, user: str, ref: QuestionRef, trigger_id: str, *, push: bool
    ) -> None:
        """Show question `ref.question` in full; anyone may read it. A tool approval's is its
        whole input, with Allow there when the message could not hold it all."""
        record = await self._asks.record(ref.ask_id)
        if record is None or ref.question >= len(record.questions):
            return
        layout = lay_out(record.request)  # pure: the layout the ask was posted with
        if layout.tool_approval:
            status = await self._messages.review_status(record)
            view = tool_approval_modal(
                record.id,
                layout,
                record.agent_name,
                record.agent_id,
                status,
                settled=record.settled,
            )
        else:
            view = details_modal([record.questions[ref.question]])
        await self._messages.open_modal(record, user, trigger_id, view, push=push)

    # --- shared steps ---------------------------------------------------------------------

    async def _complete_part(
        self, live: LiveAsk, user: str, part: int, items: list[AskUserQuestionAnswerItem]
    ) -> None:
        if len(live.layout.parts) == 1:
            await self._admission.answer(live, user, items)
            return
        if part in live.record.parts_done or live.claimed:
            await self._admission.too_late(user, live.record.id)
            return
        answered = PartAnswer(by=user, at=self._clock.now(), answers=items)

        def add_part(record: AskRecord) -> AskRecord | None:
            if part in record.parts_done:
                return None  # someone answered it first (on another replica)
            return record.model_copy(update={"parts_done": {**record.parts_done, part: answered}})

        if len(live.record.parts_done) + 1 < len(live.layout.parts):
            saved = await self._asks.save_progress(
                live,
                EventKind.PART_ANSWERED,
                add_part,
                actor=user,
                detail=f"part {part}",
                show=(part,),
            )
            if saved is None:
                await self._admission.too_late_for_part(user, live, part)
                return
            if len(saved.parts_done) < len(live.layout.parts):
                return
        else:
            completed = add_part(live.record)
            if completed is None:
                await self._admission.too_late_for_part(user, live, part)
                return
            live.record = completed
        claimed = self._asks.claim(live.record.id)
        if claimed is None:
            return
        done = live.record.parts_done
        by_id = {item.id: item for p in done.values() for item in p.answers}
        answer = AskUserQuestionAnswer(answers=[by_id[q.id] for q in live.record.questions])
        await self._admission.settle_answer(claimed, user, answer)


def _typed_text(values: StateValues, block_id: str) -> str:
    return next((s.value for s in values.get(block_id, {}).values() if s.value is not None), "")


def _errors_text(live: LiveAsk, errors: dict[str, str]) -> str:
    by_id = {q.question.id: q.question.question for q in live.layout.questions}
    lines = [
        f"• *{escaped_within(by_id[qid], 200)}* — {message}" for qid, message in errors.items()
    ]
    return "Nothing was sent yet; please finish these first:\n" + "\n".join(lines)
