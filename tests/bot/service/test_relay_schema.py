"""schemathesis against the relay's own OpenAPI document, served by the running service: for
generated requests (valid and invalid), no 5xx, and every response is one the document allows."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.config import SchemathesisConfig
from schemathesis.core.result import Err
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    positive_data_acceptance,
    response_schema_conformance,
    status_code_conformance,
)

from bot.service.relay_watch import WATCH_PATH
from bot.service.server import Server

from .harness import RELAY_TOKEN

EXAMPLES = 30  # per operation and mode: 6 operations, 5 of them in both modes
# A schema-valid body may still be refused, but only as the document says: 422 when its values
# contradict each other or Slack cannot show it (no JSON schema can state either), never 400.
CONFIG = SchemathesisConfig.from_dict(
    {
        "checks": {
            "positive_data_acceptance": {
                "expected-statuses": ["2xx", "401", "403", "404", "409", "422", "429", "5xx"]
            }
        }
    }
)
AUTH = {"Authorization": f"Bearer {RELAY_TOKEN}"}
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    # A request the document calls valid is not refused as malformed (400).
    positive_data_acceptance,
]


def fuzz(base_url: str) -> list[str]:
    """Run every operation of the served document; the operations that were exercised."""
    schema = schemathesis.openapi.from_url(f"{base_url}/v1/openapi.json", config=CONFIG)
    ran = []
    with requests.Session() as session:
        for result in schema.get_all_operations():
            if isinstance(result, Err):
                raise result.err()  # the served document is not one schemathesis can read
            operation = result.ok()
            if operation.path == WATCH_PATH:
                # A WebSocket: every plain request is refused (426, even one the document
                # calls valid), and OpenAPI cannot state the frames (test_relay_watch.py
                # pins both).
                continue
            # Only an operation that takes input has an invalid request to send.
            takes_input = bool(
                len(operation.path_parameters) or len(operation.query) or len(operation.body)
            )
            modes = [GenerationMode.POSITIVE, *([GenerationMode.NEGATIVE] if takes_input else [])]
            for mode in modes:

                @settings(
                    max_examples=EXAMPLES,
                    deadline=None,
                    database=None,
                    phases=[Phase.explicit, Phase.generate],
                    suppress_health_check=list(HealthCheck),
                )
                @given(case=operation.as_strategy(generation_mode=mode))
                def exercise(case: schemathesis.Case[Any]) -> None:
                    case.call_and_validate(
                        base_url=base_url, session=session, headers=AUTH, checks=CHECKS
                    )

                exercise()
            ran.append(operation.label)
    return ran


# Hundreds of generated requests take seconds by their nature: .ci/run runs it.
@pytest.mark.slow
async def test_the_relay_answers_every_generated_request_as_its_openapi_document_says(
    server: Server,
) -> None:
    # schemathesis is synchronous: it runs on a thread while this loop serves the relay.
    ran = await asyncio.to_thread(fuzz, server.url)
    assert sorted(ran) == [
        "DELETE /v1/asks/{id}",
        "GET /healthz",
        "GET /v1/asks",
        "GET /v1/asks/{id}",
        "GET /v1/audit/export",
        "POST /v1/asks",
    ]
