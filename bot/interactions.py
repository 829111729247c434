"""What people do to an ask in Slack, handled after the ack: answer, open forms, reply, refuse.

Each handler checks who acted, reads the answer with the pure parser in `answers.py`, and
settles through `Asks`, so the first valid answer wins and everyone else is told why not.
"""

from __future__ import annotations

import logging

from provider import (
    AnswerContractError,
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    check_answer,
)

from . import answers
from .actions import AskRef, OptionRef, PageRef, PartRef, QuestionRef, ViewMeta
from .asks import Asks, LiveAsk
from .payloads import StateValues
from .render import details_modal, form_modal, other_modal
from .render.plan_review import changes_modal, diff_modal, plan_modal
from .render.text import escaped_within
from .responders import Responders
from .slack_api import SlackCallFailed, slack_call
from .store import Approval, AskRecord, EventKind, PartAnswer, Verdict

log = logging.getLogger(__name__)


class Interactions:
    """Handlers for clicks, submissions, closed forms and thread replies."""

    def __init__(self, asks: Asks, responders: Responders) -> None:
        self.asks = asks
        self.responders = responders
        self._reviewers: dict[tuple[str, ...], Responders] = {}

    def who_may_answer(self, live: LiveAsk) -> Responders:
        """A plan review's reviewers when its policy names them; else the responders."""
        if not live.layout.plan_review:
            return self.responders
        reviewers = self.asks.policies.for_channel(live.record.channel).reviewers
        if not reviewers:
            return self.responders
        if reviewers not in self._reviewers:
            self._reviewers[reviewers] = Responders(self.responders.client, reviewers)
        return self._reviewers[reviewers]

    # --- answering -------------------------------------------------------------------------

    async def pick(self, user: str, ref: OptionRef) -> None:
        """A one-click answer: option `ref.option` of the lone question."""
        live = await self._admit(user, ref.ask_id)
        if live is None:
            return
        question = live.layout.questions[0].question
        try:
            item = answers.pick(question, ref.option)
        except ValueError:
            log.warning("ignoring pick of unknown option %s of ask %s", ref.option, ref.ask_id)
            return
        if (
            live.layout.plan_review
            and question.intent
            and item.selected == [question.intent.approve]
        ):
            await self._approve(live, user)
            return
        # Any decline ends a review at once, whatever approvals came before: fail closed.
        await self._answer(live, user, [item])

    # --- plan reviews ----------------------------------------------------------------------

    async def approve(self, user: str, ref: AskRef) -> None:
        """One reviewer approves; the plan is approved once the policy's count is reached."""
        live = await self._admit(user, ref.ask_id)
        if live is not None and live.layout.plan_review:
            await self._approve(live, user)

    async def _approve(self, live: LiveAsk, user: str) -> None:
        record = live.record
        question = live.layout.questions[0].question
        assert question.intent is not None
        if any(a.by == user for a in record.approvals):
            await self._ephemeral(
                record, user, "You already approved this plan; it needs another reviewer."
            )
            return
        if live.deciding:
            await self._too_late(user, record.id)
            return
        # Synchronous from the check to here: two approvals at once are both counted.
        approvals = [*record.approvals, Approval(by=user, at=self.asks.clock.now())]
        live.record = record.model_copy(update={"approvals": approvals})
        needed = self.asks.policies.for_channel(record.channel).approvals
        if len(approvals) < needed:
            await self.asks.save_progress(
                live,
                EventKind.APPROVED,
                actor=user,
                detail=f"{len(approvals)}/{needed}",
                show=tuple(range(len(live.record.message_ts))),
            )
            return
        item = AskUserQuestionAnswerItem(id=question.id, selected=[question.intent.approve])
        await self._answer(live, user, [item])

    async def discuss(self, user: str, ref: AskRef) -> None:
        """The reviewer would rather talk: the agent gets `ASK_CANCELLED`."""
        live = await self._admit(user, ref.ask_id)
        if live is None:
            return
        await self.asks.settle(
            ref.ask_id,
            Verdict.CANCELLED,
            actor=user,
            detail=f"{user} chose to discuss the plan in the Slack thread instead",
        )

    async def open_changes(self, user: str, ref: AskRef, trigger_id: str) -> None:
        """Open the "Request changes" modal."""
        live = await self._admit(user, ref.ask_id)
        if live is None:
            return
        view = changes_modal(ref.ask_id, live.layout.questions[0].question)
        await self._open(live.record, user, trigger_id, view.to_dict(), push=False)

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
        record = await self._record(ref.ask_id)
        if record is None or not record.questions[0].detail:
            return
        view = plan_modal(record.id, record.questions[0].detail, ref.page)
        if view_id is None:
            await self._open(record, user, trigger_id, view.to_dict(), push=False)
            return
        try:
            async with slack_call("views.update"):
                await self.asks.client.views_update(
                    view_id=view_id, hash=view_hash, view=view.to_dict()
                )
        except SlackCallFailed as failed:
            log.warning("ask %s: %s", record.id, failed)

    async def open_diff(self, user: str, ref: AskRef, trigger_id: str) -> None:
        """Show what changed since the declined revision."""
        record = await self._record(ref.ask_id)
        if record is None or record.revises is None:
            return
        status = await self.asks.messages.review_status(record)
        diff = status.diff(record.questions[0].detail or "")
        if diff is not None:
            view = diff_modal(diff, record.revision)
            await self._open(record, user, trigger_id, view.to_dict(), push=False)

    async def _record(self, ask_id: str) -> AskRecord | None:
        live = self.asks.live(ask_id)
        return live.record if live else await self.asks.store.get(ask_id)

    async def submit_part(self, user: str, ref: PartRef, values: StateValues) -> None:
        """Submit pressed under a form part in the message."""
        live = await self._admit(user, ref.ask_id, part=ref.part)
        if live is None:
            return
        result = answers.read_form(live.layout, ref.part, values)
        if result.errors:
            await self._ephemeral(live.record, user, _errors_text(live, result.errors))
            return
        await self._complete_part(live, user, ref.part, result.answers)

    def check_form(self, meta: ViewMeta, values: StateValues) -> dict[str, str]:
        """Errors to show under the form's blocks before it may close (empty: accept it)."""
        live = self.asks.live(meta.ask)
        if live is None or meta.part is None or meta.part >= len(live.layout.parts):
            return {}  # settled meanwhile: accept, and tell them after the ack
        return answers.read_form(live.layout, meta.part, values).errors

    async def submit_form(self, user: str, meta: ViewMeta, values: StateValues) -> None:
        """A form modal submitted (already checked by `check_form`)."""
        live = await self._admit(user, meta.ask, part=meta.part)
        if live is None or meta.part is None:
            return
        result = answers.read_form(live.layout, meta.part, values)
        if not result.errors:
            await self._complete_part(live, user, meta.part, result.answers)

    def check_other(self, meta: ViewMeta, values: StateValues) -> dict[str, str]:
        """Errors for a blank "Other" answer or change request (empty: accept it)."""
        live = self.asks.live(meta.ask)
        if live is None:
            return {}
        question = live.layout.questions[0].question
        if answers.typed(question, _typed_text(values, question.id)) is None:
            return {question.id: answers.MISSING_LONE_TEXT}
        return {}

    async def submit_other(self, user: str, meta: ViewMeta, values: StateValues) -> None:
        """A free-text answer: "Other…" on a one-click question, or a plan's requested
        changes (the answer is the text, with nothing selected)."""
        live = await self._admit(user, meta.ask)
        if live is None:
            return
        question = live.layout.questions[0].question
        item = answers.typed(question, _typed_text(values, question.id))
        if item is not None:
            await self._answer(live, user, [item])

    async def reply(self, channel: str, thread_ts: str, user: str, text: str) -> None:
        """A reply in a thread answers the newest open lone text question there."""
        candidates = [
            live
            for live in self.asks.open_asks()
            if live.record.channel == channel
            and thread_ts in (live.record.thread_ts, *live.record.message_ts[:1])
            and len(live.layout.questions) == 1
            and not live.layout.questions[0].has_options
        ]
        if not candidates:
            return
        live = candidates[-1]
        item = answers.typed(live.layout.questions[0].question, answers.reply_text(text))
        if item is None:
            return
        admitted = await self._admit(user, live.record.id)
        if admitted is not None:
            await self._answer(admitted, user, [item])

    async def form_closed(self, user: str, meta: ViewMeta) -> None:
        """The person closed the form: the agent is told the ask was dismissed."""
        live = self.asks.live(meta.ask)
        if live is None or not await self.who_may_answer(live).allows(user):
            return
        await self.asks.settle(
            meta.ask, Verdict.CLOSED, actor=user, detail=f"{user} closed the form"
        )

    # --- opening modals --------------------------------------------------------------------

    async def open_form(self, user: str, ref: PartRef, trigger_id: str) -> None:
        """Open the modal holding part `ref.part`."""
        live = await self._admit(user, ref.ask_id, part=ref.part)
        if live is None or live.record.channel is None:
            return
        view = form_modal(
            ref.ask_id, live.layout, ref.part, live.record.agent_name, live.record.channel
        )
        await self._open(live.record, user, trigger_id, view.to_dict(), push=False)

    async def open_other(self, user: str, ref: AskRef, trigger_id: str) -> None:
        """Open the free-text "Other" modal of a one-click question."""
        live = await self._admit(user, ref.ask_id)
        if live is None:
            return
        view = other_modal(ref.ask_id, 0, live.layout.questions[0].question)
        await self._open(live.record, user, trigger_id, view.to_dict(), push=False)

    async def open_details(
        self, user: str, ref: QuestionRef, trigger_id: str, *, push: bool
    ) -> None:
        """Show question `ref.question` in full; anyone may read it."""
        live = self.asks.live(ref.ask_id)
        record = live.record if live else await self.asks.store.get(ref.ask_id)
        if record is None or ref.question >= len(record.questions):
            return
        view = details_modal([record.questions[ref.question]])
        await self._open(record, user, trigger_id, view.to_dict(), push=push)

    # --- shared steps ----------------------------------------------------------------------

    async def _admit(self, user: str, ask_id: str, *, part: int | None = None) -> LiveAsk | None:
        """The open ask if `user` may act on it now; otherwise tell them why not."""
        live = self.asks.live(ask_id)
        if live is None:
            await self._too_late(user, ask_id)
            return None
        allowed = self.who_may_answer(live)
        if not await allowed.allows(user):
            await self.asks.note(ask_id, EventKind.REFUSED, user, "not an allowed responder")
            await self._ephemeral(
                live.record,
                user,
                f"Only {allowed.describe()} may answer this question, so nothing changed.",
            )
            return None
        done = live.record.parts_done.get(part) if part is not None else None
        if done is not None:
            await self._ephemeral(
                live.record, user, f"This part was already answered by <@{done.by}>."
            )
            return None
        return live

    async def _answer(
        self, live: LiveAsk, user: str, items: list[AskUserQuestionAnswerItem]
    ) -> None:
        claimed = self.asks.claim(live.record.id)
        if claimed is None:
            await self._too_late(user, live.record.id)
            return
        answer = AskUserQuestionAnswer(answers=items)
        await self._settle_answer(claimed, user, answer)

    async def _complete_part(
        self, live: LiveAsk, user: str, part: int, items: list[AskUserQuestionAnswerItem]
    ) -> None:
        if len(live.layout.parts) == 1:
            await self._answer(live, user, items)
            return
        if part in live.record.parts_done or live.deciding:
            await self._too_late(user, live.record.id)
            return
        done = {
            **live.record.parts_done,
            part: PartAnswer(by=user, at=self.asks.clock.now(), answers=items),
        }
        live.record = live.record.model_copy(update={"parts_done": done})
        if len(done) < len(live.layout.parts):
            await self.asks.save_progress(
                live, EventKind.PART_ANSWERED, actor=user, detail=f"part {part}", show=(part,)
            )
            return
        claimed = self.asks.claim(live.record.id)
        if claimed is None:
            return
        by_id = {item.id: item for p in done.values() for item in p.answers}
        answer = AskUserQuestionAnswer(answers=[by_id[q.id] for q in live.record.questions])
        await self._settle_answer(claimed, user, answer)

    async def _settle_answer(self, live: LiveAsk, user: str, answer: AskUserQuestionAnswer) -> None:
        try:
            check_answer(live.record.request, answer)
        except AnswerContractError as broken:
            # Our own parser produced it, so this is a bug: fail loudly rather than mislead.
            log.error("ask %s: answer breaks the contract: %s", live.record.id, broken)
            await self.asks.settle(
                live.record.id,
                Verdict.FAILED,
                claimed=live,
                actor=user,
                reason="the answer could not be read",
                detail=f"invalid answer: {broken}",
            )
            return
        await self.asks.settle(
            live.record.id, Verdict.ANSWERED, claimed=live, actor=user, answer=answer
        )

    async def _too_late(self, user: str, ask_id: str) -> None:
        record = await self.asks.store.get(ask_id)
        if record is None:
            return
        await self.asks.note(ask_id, EventKind.REFUSED, user, "already settled")
        await self._ephemeral(record, user, _settled_text(record))

    async def _open(
        self, record: AskRecord, user: str, trigger_id: str, view: dict[str, object], *, push: bool
    ) -> None:
        method = "views.push" if push else "views.open"
        try:
            async with slack_call(method):
                if push:
                    await self.asks.client.views_push(trigger_id=trigger_id, view=view)
                else:
                    await self.asks.client.views_open(trigger_id=trigger_id, view=view)
        except SlackCallFailed as failed:
            log.warning("ask %s: %s", record.id, failed)
            await self._ephemeral(
                record, user, f"Slack could not open the form ({failed.error}); please try again."
            )

    async def _ephemeral(self, record: AskRecord, user: str, text: str) -> None:
        if record.channel is None:
            return
        thread = record.thread_ts or (record.message_ts[0] if record.message_ts else None)
        try:
            async with slack_call("chat.postEphemeral"):
                await self.asks.client.chat_postEphemeral(
                    channel=record.channel, user=user, text=text, thread_ts=thread
                )
        except SlackCallFailed:
            log.exception("could not tell %s: %s", user, text)


def _typed_text(values: StateValues, block_id: str) -> str:
    return next((s.value for s in values.get(block_id, {}).values() if s.value is not None), "")


def _settled_text(record: AskRecord) -> str:
    """The ephemeral "too late" note: this surface's wording of each ending."""
    by = f"<@{record.decided_by}>" if record.decided_by else None
    match record.ended_as:
        case Verdict.ANSWERED:
            return f"This question was already answered by {by or 'someone else'}."
        case Verdict.CLOSED:
            return f"This question was dismissed when {by or 'someone'} closed its form."
        case Verdict.CANCELLED:
            return f"{by or 'Someone'} chose to discuss this question instead."
        case Verdict.EXPIRED:
            return "This question expired before anyone answered."
        case Verdict.FAILED:
            return "This question could not be collected."
        case Verdict.WITHDRAWN | None:
            return "The agent withdrew this question; no answer is needed."


def _errors_text(live: LiveAsk, errors: dict[str, str]) -> str:
    by_id = {q.question.id: q.question.question for q in live.layout.questions}
    lines = [
        f"• *{escaped_within(by_id[qid], 200)}* — {message}" for qid, message in errors.items()
    ]
    return "Nothing was sent yet; please finish these first:\n" + "\n".join(lines)
