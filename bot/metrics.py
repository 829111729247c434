"""What the service counts, in the Prometheus text format at `/metrics`.

One `Metrics` per service, each on its own `CollectorRegistry` (no process-wide registry),
so two services in one process — or two tests — never share a count. Served only when
`SLACK_QUESTIONS_METRICS=1`, and never behind the relay token: a scraper has no bearer token.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final

from aiohttp import web
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

ANSWER_BUCKETS: Final = (
    5.0,
    15.0,
    30.0,
    60.0,
    120.0,
    300.0,
    600.0,
    1800.0,
    3600.0,
    14400.0,
    86400.0,
)
"""Seconds from creation to answer: people answer in seconds to a day, not milliseconds."""


class Metrics:
    """The service's counters, gauges and answer-time histogram."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.asks_created = Counter(
            "slack_questions_asks_created",
            "Asks stored (each is then posted in Slack).",
            registry=self.registry,
        )
        self.asks_settled = Counter(
            "slack_questions_asks_settled",
            "Asks that ended, by how they ended.",
            ["outcome"],
            registry=self.registry,
        )
        self.pending_asks = Gauge(
            "slack_questions_pending_asks",
            "Asks waiting for an answer now.",
            registry=self.registry,
        )
        self.answer_seconds = Histogram(
            "slack_questions_answer_seconds",
            "Seconds from an ask's creation to its answer (answered asks only).",
            buckets=ANSWER_BUCKETS,
            registry=self.registry,
        )
        self.slack_api_errors = Counter(
            "slack_questions_slack_api_errors",
            "Slack Web API calls that failed, by method and Slack's error.",
            ["method", "error"],
            registry=self.registry,
        )
        # Per agent (by name), what the Home tab's figures show (bot/render/figures.py).
        self.agent_asks_created = Counter(
            "slack_questions_agent_asks_created",
            "Asks stored, by agent name.",
            ["agent"],
            registry=self.registry,
        )
        self.agent_asks_settled = Counter(
            "slack_questions_agent_asks_settled",
            "Asks that ended, by agent name and how they ended.",
            ["agent", "outcome"],
            registry=self.registry,
        )
        self.agent_auto_decided = Counter(
            "slack_questions_agent_auto_decided",
            "Asks decided before anyone was asked, by agent name and by what: rule or grant.",
            ["agent", "by"],
            registry=self.registry,
        )
        self.agent_answer_seconds = Histogram(
            "slack_questions_agent_answer_seconds",
            "Seconds from an ask's creation to a person's answer, by agent name.",
            ["agent"],
            buckets=ANSWER_BUCKETS,
            registry=self.registry,
        )
        self.agent_quick_answers = Counter(
            "slack_questions_agent_quick_answers",
            "Answers a person gave within 2 s of the ask being posted (a rubber-stamp "
            "signal), by agent name.",
            ["agent"],
            registry=self.registry,
        )
        self.relay_waiters = Gauge(
            "slack_questions_relay_waiters",
            "Relay waits held open for an answer: GET /v1/asks/{id}?wait=… and each ask "
            "watched over GET /v1/asks/watch.",
            registry=self.registry,
        )

    def ask_created(self) -> None:
        """An ask was stored: counted, and pending until it settles."""
        self.asks_created.inc()
        self.pending_asks.inc()

    def ask_settled(self, outcome: str, *, answered_after: float | None = None) -> None:
        """An ask ended as `outcome`; `answered_after` (seconds since creation) when a person
        answered it."""
        self.asks_settled.labels(outcome=outcome).inc()
        self.pending_asks.dec()
        if answered_after is not None:
            self.answer_seconds.observe(max(answered_after, 0.0))

    def agent_ask_created(self, agent: str) -> None:
        """An ask of `agent` was stored."""
        self.agent_asks_created.labels(agent=agent).inc()

    def agent_ask_settled(
        self,
        agent: str,
        outcome: str,
        *,
        automatic: str | None = None,
        answered_after: float | None = None,
        quick: bool = False,
    ) -> None:
        """An ask of `agent` ended as `outcome`: `automatic` names what decided it ("rule",
        "grant"); `answered_after` (seconds since creation) when a person answered it,
        `quick` when they did so within 2 s of its posting."""
        self.agent_asks_settled.labels(agent=agent, outcome=outcome).inc()
        if automatic is not None:
            self.agent_auto_decided.labels(agent=agent, by=automatic).inc()
        if answered_after is not None:
            self.agent_answer_seconds.labels(agent=agent).observe(max(answered_after, 0.0))
        if quick:
            self.agent_quick_answers.labels(agent=agent).inc()

    def asks_recovered(self, pending: int) -> None:
        """After a restart: the store's pending asks are pending again."""
        self.pending_asks.set(pending)

    def slack_api_error(self, method: str, error: str) -> None:
        """A Web API call failed with Slack's `error` (or how it failed in transit)."""
        self.slack_api_errors.labels(method=method, error=error).inc()

    @contextmanager
    def relay_waiting(self) -> Iterator[None]:
        """Around a relay request held open for an answer."""
        self.relay_waiters.inc()
        try:
            yield
        finally:
            self.relay_waiters.dec()

    def render(self) -> bytes:
        """Every family in the Prometheus text format."""
        return generate_latest(self.registry)

    async def handle(self, request: web.Request) -> web.Response:
        """`GET /metrics`."""
        return web.Response(body=self.render(), headers={"Content-Type": CONTENT_TYPE_LATEST})
