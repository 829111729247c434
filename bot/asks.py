"""The life of an ask: stored, posted, waited on, settled once — whoever settles it.

Every way an ask can end (an answer, a closed form, an abort, a Slack failure) goes through
`settle()`, which lets only the first one through, saves it with its event, wakes the waiters
and then shows the outcome in Slack.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field

from slack_sdk.web.async_client import AsyncWebClient

from provider import (
    AskUserQuestionAnswer,
    AskUserQuestionRequest,
    ErrorCode,
    UserQuestionError,
)
from provider.errors import ABORTED_MESSAGE

from .clock import Clock, SystemClock
from .render import (
    AskLayout,
    MessageContent,
    Settlement,
    Unshowable,
    Verdict,
    ask_message,
    lay_out,
    settled_message,
)
from .render.plan_review import ReviewStatus, plan_review_message, settled_plan_review
from .responders import mentions
from .review import ReviewPolicies
from .slack_api import SlackCallFailed, slack_call
from .store import (
    AskError,
    AskEvent,
    AskRecord,
    AskState,
    AskStore,
    EventKind,
    ThreadRef,
)
from .tasks import Tasks
from .threads import NoChannel, Threads

log = logging.getLogger(__name__)

METADATA_EVENT = "slack_questions_ask"
# How far back (in pages of 200 messages since the ask was created) a lost post is looked for.
FIND_POSTED_PAGES = 10
# After a post failed in transit, when to look for it (seconds between looks).
LOOK_AGAIN_AFTER = (1.0, 3.0)
# Retries of a final message update that Slack refused (seconds after the first try).
RESHOW_AFTER = (5.0, 30.0, 120.0)
RESHOW_RECENT = 200

_EVENT_OF_VERDICT = {
    Verdict.ANSWERED: EventKind.ANSWERED,
    Verdict.CANCELLED: EventKind.CANCELLED,
    Verdict.FAILED: EventKind.FAILED,
}


@dataclass(eq=False)
class LiveAsk:
    """A pending ask in memory: its record, its layout, and an event set once it settles."""

    record: AskRecord
    layout: AskLayout
    settled: asyncio.Event = field(default_factory=asyncio.Event)
    deciding: bool = False
    # Held while parts are posted, so a settlement waits for every message it must update.
    posting: asyncio.Lock = field(default_factory=asyncio.Lock)
    # Taken back from the store after a restart: a part may be posted but not recorded.
    recovering: bool = False


@dataclass(frozen=True)
class _Deferred:
    """Posting waits: Slack could not tell us whether the ask was already posted."""

    why: SlackCallFailed


def is_plan_review(record: AskRecord) -> bool:
    """Whether the ask is a lone plan-review question (shown as a plan review)."""
    return len(record.questions) == 1 and record.questions[0].intent is not None


def approved(record: AskRecord) -> bool:
    """Whether a plan review ended approved."""
    intent = record.questions[0].intent
    if record.answer is None or intent is None:
        return False
    return record.answer.answers[0].selected == [intent.approve]


def new_ask_id() -> str:
    """A fresh, unguessable ask id (short: it travels in every button value)."""
    return secrets.token_hex(8)


def error_of(record: AskRecord) -> UserQuestionError:
    """The seam error a failed ask stands for."""
    assert record.error is not None
    return UserQuestionError(record.error.code, record.error.message)


class Asks:
    """Creates, tracks and settles asks; the one place their state changes."""

    def __init__(
        self,
        *,
        client: AsyncWebClient,
        store: AskStore,
        threads: Threads,
        clock: Clock | None = None,
        policies: ReviewPolicies | None = None,
        tasks: Tasks | None = None,
    ) -> None:
        self.client = client
        self.store = store
        self.threads = threads
        self.tasks = tasks or Tasks()
        self.clock: Clock = clock or SystemClock()
        self.policies = policies or ReviewPolicies()
        # Called once an ask is fully posted (deadlines start watching it here).
        self.on_posted: Callable[[LiveAsk], None] | None = None
        self._live: dict[str, LiveAsk] = {}

    # --- reading ---------------------------------------------------------------------------

    def live(self, ask_id: str) -> LiveAsk | None:
        """The pending ask with this id, if it is still open."""
        return self._live.get(ask_id)

    def open_asks(self) -> list[LiveAsk]:
        """Every pending ask, oldest first."""
        return sorted(self._live.values(), key=lambda live: live.record.created_at)

    # --- creating --------------------------------------------------------------------------

    async def open(
        self,
        request: AskUserQuestionRequest,
        *,
        agent_id: str | None = None,
        agent_name: str | None = None,
        idempotency_key: str | None = None,
        route: ThreadRef | None = None,
        ask_id: str | None = None,
    ) -> AskRecord:
        """Store the ask, then post it; `ASK_FAILED` if Slack cannot show it or refuses it."""
        record, _ = await self.create(
            request,
            agent_id=agent_id,
            agent_name=agent_name,
            idempotency_key=idempotency_key,
            route=route,
            ask_id=ask_id,
        )
        return await self.post(record.id)

    async def create(
        self,
        request: AskUserQuestionRequest,
        *,
        agent_id: str | None = None,
        agent_name: str | None = None,
        idempotency_key: str | None = None,
        route: ThreadRef | None = None,
        ask_id: str | None = None,
    ) -> tuple[AskRecord, bool]:
        """Store the ask without posting it (stored before shown). A request Slack cannot
        show is refused here, stored nowhere; a known idempotency key returns its ask.
        The flag says whether this call created the ask."""
        try:
            layout = lay_out(request)
        except Unshowable as error:
            raise UserQuestionError(
                ErrorCode.ASK_FAILED, f"Slack cannot show this ask: {error}", cause=error
            ) from error
        revises = await self._declined_plan(agent_id) if layout.plan_review else None
        record, created = await self.store.add(
            AskRecord(
                id=ask_id or new_ask_id(),
                questions=request.questions,
                created_at=self.clock.now(),
                agent_id=agent_id,
                agent_name=agent_name,
                idempotency_key=idempotency_key,
                channel=route.channel if route else None,
                thread_ts=route.thread_ts if route else None,
                revision=revises.revision + 1 if revises else 1,
                revises=revises.id if revises else None,
            )
        )
        if created:
            self._live[record.id] = LiveAsk(record, layout)
        else:
            self._take(record)
        return record, created

    async def _declined_plan(self, agent_id: str | None) -> AskRecord | None:
        """The agent session's latest plan review, if it ended without approval."""
        if agent_id is None:
            return None
        for record in await self.store.recent(limit=200):
            if record.agent_id != agent_id or not is_plan_review(record):
                continue
            return None if approved(record) or not record.settled else record
        return None

    async def post(self, ask_id: str) -> AskRecord:
        """Post every part of the ask not yet posted (none twice); `ASK_FAILED` on refusal."""
        live = self._live.get(ask_id)
        if live is None:
            record = await self.store.get(ask_id)
            if record is None:
                raise KeyError(ask_id)
            return record
        await self._post(live)
        return live.record

    async def recover(self) -> list[AskRecord]:
        """After a restart: take every pending ask back in hand, posting what never was,
        and show the decision of recent asks whose message never got to show it."""
        for record in await self.store.recent(limit=RESHOW_RECENT):
            if record.settled and not record.shown and record.message_ts:
                await self.show(LiveAsk(record, lay_out(record.request)))
        resumed = []
        for record in await self.store.pending():
            self._take(record)
            try:
                resumed.append(await self.post(record.id))
            except UserQuestionError:
                log.exception("ask %s could not be posted after the restart", record.id)
        return resumed

    def _take(self, record: AskRecord) -> None:
        if not record.settled and record.id not in self._live:
            self._live[record.id] = LiveAsk(record, lay_out(record.request), recovering=True)

    async def _post(self, live: LiveAsk) -> None:
        """Post every part not yet posted; on failure the ask fails with Slack's error."""
        async with live.posting:
            failure = await self._post_parts(live)
        if failure is None:
            if self.on_posted is not None and live.record.id in self._live:
                self.on_posted(live)
            return
        if isinstance(failure, _Deferred):
            log.warning("ask %s stays pending until Slack answers: %s", live.record.id, failure.why)
            self.tasks.spawn(self._post_later(live), name=f"post later {live.record.id}")
            return
        await self.settle(
            live.record.id,
            verdict=Verdict.FAILED,
            error=AskError(code=ErrorCode.ASK_FAILED, message=str(failure)),
            reason=str(failure),
        )
        raise UserQuestionError(ErrorCode.ASK_FAILED, str(failure), cause=failure) from failure

    async def _post_parts(self, live: LiveAsk) -> SlackCallFailed | NoChannel | _Deferred | None:
        try:
            record = live.record
            if record.channel is None:
                where = await self.threads.for_session(
                    record.agent_id, record.agent_name, ask_id=record.id
                )
                record = record.model_copy(
                    update={"channel": where.channel, "thread_ts": where.thread_ts}
                )
                live.record = record
            for part in range(len(record.message_ts), len(live.layout.parts)):
                try:
                    ts = await self._find_posted(live, part) if live.recovering else None
                except SlackCallFailed as unknown:
                    # We cannot tell whether it was posted: posting now could show it twice.
                    return _Deferred(unknown)
                if ts is None:
                    ts = await self._post_once(live, part)
                record = live.record.model_copy(
                    update={"message_ts": [*live.record.message_ts, ts]}
                )
                live.record = record
                await self.store.save(
                    record, self.event(record, EventKind.POSTED, detail=f"part {part} at {ts}")
                )
        except (SlackCallFailed, NoChannel) as error:
            return error
        return None

    async def _post_later(self, live: LiveAsk) -> None:
        start = self.clock.now()
        for delay in RESHOW_AFTER:
            await self.clock.sleep_until(start + delay)
            if live.record.id not in self._live:
                return
            try:
                await self._post(live)
            except UserQuestionError:
                return  # it failed for good, and says so
            if len(live.record.message_ts) == len(live.layout.parts):
                return

    async def _post_once(self, live: LiveAsk, part: int) -> str:
        """Post a part; a post that failed in transit may have reached Slack, so look first."""
        try:
            return await self._post_part(live, part)
        except SlackCallFailed as failed:
            if not failed.in_transit:
                raise
            # Slack may still be carrying the post out: look a few times before giving up.
            for pause in LOOK_AGAIN_AFTER:
                await asyncio.sleep(pause)
                found = await self._find_posted(live, part)
                if found is not None:
                    return found
            raise

    async def _find_posted(self, live: LiveAsk, part: int) -> str | None:
        """The ts of part `part` if Slack has it though we never recorded it (a crash, or a
        post that timed out), found by our message metadata among messages since the ask
        was created. `SlackCallFailed` when Slack cannot be asked: posting then would risk
        a second copy."""
        record = live.record
        if record.channel is None:
            return None
        cursor: str | None = None
        for _ in range(FIND_POSTED_PAGES):
            oldest = f"{record.created_at - 1:.6f}"
            async with slack_call("conversations.history"):
                if record.thread_ts is not None:
                    response = await self.client.conversations_replies(
                        channel=record.channel,
                        ts=record.thread_ts,
                        oldest=oldest,
                        include_all_metadata=True,
                        limit=200,
                        cursor=cursor,
                    )
                else:
                    response = await self.client.conversations_history(
                        channel=record.channel,
                        oldest=oldest,
                        include_all_metadata=True,
                        limit=200,
                        cursor=cursor,
                    )
            for message in response.get("messages") or []:
                meta = message.get("metadata") or {}
                payload = meta.get("event_payload") or {}
                if (
                    meta.get("event_type") == METADATA_EVENT
                    and payload.get("ask_id") == record.id
                    and payload.get("part") == part
                ):
                    return str(message["ts"])
            cursor = (response.get("response_metadata") or {}).get("next_cursor")
            if not cursor:
                return None
        return None

    async def content(self, live: LiveAsk, part: int) -> MessageContent:
        """A part's message while the ask is open."""
        record = live.record
        if live.layout.plan_review:
            status = await self.review_status(record)
            return plan_review_message(record.id, live.layout, record.agent_name, status)
        return ask_message(record.id, live.layout, part, record.agent_name)

    async def review_status(self, record: AskRecord) -> ReviewStatus:
        """A plan review's approvals, what it needs, and its previous revision."""
        policy = self.policies.for_channel(record.channel)
        previous = await self.store.get(record.revises) if record.revises else None
        return ReviewStatus(
            needed=policy.approvals,
            approvals=tuple((a.by, a.at) for a in record.approvals),
            reviewers=mentions(policy.reviewers),
            revision=record.revision,
            previous_plan=previous.questions[0].detail if previous else None,
            reminded=record.reminded_at is not None,
        )

    async def save_progress(
        self,
        live: LiveAsk,
        kind: EventKind,
        *,
        actor: str | None = None,
        detail: str = "",
        show: tuple[int, ...] = (),
    ) -> bool:
        """Save an open ask as it stands now (and re-render parts `show`) — unless it is being
        settled. Under the settlement's lock, and with the record read at save time, so a
        progress save never lands over a decision and never writes back a stale copy."""
        async with live.posting:
            if live.deciding or self._live.get(live.record.id) is not live:
                return False
            await self.store.save(
                live.record, self.event(live.record, kind, actor=actor, detail=detail)
            )
            for part in show:
                await self._update(live, part, await self.open_view(live, part))
            return True

    async def open_view(self, live: LiveAsk, part: int) -> MessageContent:
        """A part of an open ask as it should read now (a part already answered says so)."""
        if part in live.record.parts_done:
            return settled_message(live.layout, part, self.settlement_of(live.record, part))
        return await self.content(live, part)

    async def _post_part(self, live: LiveAsk, part: int) -> str:
        record = live.record
        assert record.channel is not None
        content = await self.content(live, part)
        async with slack_call("chat.postMessage"):
            response = await self.client.chat_postMessage(
                channel=record.channel,
                thread_ts=record.thread_ts,
                text=content.text,
                blocks=content.blocks_json(),
                # Lets a restarted bot find a message it posted but never recorded.
                metadata={
                    "event_type": METADATA_EVENT,
                    "event_payload": {"ask_id": record.id, "part": part},
                },
                unfurl_links=False,
                unfurl_media=False,
            )
        return str(response["ts"])

    # --- waiting ---------------------------------------------------------------------------

    async def wait(self, ask_id: str) -> AskRecord:
        """The ask once settled (at once if it already is). `KeyError` for an unknown id."""
        live = self._live.get(ask_id)
        if live is not None:
            await live.settled.wait()
            return live.record
        record = await self.store.get(ask_id)
        if record is None:
            raise KeyError(ask_id)
        return record

    # --- settling --------------------------------------------------------------------------

    def claim(self, ask_id: str) -> LiveAsk | None:
        """Take the right to settle `ask_id`; None if it is settled or being settled.

        Synchronous on purpose: between two awaits only one handler can claim an ask, so
        the first valid answer wins however many people click at once.
        """
        live = self._live.get(ask_id)
        if live is None or live.deciding:
            return None
        live.deciding = True
        return live

    async def settle(
        self,
        ask_id: str,
        *,
        verdict: Verdict,
        actor: str | None = None,
        answer: AskUserQuestionAnswer | None = None,
        error: AskError | None = None,
        claimed: LiveAsk | None = None,
        reason: str | None = None,
    ) -> bool:
        """End the ask (if nobody did first), save it, wake waiters, update Slack."""
        live = claimed or self.claim(ask_id)
        if live is None:
            return False
        async with live.posting:
            await self._settle(live, verdict, actor, answer, error, reason)
        return True

    async def _settle(
        self,
        live: LiveAsk,
        verdict: Verdict,
        actor: str | None,
        answer: AskUserQuestionAnswer | None,
        error: AskError | None,
        reason: str | None,
    ) -> None:
        record = live.record.model_copy(
            update={
                "state": AskState.ANSWERED if answer is not None else AskState.FAILED,
                "verdict": verdict,
                "answer": answer,
                "error": error,
                "decided_by": actor,
                "decided_at": self.clock.now(),
                "reason": reason,
            }
        )
        kind = _EVENT_OF_VERDICT.get(verdict, EventKind.ABORTED)
        try:
            await self.store.save(
                record, self.event(record, kind, actor=actor, detail=reason or "")
            )
        except BaseException:
            live.deciding = False  # nothing was decided: let the next answer try
            raise
        live.record = record
        del self._live[record.id]
        live.settled.set()
        if not await self.show(live):
            self.tasks.spawn(self._reshow(live), name=f"reshow {record.id}")

    async def withdraw(self, ask_id: str, reason: str | None = None) -> bool:
        """Abort on the agent's side (signal, cancellation, dispose): `ASK_ABORTED`."""
        message = f"{ABORTED_MESSAGE}: {reason}" if reason else ABORTED_MESSAGE
        return await self.settle(
            ask_id,
            verdict=Verdict.WITHDRAWN,
            error=AskError(code=ErrorCode.ASK_ABORTED, message=message),
            reason=reason,
        )

    async def show(self, live: LiveAsk) -> bool:
        """Replace the controls of every posted part with the settlement; once every part
        shows it, the record is marked `shown`. False if Slack refused an update."""
        record = live.record
        shown = True
        for part in range(len(record.message_ts)):
            shown &= await self.update_part(live, part, self.settlement_of(record, part))
        if shown and record.settled and not record.shown:
            live.record = record.model_copy(update={"shown": True})
            await self.store.save(
                live.record, self.event(live.record, EventKind.SHOWN, actor=record.decided_by)
            )
        return shown

    async def _reshow(self, live: LiveAsk) -> None:
        start = self.clock.now()
        for delay in RESHOW_AFTER:
            await self.clock.sleep_until(start + delay)
            if await self.show(live):
                return
        log.error(
            "ask %s: its message still shows controls; it is re-shown at restart", live.record.id
        )

    async def update_part(self, live: LiveAsk, part: int, settlement: Settlement) -> bool:
        """Show a part's settlement in place of its controls; False if Slack refused."""
        record = live.record
        if live.layout.plan_review:
            status = await self.review_status(record)
            content = settled_plan_review(
                record.id, live.layout, record.agent_name, status, settlement
            )
        else:
            content = settled_message(live.layout, part, settlement)
        return await self._update(live, part, content)

    async def _update(self, live: LiveAsk, part: int, content: MessageContent) -> bool:
        """chat.update one part's message; a failure is logged (False), the decision stands."""
        record = live.record
        if record.channel is None or part >= len(record.message_ts):
            return True
        try:
            async with slack_call("chat.update"):
                await self.client.chat_update(
                    channel=record.channel,
                    ts=record.message_ts[part],
                    text=content.text,
                    blocks=content.blocks_json(),
                )
        except SlackCallFailed:
            log.exception("could not update the message of ask %s part %s", record.id, part)
            return False
        return True

    def settlement_of(self, record: AskRecord, part: int) -> Settlement:
        """What a part's message shows for `record` as it stands."""
        done = record.parts_done.get(part)
        answers = {a.id: a for a in record.answer.answers} if record.answer else {}
        if not record.settled and done is not None:
            return Settlement(
                Verdict.PART_DONE,
                at=done.at,
                actor=done.by,
                answers={a.id: a for a in done.answers},
            )
        return Settlement(
            record.verdict or Verdict.FAILED,
            at=record.decided_at or self.clock.now(),
            actor=record.decided_by,
            answers=answers,
            reason=record.reason,
        )

    def event(
        self, record: AskRecord, kind: EventKind, *, actor: str | None = None, detail: str = ""
    ) -> AskEvent:
        """An event of `record`, stamped now."""
        return AskEvent(
            ask_id=record.id, at=self.clock.now(), kind=kind, actor=actor, detail=detail
        )

    async def note(self, ask_id: str, kind: EventKind, actor: str | None, detail: str) -> None:
        """Log an event that changes nothing (a refused click, a late answer)."""
        await self.store.log(
            AskEvent(ask_id=ask_id, at=self.clock.now(), kind=kind, actor=actor, detail=detail)
        )
