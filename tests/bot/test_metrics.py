"""Metrics: each family counts what its name says, on a registry of its own, and the handler
serves the Prometheus text format."""

from __future__ import annotations

from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from prometheus_client.parser import text_string_to_metric_families

from bot.metrics import Metrics


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
