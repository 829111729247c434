"""Live agents and who owns whom: the service asks it whether a caller may reach a human."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(eq=False)
class Agent:
    """A running agent. Liveness is object identity, never equality of ids."""

    id: str
    name: str | None = None
    requester: str | None = None  # the Slack user id of the person it acts for


@dataclass(eq=False)
class _Entry:
    agent: Agent
    owner: Agent | None
    detached: bool = field(default=False)


class AgentRegistry:
    """The runtime's live agents, in registration order, each with an optional owner."""

    def __init__(self) -> None:
        self._entries: dict[str, _Entry] = {}

    def enter(self, agent: Agent, owner: Agent | None = None) -> Callable[[], None]:
        """Make `agent` live (owned by `owner`, or a root); return an idempotent detach.

        Entering a live agent again replaces its ownership, so a former child can come
        back as a root. Another object under a live id is refused: ids name one agent.
        """
        current = self._entries.get(agent.id)
        if current is not None and current.agent is not agent:
            raise ValueError(f"another live agent already has id {agent.id!r}")
        if owner is agent:
            raise ValueError(f"agent {agent.id!r} cannot own itself")
        if current is not None:
            current.detached = True
            del self._entries[agent.id]
        entry = _Entry(agent, owner)
        self._entries[agent.id] = entry

        def detach() -> None:
            if entry.detached:
                return
            entry.detached = True
            del self._entries[agent.id]

        return detach

    def get(self, agent_id: str) -> Agent | None:
        """The live agent with this id, if any."""
        entry = self._entries.get(agent_id)
        return entry.agent if entry else None

    def is_live(self, agent: Agent) -> bool:
        """Whether this exact object is live."""
        return self.get(agent.id) is agent

    def owner_of(self, agent: Agent) -> Agent | None:
        """The live agent that owns `agent`, or None for a runtime root."""
        entry = self._entries.get(agent.id)
        if entry is None or entry.agent is not agent or entry.owner is None:
            return None
        return entry.owner if self.is_live(entry.owner) else None

    def roots(self) -> list[Agent]:
        """Live agents with no live owner, in registration order."""
        return [e.agent for e in self._entries.values() if self.owner_of(e.agent) is None]
