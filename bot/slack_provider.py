"""SlackQuestionProvider: the seam's provider that asks people in Slack threads."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence
from types import TracebackType

import aiohttp
from pydantic import BaseModel, ConfigDict, Field
from slack_bolt.async_app import AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from bot.asks.deadlines import Deadlines
from bot.asks.lifecycle import Asks, error_of, new_ask_id
from bot.asks.observers import AskMetrics, AskObserver, Observers, TransitionLog, WaitingLine
from bot.asks.posting import Posting
from bot.clock import Clock, SystemClock
from bot.interactions.admission import Admission
from bot.interactions.answering import Interactions
from bot.interactions.app import build_app
from bot.interactions.inbox import Inbox
from bot.interactions.plan_reviews import PlanReviews
from bot.metrics import Metrics
from bot.review import ReviewPolicies
from bot.slack.api import (
    CALL_TIMEOUT_SECONDS,
    SLACK_API_URL,
    SlackCallFailed,
    client_session,
    slack_call,
    web_client,
)
from bot.slack.messages import AskMessages
from bot.slack.pacing import ChannelPosts
from bot.slack.responders import Responders
from bot.slack.status_line import ThreadStatuses
from bot.slack.threads import Threads
from bot.slack.watch import SlackCalls
from bot.store import AskRecord, AskState, AskStore, MemoryStore, ThreadRef, Verdict
from bot.store.leases import Leases, new_owner
from bot.tasks import Tasks
from provider import (
    AskUserQuestionAnswer,
    AskUserQuestionRequest,
    UserQuestionService,
)
from provider.errors import aborted

log = logging.getLogger(__name__)


class SlackSettings(BaseModel):
    """What the provider needs to reach Slack and decide who answers.

    The one home of these settings and their defaults: `python -m bot`'s `Config` holds one.
    """

    model_config = ConfigDict(frozen=True)

    # Kept out of repr, so a logged or printed settings object does not leak them.
    bot_token: str = Field(repr=False)
    signing_secret: str = Field(repr=False)  # empty in Socket Mode, which is not signed
    channel: str | None = None
    responders: Sequence[str] = ()
    api_url: str = SLACK_API_URL
    review: ReviewPolicies = ReviewPolicies()
    call_timeout: float = CALL_TIMEOUT_SECONDS  # a Web API call that takes longer has failed


class StartupError(Exception):
    """The provider cannot start; the message says what to fix."""


class SlackQuestionProvider:
    """Posts each ask as Block Kit in a Slack thread and returns the person's answer.

    Build it with `await SlackQuestionProvider.start(settings)`; serve `provider.app`
    (HTTP at /slack/events, or Socket Mode); `register(service)`; `await close()` at the end.
    """

    def __init__(
        self,
        *,
        session: aiohttp.ClientSession,
        client: AsyncWebClient,
        store: AskStore,
        owns_store: bool,
        tasks: Tasks,
        asks: Asks,
        posting: Posting,
        threads: Threads,
        interactions: Interactions,
        app: AsyncApp,
        bot_user_id: str,
        deadlines: Deadlines,
        calls: SlackCalls,
        statuses: ThreadStatuses,
    ) -> None:
        self.session = session
        self.client = client
        self.store = store
        self._owns_store = owns_store
        self.tasks = tasks
        self.asks = asks
        self.posting = posting
        self._threads = threads
        self.interactions = interactions
        self.app = app
        self.bot_user_id = bot_user_id
        self.deadlines = deadlines
        self.calls = calls
        self.statuses = statuses
        # Asks made through `ask()` here, each with the future of its storing and posting.
        self._mine: dict[str, asyncio.Future[AskRecord]] = {}
        self._closed = False

    @classmethod
    async def start(
        cls,
        settings: SlackSettings,
        *,
        store: AskStore | None = None,
        clock: Clock | None = None,
        shared: bool = False,
        replica: str | None = None,
        metrics: Metrics | None = None,
    ) -> SlackQuestionProvider:
        """Check the token with auth.test, build the app, and take back pending asks.

        `shared`: other replicas use the same store (PostgreSQL), so copies in memory may
        be stale and are read again before an ask is settled. `replica`: a name that stays
        the same across restarts (host and port), so a restarted replica takes over at once
        the work its crashed predecessor held a lease on. Every Web API call is watched
        (`calls`: failures and retries logged, counted in `metrics`); every ask transition is
        logged, counted and shown under its thread."""
        session = client_session(settings.call_timeout)
        try:
            calls = SlackCalls(metrics)
            client = web_client(
                settings.bot_token, base_url=settings.api_url, session=session, calls=calls
            )
            try:
                async with slack_call("auth.test"):
                    auth = await client.auth_test()
            except SlackCallFailed as failed:
                if failed.in_transit:
                    raise StartupError(
                        f"cannot reach Slack's Web API at {settings.api_url} ({failed.error}); "
                        "check SLACK_API_URL and the network"
                    ) from failed
                raise StartupError(
                    f"Slack rejected the bot token at {settings.api_url} ({failed.error}); "
                    "check SLACK_BOT_TOKEN"
                ) from failed
            owns_store = store is None
            tasks = Tasks()
            clock = clock or SystemClock()
            # Slack drops a status after two minutes of its own (real) time, so the line is
            # renewed on real time too, not on the asks' clock (a test's ManualClock counts
            # its sleepers; a renewal timer there would be taken for a deadline's).
            statuses = ThreadStatuses(client, SystemClock())
            observers: list[AskObserver] = [TransitionLog(clock), WaitingLine(statuses)]
            if metrics is not None:
                observers.append(AskMetrics(metrics))
            store = store or MemoryStore()
            leases = Leases(store, new_owner(replica), clock=clock, shared=shared)
            posts = ChannelPosts(client)
            threads = Threads(store, settings.channel, posts=posts, clock=clock, leases=leases)
            messages = AskMessages(client, store, settings.review, clock, posts=posts)
            asks = Asks(
                store=store,
                messages=messages,
                observers=Observers(observers),
                clock=clock,
                tasks=tasks,
                shared=shared,
            )
            posting = Posting(
                asks,
                store=store,
                threads=threads,
                messages=messages,
                leases=leases,
                clock=clock,
                tasks=tasks,
                shared=shared,
            )
            deadlines = Deadlines(asks, leases, settings.review, clock, messages)
            asks.observers.add(deadlines)
            admission = Admission(
                asks, messages, Responders(client, settings.responders), settings.review
            )
            plan_reviews = PlanReviews(asks, admission, messages, settings.review, clock)
            interactions = Interactions(
                asks, admission, plan_reviews, messages, clock, decide_before_ack=not shared
            )
            inbox = Inbox(store, clock, tasks)
            app = build_app(
                client,
                signing_secret=settings.signing_secret,
                interactions=interactions,
                plan_reviews=plan_reviews,
                store=store,
                tasks=tasks,
                inbox=inbox,
            )
            provider = cls(
                session=session,
                client=client,
                store=store,
                owns_store=owns_store,
                tasks=tasks,
                asks=asks,
                posting=posting,
                threads=threads,
                interactions=interactions,
                app=app,
                bot_user_id=str(auth["user_id"]),
                deadlines=deadlines,
                calls=calls,
                statuses=statuses,
            )
            await posting.recover()
            # After the asks are back in hand: a click acked before a crash answers one.
            await inbox.replay()
            return provider
        except BaseException:
            await session.close()
            raise

    async def __aenter__(self) -> SlackQuestionProvider:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    def register(self, service: UserQuestionService) -> Callable[[], None]:
        """Become `service`'s provider; the returned dispose also withdraws our pending asks."""
        unregister = service.register_provider(self)

        def dispose() -> None:
            unregister()
            for opening in list(self._mine.values()):
                self.tasks.spawn(
                    self._withdraw_when_shown(opening, "the Slack provider was disposed"),
                    name="dispose",
                )

        return dispose

    async def route(self, agent_id: str, channel: str, thread_ts: str | None) -> None:
        """Post every later ask of agent `agent_id` in this channel/thread."""
        await self._threads.route(agent_id, ThreadRef(channel=channel, thread_ts=thread_ts))

    async def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        """Post the questions and wait for the answer; abort and cancellation withdraw them."""
        if self._closed:
            raise aborted(RuntimeError("the Slack provider is closed"))
        ask_id = new_ask_id()
        # Shielded: a cancellation mid-post must not leave a message nobody tracks.
        opening = asyncio.ensure_future(self._open(request, ask_id))
        self._mine[ask_id] = opening
        remove_callback: Callable[[], None] = lambda: None  # noqa: E731
        try:
            await asyncio.shield(opening)
            if request.signal is not None:

                def on_abort(reason: object) -> None:
                    self.tasks.spawn(
                        self.asks.settle(ask_id, Verdict.WITHDRAWN, reason=_reason(reason)),
                        name="abort",
                    )

                remove_callback = request.signal.add_callback(on_abort)
            settled = await self.asks.wait(ask_id)
        except asyncio.CancelledError:
            # Withdraw first (the message must tell the truth), then let cancellation through.
            withdrawal = self.tasks.spawn(
                self._withdraw_when_shown(opening, "the agent's task was cancelled"), name="cancel"
            )
            if withdrawal is not None:
                # Cancelled again? The tracked withdrawal still finishes on its own.
                with contextlib.suppress(asyncio.CancelledError):
                    await asyncio.shield(withdrawal)
            raise
        finally:
            remove_callback()
            self._mine.pop(ask_id, None)
        if settled.state is AskState.ANSWERED and settled.answer is not None:
            return settled.answer
        raise error_of(settled)

    async def _open(self, request: AskUserQuestionRequest, ask_id: str) -> AskRecord:
        """Store the ask, then post it; `ASK_FAILED` if Slack cannot show it or refuses it."""
        agent = request.agent
        record, _ = await self.asks.create(
            request,
            ask_id=ask_id,
            agent_id=agent.id if agent else None,
            agent_name=agent.name if agent else None,
        )
        return await self.posting.post(record.id)

    async def _withdraw_when_shown(self, opening: asyncio.Future[AskRecord], reason: str) -> None:
        try:
            record = await opening
        except Exception:
            return  # it failed to post: there is nothing to withdraw
        await self.asks.settle(record.id, Verdict.WITHDRAWN, reason=reason)

    async def idle(self) -> None:
        """Wait until all post-ack work (message updates, replies, status lines) has finished."""
        await self.tasks.idle()
        await self.statuses.sent()

    async def close(self) -> None:
        """Withdraw our in-process asks, finish background work, close the HTTP session."""
        self._closed = True
        for opening in list(self._mine.values()):
            await self._withdraw_when_shown(opening, "the Slack provider shut down")
        await self.tasks.drain()
        # After the drain: a post that finished during it may have started a timer.
        await self.deadlines.close()
        await self.statuses.close()
        if self._owns_store:
            await self.store.close()
        await self.session.close()


def _reason(reason: object) -> str:
    return str(reason) if reason is not None else "the agent aborted the ask"
