"""The composition root: `build(settings)` makes every collaborator of the Slack provider once.

`SlackQuestionProvider`, the service (`Server`), offline mode and the MCP server all start from
the same `Parts`; nothing else constructs an ask's collaborators. `build` does no I/O: checking
the token and taking back pending asks is `start_up`, undoing it all is `Parts.close`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import aiohttp
from pydantic import BaseModel, ConfigDict, Field
from slack_bolt.async_app import AsyncApp

from bot.asks.announcements import Announcements
from bot.asks.claim_lapses import ClaimLapses
from bot.asks.deadlines import Deadlines
from bot.asks.lifecycle import Asks
from bot.asks.observers import AskMetrics, AskObserver, Observers, TransitionLog, WaitingLine
from bot.asks.posting import Posting
from bot.asks.session_line import SessionLine
from bot.clock import Clock, SystemClock
from bot.flags import StartupError as StartupError
from bot.interactions.admission import Admission
from bot.interactions.always_allow import AlwaysAllow
from bot.interactions.answering import Answering
from bot.interactions.app import build_app
from bot.interactions.audit_exports import AuditExports
from bot.interactions.claims import Claims
from bot.interactions.delegate_command import DelegateCommand
from bot.interactions.edits import Edits
from bot.interactions.feedback import FeedbackDesk
from bot.interactions.grant_list import GrantList
from bot.interactions.intake import Intake
from bot.interactions.origins import BotIdentity, Origins
from bot.interactions.plan_reviews import PlanReviews
from bot.interactions.session_grants import SessionGrants
from bot.interactions.session_stops import SessionStops
from bot.interactions.team_commands import Subcommand, Subcommands
from bot.metrics import Metrics
from bot.review import ReviewPolicies
from bot.slack.api import (
    CALL_TIMEOUT_SECONDS,
    SLACK_API_URL,
    SlackCallFailed,
    SlackCalls,
    SlackClient,
    client_session,
    web_client,
)
from bot.slack.audience import Audience
from bot.slack.grant_audience import GrantAudience
from bot.slack.lines import ThreadLines
from bot.slack.memberships import ChannelMembers
from bot.slack.messages import AskMessages
from bot.slack.pacing import ChannelPosts
from bot.slack.responders import AnyoneInChannel, Responders
from bot.slack.session_states import SessionStates
from bot.slack.status_line import ThreadStatuses
from bot.slack.threads import Threads
from bot.slack.users import Users
from bot.slack.workspace_url import WorkspaceUrl
from bot.store import AskStore, MemoryStore
from bot.store.leases import Leases, new_owner
from bot.tasks import Tasks
from bot.team import TeamView


class SlackSettings(BaseModel):
    """What the provider needs to reach Slack and decide who answers.

    The one home of these settings and their defaults: `python -m bot`'s `Config` holds one.
    """

    model_config = ConfigDict(frozen=True)

    # Kept out of repr, so a logged or printed settings object does not leak them.
    bot_token: str = Field(repr=False)
    signing_secret: str = Field(repr=False)  # empty in Socket Mode, which is not signed
    channel: str | None = None
    # Who may answer: user and user-group ids, or ANYONE (`*`) on purpose; none: nobody.
    responders: Sequence[str] | AnyoneInChannel = ()
    api_url: str = SLACK_API_URL
    review: ReviewPolicies = ReviewPolicies()
    call_timeout: float = CALL_TIMEOUT_SECONDS  # a Web API call that takes longer has failed
    # The app is declared as an agent (SLACK_QUESTIONS_AGENT_SESSIONS=1): each agent thread is
    # a Slack agent session (agents.sessions.setStatus) instead of a thread status line.
    agent_sessions: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class Parts:
    """Every collaborator of the Slack provider, each built once by `build`."""

    settings: SlackSettings
    session: aiohttp.ClientSession
    calls: SlackCalls  # every Web API call watched: failures and retries logged and counted
    client: SlackClient
    store: AskStore  # the given store, or one in memory
    owns_store: bool  # made here, so closed here; a given store is its opener's to close
    tasks: Tasks
    clock: Clock
    statuses: ThreadStatuses
    sessions: SessionStates | None  # when the app is declared as an agent
    posts: ChannelPosts
    threads: Threads
    messages: AskMessages
    leases: Leases
    deadlines: Deadlines
    claim_lapses: ClaimLapses  # claims running out (bot/claims.py)
    asks: Asks
    posting: Posting
    admission: Admission
    plan_reviews: PlanReviews
    answering: Answering
    intake: Intake
    origins: Origins  # the bot's own team, enterprise and app ids, once auth.test named them
    team: TeamView  # `/agent-questions`, the Home tab and the relay's permalinks
    app: AsyncApp
    metrics: Metrics | None
    announcements: Announcements  # a rule's or grant's decision told in its thread

    async def close(self) -> None:
        """Finish background work, stop timers and status lines, close the HTTP session."""
        # Posts waiting their turn (behind a 429, or a queue) are left for the next start.
        self.posts.pacing.stop()
        await self.tasks.drain()
        # After the drain: a post that finished during it may have started a timer.
        await self.deadlines.close()
        await self.claim_lapses.close()
        await self.statuses.close()
        if self.sessions is not None:
            await self.sessions.close()
        if self.owns_store:
            await self.store.close()
        await self.session.close()


def build(
    settings: SlackSettings,
    *,
    store: AskStore | None = None,
    clock: Clock | None = None,
    shared: bool = False,
    replica: str | None = None,
    metrics: Metrics | None = None,
) -> Parts:
    """Construct the provider's collaborators, in dependency order; no I/O happens here.

    `shared`: other replicas use the same store (PostgreSQL), so copies in memory may be stale
    and are read again before an ask is settled. `replica`: a name that stays the same across
    restarts (host and port), so a restarted replica takes over at once the work its crashed
    predecessor held a lease on. Every Web API call is watched (failures and retries logged,
    counted in `metrics`); every ask transition is logged, counted and shown under its thread.
    """
    clock = clock or SystemClock()
    session = client_session(settings.call_timeout)
    calls = SlackCalls(metrics)
    client = web_client(settings.bot_token, base_url=settings.api_url, session=session, calls=calls)
    tasks = Tasks()
    # Slack drops a status after two minutes of its own (real) time, so the line is renewed
    # on real time too, not on the asks' clock (a test's ManualClock counts its sleepers; a
    # renewal timer there would be taken for a deadline's).
    statuses = ThreadStatuses(client, SystemClock())
    sessions = SessionStates(client) if settings.agent_sessions else None
    observers: list[AskObserver] = [
        TransitionLog(clock),
        WaitingLine(statuses) if sessions is None else SessionLine(sessions),
    ]
    if metrics is not None:
        observers.append(AskMetrics(metrics))
    kept = store or MemoryStore()
    leases = Leases(kept, new_owner(replica, shared=shared), clock=clock, shared=shared)
    posts = ChannelPosts(client)
    threads = Threads(kept, settings.channel, posts=posts, clock=clock, leases=leases)
    messages = AskMessages(
        client, kept, settings.review, clock, posts=posts, responders=settings.responders
    )
    asks = Asks(
        store=kept,
        messages=messages,
        observers=Observers(observers),
        clock=clock,
        tasks=tasks,
        shared=shared,
        policies=settings.review,
        channel=settings.channel,
    )
    posting = Posting(
        asks,
        store=kept,
        threads=threads,
        messages=messages,
        leases=leases,
        clock=clock,
        tasks=tasks,
        shared=shared,
    )
    announcements = Announcements(
        store=kept,
        threads=threads,
        lines=ThreadLines(posts),
        leases=leases,
        tasks=tasks,
        clock=clock,
        observers=asks.observers,
        users=Users(client),
        shared=shared,
    )
    asks.observers.add(announcements)
    deadlines = Deadlines(asks, leases, settings.review, clock, messages)
    asks.observers.add(deadlines)
    claim_lapses = ClaimLapses(
        asks, leases, settings.review, clock, messages, responders=settings.responders
    )
    asks.observers.add(claim_lapses)
    responders = Responders(client, settings.responders)
    admission = Admission(asks, messages, responders, settings.review, store=kept, clock=clock)
    plan_reviews = PlanReviews(asks, admission, messages, settings.review, clock)
    answering = Answering(
        asks, admission, plan_reviews, messages, clock, decide_before_ack=not shared
    )
    origins = Origins()
    edits = Edits(asks, admission, messages, settings.review, clock, store=kept)
    session_grants = SessionGrants(asks, admission, messages, settings.review, kept, clock)
    audience = Audience(
        client, responders, settings.review, ChannelMembers(client), channel=settings.channel
    )
    grant_audience = GrantAudience(
        kept,
        clock,
        client,
        responders,
        settings.review,
        ChannelMembers(client),
        channel=settings.channel,
    )
    team = TeamView(kept, client, audience, settings.review, grants=grant_audience, clock=clock)
    grant_list = GrantList(kept, clock, grant_audience, team)
    claims = Claims(
        asks,
        admission,
        messages,
        settings.review,
        clock,
        Users(client),
        responders=settings.responders,
    )
    feedback = FeedbackDesk(kept, audience, messages, team, clock)
    intake = Intake(
        answering,
        plan_reviews,
        kept,
        clock,
        tasks,
        origins,
        edits=edits,
        session_grants=session_grants,
        grant_list=grant_list,
        claims=claims,
        feedback=feedback,
        always=AlwaysAllow(asks, admission, messages, settings.review, kept, clock),
        stops=SessionStops(asks, admission, messages, kept, sessions) if sessions else None,
    )
    # `/agent-questions <word>`: each feature's subcommand, one entry per line.
    subcommand_list: dict[str, Subcommand] = {
        "grants": Subcommand("grants — the active grants you may revoke", grant_list.command),
        "export": AuditExports(kept, audience, client, WorkspaceUrl(client), clock).subcommand(),
        "delegate": DelegateCommand(kept, client, clock, messages).subcommand(),
    }
    subcommands = Subcommands(subcommand_list)
    app = build_app(
        client,
        signing_secret=settings.signing_secret,
        intake=intake,
        team=team,
        tasks=tasks,
        origins=origins,
        subcommands=subcommands,
    )
    return Parts(
        settings=settings,
        session=session,
        calls=calls,
        client=client,
        store=kept,
        owns_store=store is None,
        tasks=tasks,
        clock=clock,
        statuses=statuses,
        sessions=sessions,
        posts=posts,
        threads=threads,
        messages=messages,
        leases=leases,
        deadlines=deadlines,
        claim_lapses=claim_lapses,
        asks=asks,
        posting=posting,
        admission=admission,
        plan_reviews=plan_reviews,
        answering=answering,
        intake=intake,
        origins=origins,
        team=team,
        app=app,
        metrics=metrics,
        announcements=announcements,
    )


async def start_up(parts: Parts) -> str:
    """Check the token with auth.test, take back pending asks, then replay acked clicks;
    the bot's user id. `StartupError` says what to fix; on any failure `parts` is closed."""
    try:
        bot_user_id = await _check_token(parts)
        await parts.posting.recover()
        await parts.announcements.recover()
        # After the asks are back in hand: a click acked before a crash answers one.
        await parts.intake.replay()
    except BaseException:
        await parts.close()
        raise
    return bot_user_id


async def _check_token(parts: Parts) -> str:
    """The bot's user id, as auth.test names it; `StartupError` when Slack cannot be reached
    or refuses the token. Its team, enterprise and app ids are kept: from now on only
    requests carrying them are acted on (`bot.interactions.origins`)."""
    api_url = parts.settings.api_url
    try:
        auth = await parts.client.auth_test()
    except SlackCallFailed as failed:
        if failed.in_transit:
            raise StartupError(
                f"cannot reach Slack's Web API at {api_url} ({failed.error}); "
                "check SLACK_API_URL and the network"
            ) from failed
        raise StartupError(
            f"Slack rejected the bot token at {api_url} ({failed.error}); check SLACK_BOT_TOKEN"
        ) from failed
    try:
        parts.origins.know(
            BotIdentity.of_auth_test(auth.data if isinstance(auth.data, dict) else {})
        )
    except ValueError as unknown:
        # Without its own ids the bot cannot tell its requests from another app's: refuse
        # to start rather than act on everyone's (or no one's).
        raise StartupError(
            f"{unknown} at {api_url}; check that SLACK_BOT_TOKEN is a bot token (xoxb-)"
        ) from unknown
    return str(auth["user_id"])
