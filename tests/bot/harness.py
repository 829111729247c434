"""A running Slack provider served over real HTTP to the emulator, and helpers to drive it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass

from aiohttp import web

from bot import SlackQuestionProvider, SlackSettings
from bot.clock import Clock
from bot.review import ReviewPolicies
from bot.slack.responders import ANYONE, AnyoneInChannel
from bot.store import AskStore
from provider import (
    AbortSignal,
    Agent,
    AgentRegistry,
    AskUserQuestionAnswer,
    AskUserQuestionRequest,
    UserQuestionService,
)
from slack_emulator import ApiCall, Message, SlackEmulator

SECRET = "bot-test-signing-secret"
TOKEN = "xoxb-bot-test"
APP_TOKEN = "xapp-bot-test"
CHANNEL = "C0QUESTION"
OTHER_CHANNEL = "C0ELSEWHER"
ALICE = "U0ALICE001"
BOB = "U0BOB00002"
CAROL = "U0CAROL003"
REVIEWERS = "S0REVIEWER"  # alice and bob


def new_emulator() -> SlackEmulator:
    """An emulator with our channel (bot, alice, bob, carol) and a reviewers group."""
    emu = SlackEmulator(signing_secret=SECRET, bot_token=TOKEN, app_token=APP_TOKEN)
    workspace = emu.workspace
    workspace.add_user(ALICE, name="alice", real_name="Alice Archer")
    workspace.add_user(BOB, name="bob", real_name="Bob Baker")
    workspace.add_user(CAROL, name="carol", real_name="Carol Chen")
    workspace.add_channel(
        CHANNEL, name="agent-questions", members=[ALICE, BOB, CAROL, emu.bot_user_id]
    )
    workspace.add_channel(OTHER_CHANNEL, name="elsewhere", members=[ALICE])
    workspace.add_usergroup(REVIEWERS, handle="reviewers", users=[ALICE, BOB])
    return emu


def request(*questions: Mapping[str, object]) -> AskUserQuestionRequest:
    """A request from wire-form questions."""
    return AskUserQuestionRequest.model_validate({"questions": list(questions)})


@dataclass
class Bot:
    """The provider under test, its service, and the emulated Slack it talks to."""

    emu: SlackEmulator
    provider: SlackQuestionProvider
    service: UserQuestionService
    agents: AgentRegistry
    dispose: Callable[[], None]

    def ask(
        self,
        *questions: Mapping[str, object],
        agent: Agent | None = None,
        signal: AbortSignal | None = None,
    ) -> asyncio.Task[AskUserQuestionAnswer]:
        """Start asking through the service; await the task for the answer."""
        req = AskUserQuestionRequest.model_validate(
            {"questions": list(questions), "agent": agent, "signal": signal}
        )
        return asyncio.create_task(self.service.ask(req))

    def ask_posts(self) -> list[ApiCall]:
        """Successful chat.postMessage calls that posted an ask part."""
        return [
            call
            for call in self.emu.calls_to("chat.postMessage")
            if call.ok
            and (call.params.get("metadata") or {}).get("event_type") == "slack_questions_ask"
        ]

    async def posted(self, n: int = 1) -> Message:
        """The `n`-th ask message posted, as it stands now."""
        await self.emu.wait_for(lambda: len(self.ask_posts()) >= n, what=f"ask message #{n}")
        call = self.ask_posts()[n - 1]
        return self.emu.message(str(call.response["channel"]), str(call.response["ts"]))

    def now(self, message: Message) -> Message:
        """`message` as it stands now (messages are snapshots)."""
        return self.emu.message(message.channel, message.ts)

    async def idle(self) -> None:
        """Wait for the provider's post-ack work (message updates, ephemerals)."""
        await self.provider.idle()


@asynccontextmanager
async def running_bot(
    emu: SlackEmulator,
    *,
    responders: Sequence[str] | AnyoneInChannel = ANYONE,
    store: AskStore | None = None,
    channel: str | None = CHANNEL,
    review: ReviewPolicies | None = None,
    clock: Clock | None = None,
    call_timeout: float = 30.0,
    agent_sessions: bool = False,
) -> AsyncIterator[Bot]:
    """Start the provider against `emu`, serve its Bolt app on 127.0.0.1, register it."""
    settings = SlackSettings(
        bot_token=TOKEN,
        signing_secret=SECRET,
        channel=channel,
        responders=responders,
        api_url=emu.api_url,
        review=review or ReviewPolicies(),
        call_timeout=call_timeout,
        agent_sessions=agent_sessions,
    )
    provider = await SlackQuestionProvider.start(settings, store=store, clock=clock)
    runner = web.AppRunner(provider.app.web_app(path="/slack/events"), shutdown_timeout=1.0)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    emu.request_url = f"http://{host}:{port}/slack/events"
    agents = AgentRegistry()
    service = UserQuestionService(agents)
    dispose = provider.register(service)
    try:
        yield Bot(emu, provider, service, agents, dispose)
    finally:
        dispose()
        await runner.cleanup()
        await provider.close()
