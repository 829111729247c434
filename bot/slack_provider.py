"""SlackQuestionProvider: the seam's provider that asks people in Slack threads."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType

from slack_bolt.async_app import AsyncApp

from bot.asks.deadlines import Deadlines
from bot.asks.lifecycle import Asks, error_of, new_ask_id
from bot.asks.posting import Posting
from bot.clock import Clock
from bot.metrics import Metrics
from bot.parts import Parts, SlackSettings, StartupError, build, start_up
from bot.slack.api import SlackClient
from bot.store import AskRecord, AskState, AskStore, ThreadRef, Verdict
from bot.tasks import Tasks
from provider import (
    AskUserQuestionAnswer,
    AskUserQuestionRequest,
    UserQuestionService,
)
from provider.errors import aborted

log = logging.getLogger(__name__)

# Defined with the composition root; importable from here as they always were.
__all__ = ["SlackQuestionProvider", "SlackSettings", "StartupError"]


@dataclass(frozen=True)
class _Opening:
    """An ask made through `ask()`: `stored` is done once it is in the store (from then on
    it can be withdrawn), `shown` once its post ended (posted, failed, or left unposted)."""

    ask_id: str
    stored: asyncio.Future[None]
    shown: asyncio.Future[AskRecord]


class SlackQuestionProvider:
    """Posts each ask as Block Kit in a Slack thread and returns the person's answer.

    Build it with `await SlackQuestionProvider.start(settings)`; serve `provider.app`
    (HTTP at /slack/events, or Socket Mode); `register(service)`; `await close()` at the end.
    """

    def __init__(self, parts: Parts, *, bot_user_id: str) -> None:
        self.parts = parts
        self.bot_user_id = bot_user_id
        # Asks made through `ask()` here, each with the futures of its storing and posting.
        self._mine: dict[str, _Opening] = {}
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

        The arguments are `bot.parts.build`'s: `shared` (other replicas use the same store),
        `replica` (this replica's lasting name), `metrics` (where calls and asks are counted).
        """
        parts = build(
            settings, store=store, clock=clock, shared=shared, replica=replica, metrics=metrics
        )
        return await cls.from_parts(parts)

    @classmethod
    async def from_parts(cls, parts: Parts) -> SlackQuestionProvider:
        """The provider over `parts` once started up (`bot.parts.start_up`); closes them if
        it cannot start."""
        return cls(parts, bot_user_id=await start_up(parts))

    # The collaborators callers reach for, as before the provider wrapped `Parts`.
    @property
    def app(self) -> AsyncApp:
        """The Bolt app to serve (HTTP at /slack/events, or Socket Mode)."""
        return self.parts.app

    @property
    def asks(self) -> Asks:
        """Every ask's life: create, post, settle, wait."""
        return self.parts.asks

    @property
    def store(self) -> AskStore:
        """Where asks are kept (observed: each write is logged, counted and shown)."""
        return self.parts.store

    @property
    def client(self) -> SlackClient:
        """The watched Web API client."""
        return self.parts.client

    @property
    def tasks(self) -> Tasks:
        """Background work, drained on close."""
        return self.parts.tasks

    @property
    def posting(self) -> Posting:
        """Posting asks to Slack, each once, in its channel's turn; recovery and the sweep."""
        return self.parts.posting

    @property
    def deadlines(self) -> Deadlines:
        """The reminders and expiries of pending asks."""
        return self.parts.deadlines

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
                    self._withdraw(opening, "the Slack provider was disposed"),
                    name="dispose",
                )

        return dispose

    async def route(self, agent_id: str, channel: str, thread_ts: str | None) -> None:
        """Post every later ask of agent `agent_id` in this channel/thread."""
        await self.parts.threads.route(agent_id, ThreadRef(channel=channel, thread_ts=thread_ts))

    async def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        """Post the questions and wait for the answer; abort and cancellation withdraw them."""
        if self._closed:
            raise aborted(RuntimeError("the Slack provider is closed"))
        ask_id = new_ask_id()
        stored = asyncio.get_running_loop().create_future()
        # Shielded: a cancellation mid-post must not leave a message nobody tracks.
        shown = asyncio.ensure_future(self._open(request, ask_id, stored))
        opening = self._mine[ask_id] = _Opening(ask_id, stored, shown)
        remove_callback: Callable[[], None] = lambda: None  # noqa: E731
        try:
            await asyncio.shield(shown)
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
                self._withdraw(opening, "the agent's task was cancelled"), name="cancel"
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

    async def _open(
        self, request: AskUserQuestionRequest, ask_id: str, stored: asyncio.Future[None]
    ) -> AskRecord:
        """Store the ask (then `stored` is done), then post it; `ASK_FAILED` if Slack cannot
        show it or refuses it."""
        agent = request.agent
        record, _ = await self.asks.create(
            request,
            ask_id=ask_id,
            agent_id=agent.id if agent else None,
            agent_name=agent.name if agent else None,
            requester=agent.requester if agent else None,
        )
        stored.set_result(None)
        return await self.posting.post(record.id)

    async def _withdraw(self, opening: _Opening, reason: str) -> None:
        """Withdraw the ask as soon as it is stored, without waiting for its post: a post
        waiting its channel's turn (or a 429's `Retry-After`, a minute) is then never made,
        and one already in Slack's hands is shown withdrawn once it lands (`Asks.settle`
        waits for it). Then wait for the post to end, so that no task outlives this."""
        await asyncio.wait((opening.stored, opening.shown), return_when=asyncio.FIRST_COMPLETED)
        if opening.stored.done():
            await self.asks.settle(opening.ask_id, Verdict.WITHDRAWN, reason=reason)
        with contextlib.suppress(Exception):  # refused by Slack: it says so, nothing to withdraw
            await asyncio.shield(opening.shown)

    async def session_ended(self, agent_id: str) -> None:
        """The agent session `agent_id` ended (its host detached it): where the app is
        declared as an agent, its thread's Slack session is `closed`. Its asks still pending
        are the asker's to withdraw; nothing else changes."""
        if self.parts.sessions is None:
            return
        ref = await self.parts.store.thread(agent_id)
        if ref is not None and ref.thread_ts is not None:
            self.parts.sessions.ended(ref.channel, ref.thread_ts)

    async def idle(self) -> None:
        """Wait until all post-ack work (message updates, replies, status lines) has finished."""
        await self.tasks.idle()
        await self.parts.statuses.sent()
        if self.parts.sessions is not None:
            await self.parts.sessions.sent()

    async def close(self) -> None:
        """Withdraw our in-process asks, finish background work, close the HTTP session."""
        self._closed = True
        for opening in list(self._mine.values()):
            await self._withdraw(opening, "the Slack provider shut down")
        await self.parts.close()


def _reason(reason: object) -> str:
    return str(reason) if reason is not None else "the agent aborted the ask"
