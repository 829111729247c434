"""Who is asking over MCP: each client session becomes one live agent, so one Slack thread.

A session is what the protocol era and transport make of one: the `Mcp-Session-Id` of
streamable HTTP; the connection of a handshake-era (2025) stdio or in-memory client; and in
the 2026 era, where every request stands alone and sessions do not exist, the client's
name within this server process (a stdio server serves exactly one client anyway).
"""

from __future__ import annotations

import uuid
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from mcp.server.mcpserver import Context
from mcp_types import InitializeRequestParams
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from provider import Agent, AgentRegistry

SESSION_HEADER = "mcp-session-id"
UNNAMED_CLIENT = "MCP client"


def agent_name(client_name: str | None, configured: str | None) -> str:
    """The name the Slack thread shows: `SLACK_QUESTIONS_AGENT_NAME (client)`, or either alone."""
    client_name = (client_name or "").strip() or None
    configured = (configured or "").strip() or None
    if configured and client_name:
        return f"{configured} ({client_name})"
    return configured or client_name or UNNAMED_CLIENT


@dataclass(frozen=True)
class _ConnectionAgent:
    """The agent of a handshake-era connection, kept while its `initialize` params live."""

    params: weakref.ref[InitializeRequestParams]
    agent: Agent
    detach: Callable[[], None]


class AgentSessions:
    """Hands out one live `Agent` per MCP client session, entered in `registry`."""

    def __init__(
        self,
        registry: AgentRegistry,
        configured_name: str | None = None,
        under: str | None = None,
        *,
        requester: str | None = None,
    ) -> None:
        """`under` (SLACK_QUESTIONS_AGENT_ID): the agent a relay credential names; each
        session then asks as `<under>/mcp-…`, a session of that agent the credential covers.
        `requester` (SLACK_QUESTIONS_REQUESTER): the Slack user every session acts for."""
        self._registry = registry
        self._configured_name = configured_name
        self._under = under
        self._requester = requester
        self._by_key: dict[str, Agent] = {}
        # Handshake-era connections have no id we can read; their `initialize` params object
        # lives exactly as long as the connection, so its identity stands for it.
        self._by_connection: dict[int, _ConnectionAgent] = {}

    def agent_for(self, ctx: Context[Any, Any]) -> Agent:
        """The agent of the session `ctx` belongs to (created on its first call)."""
        session = ctx.request_context.session
        params = session.client_params
        client_name = params.client_info.name if params is not None else None
        session_id = _header(ctx.headers, SESSION_HEADER)
        if session_id is not None:
            return self._keyed(f"http:{session_id}", client_name)
        if params is not None and ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            return self._of_connection(params)
        return self._keyed(f"client:{client_name or ''}", client_name)

    def _keyed(self, key: str, client_name: str | None) -> Agent:
        agent = self._by_key.get(key)
        if agent is None:
            agent = self._new_agent(client_name)
            self._by_key[key] = agent
        return agent

    def _of_connection(self, params: InitializeRequestParams) -> Agent:
        self._forget_closed_connections()
        known = self._by_connection.get(id(params))
        if known is not None and known.params() is params:
            return known.agent
        agent = Agent(
            self._new_id(),
            name=agent_name(params.client_info.name, self._configured_name),
            requester=self._requester,
        )
        detach = self._registry.enter(agent)
        self._by_connection[id(params)] = _ConnectionAgent(weakref.ref(params), agent, detach)
        return agent

    def _forget_closed_connections(self) -> None:
        for key, known in list(self._by_connection.items()):
            if known.params() is None:
                known.detach()
                del self._by_connection[key]

    def _new_id(self) -> str:
        session = f"mcp-{uuid.uuid4().hex[:12]}"
        return f"{self._under}/{session}" if self._under else session

    def _new_agent(self, client_name: str | None) -> Agent:
        agent = Agent(
            self._new_id(),
            name=agent_name(client_name, self._configured_name),
            requester=self._requester,
        )
        self._registry.enter(agent)
        return agent


def _header(headers: Mapping[str, str] | None, name: str) -> str | None:
    if not headers:
        return None
    value = headers.get(name)
    return value.strip() or None if isinstance(value, str) else None
