"""Metrics: each family counts what its name says, on a registry of its own, and the handler
serves the Prometheus text format."""

from __future__ import annotations

from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from prometheus_client.parser import text_string_to_metric_families

from bot.asks.observers import AskMetrics
from bot.metrics import Metrics
from bot.outcomes import AskState
from bot.store import AskEvent, AskRecord, EventKind, Verdict
from provider import AskUserQuestionItem


def samples(metrics: Metrics) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of the rendered text, keyed by name and sorted labels."""
    found: dict[tuple[str, tuple[tuple[str, str], ...]], float] = {}
    for family in text_string_to_metric_families(metrics.render().decode()):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


def test_a_created_ask_is_counted_and_pending() -> None:
    metrics = Metrics()
    metrics.ask_created()
    metrics.ask_created()
    seen = samples(metrics)
    assert seen[("slack_questions_asks_created_total", ())] == 2.0
    assert seen[("slack_questions_pending_asks", ())] == 2.0


def test_a_settled_ask_is_counted_by_outcome_and_no_longer_pending() -> None:
    metrics = Metrics()
    for _ in range(3):
        metrics.ask_created()
    metrics.ask_settled("answered", answered_after=42.0)
    metrics.ask_settled("expired")
    seen = samples(metrics)
    assert seen[("slack_questions_asks_settled_total", (("outcome", "answered"),))] == 1.0
    assert seen[("slack_questions_asks_settled_total", (("outcome", "expired"),))] == 1.0
    assert seen[("slack_questions_pending_asks", ())] == 1.0


def test_only_answered_asks_feed_the_answer_time_histogram() -> None:
    metrics = Metrics()
    metrics.ask_created()
    metrics.ask_created()
    metrics.ask_settled("answered", answered_after=42.0)
    metrics.ask_settled("withdrawn")
    seen = samples(metrics)
    assert seen[("slack_questions_answer_seconds_count", ())] == 1.0
    assert seen[("slack_questions_answer_seconds_sum", ())] == 42.0
    assert seen[("slack_questions_answer_seconds_bucket", (("le", "30.0"),))] == 0.0
    assert seen[("slack_questions_answer_seconds_bucket", (("le", "60.0"),))] == 1.0


def test_slack_api_errors_are_counted_by_method_and_slacks_error() -> None:
    metrics = Metrics()
    metrics.slack_api_error("chat.postMessage", "ratelimited")
    metrics.slack_api_error("chat.postMessage", "ratelimited")
    metrics.slack_api_error("chat.update", "message_not_found")
    seen = samples(metrics)
    key = "slack_questions_slack_api_errors_total"
    assert seen[(key, (("error", "ratelimited"), ("method", "chat.postMessage")))] == 2.0
    assert seen[(key, (("error", "message_not_found"), ("method", "chat.update")))] == 1.0


def test_relay_waiters_count_requests_held_open_and_drop_when_they_return() -> None:
    metrics = Metrics()
    with metrics.relay_waiting(), metrics.relay_waiting():
        assert samples(metrics)[("slack_questions_relay_waiters", ())] == 2.0
    assert samples(metrics)[("slack_questions_relay_waiters", ())] == 0.0


def test_recovered_asks_set_the_pending_gauge_to_the_stores_count() -> None:
    metrics = Metrics()
    metrics.asks_recovered(4)
    assert samples(metrics)[("slack_questions_pending_asks", ())] == 4.0


def test_two_services_in_one_process_never_share_a_count() -> None:
    first, second = Metrics(), Metrics()
    first.ask_created()
    assert samples(first)[("slack_questions_asks_created_total", ())] == 1.0
    assert samples(second)[("slack_questions_asks_created_total", ())] == 0.0


async def test_the_handler_serves_the_prometheus_text_format() -> None:
    metrics = Metrics()
    metrics.ask_created()
    app = web.Application()
    app.router.add_get("/metrics", metrics.handle)
    async with TestClient(TestServer(app)) as client:
        response = await client.get("/metrics")
        body = await response.text()
    assert response.status == 200
    assert response.headers["Content-Type"].startswith("text/plain; version=")
    assert "# TYPE slack_questions_asks_created_total counter" in body
    assert "slack_questions_asks_created_total 1.0" in body


def agent_lines(metrics: Metrics) -> list[str]:
    """The rendered samples of the per-agent families (/metrics' lines), buckets and
    creation timestamps left out."""
    return [
        line
        for line in metrics.render().decode().splitlines()
        if line.startswith("slack_questions_agent_")
        and "_bucket" not in line
        and "_created{" not in line
    ]


def test_per_agent_counters_follow_a_scripted_set_of_asks() -> None:
    metrics = Metrics()
    observer = AskMetrics(metrics)
    t0 = 1_700_000_000.0

    def record(ask_id: str, agent: str, **fields: object) -> AskRecord:
        return AskRecord.model_validate(
            {
                "id": ask_id,
                "questions": [AskUserQuestionItem(id="q", question="?")],
                "created_at": t0,
                "agent_name": agent,
                **fields,
            }
        )

    def event(ask_id: str, kind: EventKind, after: float) -> AskEvent:
        return AskEvent(ask_id=ask_id, kind=kind, at=t0 + after)

    answered = {"state": AskState.ANSWERED, "verdict": Verdict.ANSWERED}
    quick = record("a1", "Planner", decided_by="U1", **answered)
    slow = record("a2", "Planner", decided_by="U2", **answered)
    ruled = record("a3", "Planner", decided_by="rule:safe-reads", **answered)
    expired = record("a4", "Deployer", state=AskState.FAILED, verdict=Verdict.EXPIRED)
    granted = record("a5", "Deployer", decided_by="grant:g1", **answered)
    for r in (quick, slow, ruled, expired, granted):
        observer.created(r)
    observer.saved(quick, event("a1", EventKind.POSTED, 1.0))
    observer.saved(quick, event("a1", EventKind.ANSWERED, 2.5))  # 1.5 s after posting
    observer.saved(slow, event("a2", EventKind.POSTED, 1.0))
    observer.saved(slow, event("a2", EventKind.ANSWERED, 61.0))
    observer.saved(ruled, event("a3", EventKind.ANSWERED, 0.0))
    observer.saved(expired, event("a4", EventKind.POSTED, 1.0))
    observer.saved(expired, event("a4", EventKind.EXPIRED, 3600.0))
    observer.saved(granted, event("a5", EventKind.ANSWERED, 0.0))
    assert agent_lines(metrics) == [
        'slack_questions_agent_asks_created_total{agent="Planner"} 3.0',
        'slack_questions_agent_asks_created_total{agent="Deployer"} 2.0',
        'slack_questions_agent_asks_settled_total{agent="Planner",outcome="answered"} 3.0',
        'slack_questions_agent_asks_settled_total{agent="Deployer",outcome="expired"} 1.0',
        'slack_questions_agent_asks_settled_total{agent="Deployer",outcome="answered"} 1.0',
        'slack_questions_agent_auto_decided_total{agent="Planner",by="rule"} 1.0',
        'slack_questions_agent_auto_decided_total{agent="Deployer",by="grant"} 1.0',
        'slack_questions_agent_answer_seconds_count{agent="Planner"} 2.0',
        'slack_questions_agent_answer_seconds_sum{agent="Planner"} 63.5',
        'slack_questions_agent_quick_answers_total{agent="Planner"} 1.0',
    ]
