"""Where a relay caller may send an ask: the team's channels, never the asker's choice.

Review policies are looked up by an ask's channel, so a caller that could pick any channel,
a DM or another session's thread could pick its reviewers too. The rule:
- an ask goes to the caller's credential's channels, or (it names none, or the caller is
  the admin) to the configured ones (`SLACK_QUESTIONS_CHANNEL` and `SLACK_QUESTIONS_CHANNELS`);
- a `thread_ts` must be a thread of one of the caller's own agent sessions, or one the bot
  posted the caller's asks in (the admin may name any thread of a configured channel: a host
  routing its agent to the thread that started it);
- with no route, an ask goes to its session's thread in the questions channel, unless the
  credential's channels leave that channel out: then to the top of its first channel.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.service.principals import Principal
from bot.store import AskStore, ThreadRef

ROUTE_NOT_ALLOWED = "ROUTE_NOT_ALLOWED"
# How far back an agent's asks are searched for the thread it names (its session's own
# thread is found directly).
THREAD_SEARCH_ASKS = 200


class RouteRefused(Exception):
    """The caller may not ask there; the message says where it may."""

    code = ROUTE_NOT_ALLOWED


@dataclass(frozen=True)
class Routing:
    """The configured channels, and the rule above over them."""

    store: AskStore
    configured: tuple[str, ...]  # the questions channel first

    def allowed(self, principal: Principal) -> tuple[str, ...]:
        """The channels `principal` may ask in."""
        if principal.channels and not principal.admin:
            return principal.channels
        return self.configured

    async def route(
        self, principal: Principal, route: ThreadRef | None, agent_id: str | None
    ) -> ThreadRef | None:
        """Where the ask goes (None: its session's thread in the questions channel);
        `RouteRefused` if the caller may not send it where it asked."""
        allowed = self.allowed(principal)
        if route is None:
            if self.configured and self.configured[0] in allowed:
                return None
            if not self.configured and not principal.channels:
                return None  # nothing configured to keep to (an in-process host)
            return ThreadRef(channel=allowed[0])
        if route.channel not in allowed:
            raise RouteRefused(f"{_what(route.channel)}; {_where(allowed)}")
        if route.thread_ts is None or principal.admin:
            return route
        if await self._own_thread(principal, route):
            return route
        raise RouteRefused(
            f"thread {route.thread_ts} in {route.channel} is not a thread of this "
            f"credential's agent sessions; {_where(allowed)}, in a session's own thread"
        )

    async def _own_thread(self, principal: Principal, route: ThreadRef) -> bool:
        for agent in sorted(principal.agents):
            if await self.store.thread(agent) == route:
                return True
        asks = await self.store.recent(agents=principal.agents, limit=THREAD_SEARCH_ASKS)
        return any((r.channel, r.thread_ts) == (route.channel, route.thread_ts) for r in asks)


def _what(channel: str) -> str:
    if channel[:1] in ("D", "U", "W"):
        return f"{channel} is a direct message, which the relay never posts in"
    return f"channel {channel} is not one this credential may ask in"


def _where(allowed: Sequence[str]) -> str:
    if not allowed:
        return "no channel is configured for it"
    return f"asks may go to {', '.join(allowed)}"


__all__ = ["ROUTE_NOT_ALLOWED", "THREAD_SEARCH_ASKS", "RouteRefused", "Routing"]
