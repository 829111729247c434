"""The intake: every Slack interaction we act on, from Bolt to its handler, live or replayed.

A request is parsed once into a command (`commands.py`), goes through at most one phase
before its ack, and is then handed to its one handler (`dispatch`), in a tracked task:

- A pick is *decided* on the spot when nothing needs looking up: its settlement, one store
  write committed before the ack, keeps it, and the waiting agent is woken at once.
- A submitted form or "Other" is *checked*: missing answers go back in the ack itself.
  An "Always allow" rule is checked too (one read of the stored rules, for their names):
  what is wrong goes back inline, a rule reworded goes back as the modal updated.
- Whatever else can change an ask is *kept*: stored in the inbox (`AskStore.inbox_add`)
  before its ack and forgotten once handled. Slack hears our ack before any work runs, so a
  crash right after the ack would otherwise drop the click. On start, what is left is parsed
  and dispatched again, oldest first (`replay`): the same parser and the same handlers as
  live, which is safe because the first answer wins and every later one is refused as too
  late. Opening a modal is not kept: its trigger_id lives three seconds, so a replay could
  only fail.

Nothing after an ack may raise (an exception right after `ack()` erases it in Bolt), so the
handler runs in a tracked task and `parse` never raises. The ack of a kept interaction waits
for one INSERT and nothing else (bench/inbox_latency.py measures it).
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, Protocol, assert_never
from urllib.parse import parse_qsl

from bot.clock import Clock
from bot.interactions.always_allow import AlwaysAllow
from bot.interactions.answering import Answering
from bot.interactions.claims import Claims
from bot.interactions.commands import (
    AllowSession,
    Approve,
    Claim,
    CloseForm,
    Command,
    Discuss,
    GiveFeedback,
    OpenAlways,
    OpenChanges,
    OpenDetails,
    OpenDiff,
    OpenEdit,
    OpenForm,
    OpenNote,
    OpenOther,
    OpenPlan,
    OpenReassign,
    Pick,
    Release,
    Reply,
    Revoke,
    RevokeRule,
    StopSession,
    SubmitAlways,
    SubmitEdit,
    SubmitForm,
    SubmitNote,
    SubmitOther,
    SubmitPart,
    SubmitReassign,
    parse,
)
from bot.interactions.edits import Edits
from bot.interactions.feedback import FeedbackDesk
from bot.interactions.grant_list import GrantList
from bot.interactions.origins import Origins
from bot.interactions.plan_reviews import PlanReviews
from bot.interactions.session_grants import SessionGrants
from bot.interactions.session_stops import SessionStops
from bot.store import AskStore, InboxItem, InboxKind
from bot.tasks import Tasks

if TYPE_CHECKING:
    from slack_sdk.models.views import View

log = logging.getLogger(__name__)

Body = dict[str, Any]


class Ack(Protocol):
    """Bolt's `ack`, as far as the intake uses it."""

    def __call__(
        self,
        *,
        response_action: str | None = None,
        errors: dict[str, str] | None = None,
        view: View | None = None,
    ) -> Awaitable[object]: ...


class Intake:
    """Runs each interaction's phase before its ack, keeps it, acks, and dispatches it."""

    def __init__(
        self,
        answering: Answering,
        plan_reviews: PlanReviews,
        store: AskStore,
        clock: Clock,
        tasks: Tasks,
        origins: Origins,
        *,
        edits: Edits,
        session_grants: SessionGrants,
        grant_list: GrantList,
        claims: Claims,
        feedback: FeedbackDesk,
        always: AlwaysAllow,
        stops: SessionStops | None = None,
    ) -> None:
        self._answering = answering
        self._grant_list = grant_list
        self._claims = claims
        self._feedback = feedback
        self._stops = stops
        self._edits = edits
        self._session_grants = session_grants
        self._always = always
        self._origins = origins
        self._plan_reviews = plan_reviews
        self._store = store
        self._clock = clock
        self._tasks = tasks

    async def accept(self, kind: InboxKind, body: Body, raw_body: str, ack: Ack) -> None:
        """Take one interaction of `kind` from Bolt: its phase before the ack, then keep it
        if it can change an ask, ack, and dispatch it after the ack. `raw_body` is the
        request body as signed (empty in Socket Mode, where the parsed body is kept). One
        for another workspace or app is acked and nothing else (`origins.py`)."""
        if self._origins.refused(kind, body):
            await ack()  # so Slack does not send it again; nothing is kept or changed
            return
        command = parse(kind, body)
        if command is None:
            await ack()  # nothing of ours to act on (parse logged what it could not read)
            return
        if isinstance(command, Pick):
            if await self._decided(command):
                await ack()
                return
        elif isinstance(
            command, SubmitForm | SubmitOther | SubmitEdit | SubmitReassign | SubmitNote
        ):
            errors = self._errors(command)
            if errors:
                await ack(response_action="errors", errors=errors)
                return
        elif isinstance(command, SubmitAlways):
            reply = await self._always.check(command.meta, command.values)
            if reply.errors:
                await ack(response_action="errors", errors=reply.errors)
                return
            if reply.view is not None:
                await ack(response_action="update", view=reply.view)
                return
        item = await self._keep(kind, body, raw_body) if command.kept else None
        await ack()
        self._tasks.spawn(self._handle(command, item), name=f"intake {kind}")

    async def dispatch(self, command: Command) -> None:
        """Run `command`'s one handler (after its ack, live or replayed)."""
        answering, plans = self._answering, self._plan_reviews
        match command:
            case Pick(user, ref):
                await answering.pick(user, ref)
            case SubmitPart(user, ref, values):
                await answering.submit_part(user, ref, values)
            case SubmitForm(user, meta, values):
                await answering.submit_form(user, meta, values)
            case SubmitOther(user, meta, values):
                await answering.submit_other(user, meta, values)
            case CloseForm(user, meta):
                await answering.close_form(user, meta)
            case Reply(user, channel, thread_ts, text):
                await answering.reply(channel, thread_ts, user, text)
            case Approve(user, ref):
                await plans.approve(user, ref)
            case Discuss(user, ref):
                await plans.discuss(user, ref)
            case OpenForm(user, ref, trigger_id, values):
                await answering.open_form(user, ref, trigger_id, values)
            case OpenOther(user, ref, trigger_id):
                await answering.open_other(user, ref, trigger_id)
            case OpenDetails(user, ref, trigger_id, push):
                await answering.open_details(user, ref, trigger_id, push=push)
            case OpenChanges(user, ref, trigger_id):
                await plans.open_changes(user, ref, trigger_id)
            case OpenPlan(user, ref, trigger_id, view_id, view_hash):
                await plans.open_plan(user, ref, trigger_id, view_id=view_id, view_hash=view_hash)
            case OpenDiff(user, ref, trigger_id):
                await plans.open_diff(user, ref, trigger_id)
            case OpenEdit(user, ref, trigger_id, push):
                await self._edits.open(user, ref, trigger_id, push=push)
            case SubmitEdit(user, meta, values):
                await self._edits.submit(user, meta, values)
            case AllowSession(user, ref):
                await self._session_grants.allow(user, ref)
            case Revoke(user, grant_id, response_url):
                await self._grant_list.revoke(user, grant_id, response_url)
            case RevokeRule(user, name, response_url):
                await self._grant_list.revoke_rule(user, name, response_url)
            case Claim() | Release() | OpenReassign() | SubmitReassign():
                await self._claimed(command)
            case GiveFeedback(user, ask_id, verdict, home):
                await self._feedback.give(user, ask_id, verdict, home=home)
            case OpenNote(user, ask_id, trigger_id):
                await self._feedback.open_note(user, ask_id, trigger_id)
            case SubmitNote(user, meta, values):
                await self._feedback.submit_note(user, meta, values)
            case OpenAlways(user, ref, trigger_id, push):
                await self._always.open(user, ref, trigger_id, push=push)
            case SubmitAlways(user, meta, values):
                await self._always.submit(user, meta, values)
            case StopSession(user, channel, thread_ts):
                if self._stops is not None:  # an app not declared as an agent has no Stop
                    await self._stops.stop(user, channel, thread_ts)
            case _:
                assert_never(command)

    async def _claimed(self, command: Claim | Release | OpenReassign | SubmitReassign) -> None:
        claims = self._claims
        match command:
            case Claim(user, ref):
                await claims.claim(user, ref)
            case Release(user, ref):
                await claims.release(user, ref)
            case OpenReassign(user, ref, trigger_id):
                await claims.open_reassign(user, ref, trigger_id)
            case SubmitReassign(user, meta, values):
                await claims.reassign(user, meta, values)

    async def replay(self) -> int:
        """Dispatch every interaction kept before a restart and never handled, in order of
        arrival, in one tracked task. How many there were."""
        items = await self._store.inbox_pending()
        if items:
            log.info("replaying %d interaction(s) acked before the restart", len(items))
            self._tasks.spawn(self._replay(items), name="inbox replay")
        return len(items)

    # --- the phases before the ack -------------------------------------------------------

    async def _decided(self, pick: Pick) -> bool:
        """Whether `pick` was decided on the spot (saved, its agent woken)."""
        try:
            return await self._answering.pick(pick.user, pick.ref, lookups=False)
        except Exception:
            # Nothing was decided (a settlement that fails is undone): keep it and try again.
            log.exception("could not decide a pick of ask %s on the spot", pick.ref.ask_id)
            return False

    def _errors(
        self, submitted: SubmitForm | SubmitOther | SubmitEdit | SubmitReassign | SubmitNote
    ) -> dict[str, str]:
        """What the modal must show before it may close (empty: accept it)."""
        if isinstance(submitted, SubmitReassign):
            return self._claims.check(submitted.user, submitted.meta, submitted.values)
        if isinstance(submitted, SubmitNote):
            return self._feedback.check_note(submitted.values)
        if isinstance(submitted, SubmitEdit):
            return self._edits.check(submitted.meta, submitted.values)
        if isinstance(submitted, SubmitForm):
            return self._answering.check_form(submitted.meta, submitted.values)
        return self._answering.check_other(submitted.meta, submitted.values)

    async def _keep(self, kind: InboxKind, body: Body, raw_body: str) -> InboxItem | None:
        """Store the interaction in the inbox; None if the store refused it (logged): the
        interaction is still acked and handled, only not durably, since refusing the
        person's click would lose it for certain."""
        item = InboxItem(
            id=uuid.uuid4().hex,
            received_at=self._clock.now(),
            kind=kind,
            body=raw_body or json.dumps(body),
        )
        try:
            await self._store.inbox_add(item)
        except Exception:
            log.exception("could not keep a %s in the inbox; handling it anyway", kind)
            return None
        return item

    # --- after the ack -------------------------------------------------------------------

    async def _handle(self, command: Command, item: InboxItem | None) -> None:
        try:
            await self.dispatch(command)
        except Exception:
            # Kept, it would fail again on every start; the log has what to fix.
            log.exception("handling a %s failed; it is dropped", type(command).__name__)
        # A cancelled handler (shutdown) skips this: the item is replayed on the next start.
        if item is not None:
            await self._forget(item)

    async def _replay(self, items: list[InboxItem]) -> None:
        for item in items:
            body = body_of(item.body)
            if body is None:
                log.error("dropping inbox item %s: its body cannot be read", item.id)
            # Checked again: the bot's ids may have changed since (another token, another app).
            ours = body is not None and not self._origins.refused(item.kind, body)
            command = parse(item.kind, body) if body is not None and ours else None
            if command is None:
                await self._forget(item)
                continue
            await self._handle(command, item)

    async def _forget(self, item: InboxItem) -> None:
        try:
            await self._store.inbox_done(item.id)
        except Exception:
            # Replayed on the next start: harmless, since a second answer is refused.
            log.exception("could not mark inbox item %s handled", item.id)


def body_of(raw_body: str) -> Body | None:
    """The payload of a kept body: JSON (events, Socket Mode) or a form with `payload=`
    (interactions), as Slack sends each. None if it is neither."""
    try:
        if raw_body.startswith("{"):
            parsed = json.loads(raw_body)
        else:
            payload = dict(parse_qsl(raw_body, keep_blank_values=True)).get("payload")
            parsed = json.loads(payload) if payload is not None else None
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None
