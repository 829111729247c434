"""Readiness: every check runs, a failing one is named with its reason, and /readyz answers
200 only when all pass."""

from __future__ import annotations

import asyncio
import logging

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from bot.service.readiness import Readiness


async def passes() -> str | None:
    return None


async def store_read_only() -> str | None:
    return "the store refuses writes: attempt to write a readonly database"


async def never_answers() -> str | None:
    await asyncio.Event().wait()
    return None


async def raises() -> str | None:
    raise RuntimeError("socket client gone")


async def test_all_checks_passing_is_ready_with_no_reasons() -> None:
    report = await Readiness({"store": passes, "slack": passes}).report()
    assert report.ready is True
    assert report.reasons == {}


async def test_a_failing_check_is_named_with_its_reason() -> None:
    report = await Readiness({"store": store_read_only, "slack": passes}).report()
    assert report.ready is False
    assert report.reasons == {
        "store": "the store refuses writes: attempt to write a readonly database"
    }


async def test_a_check_that_hangs_fails_after_the_timeout() -> None:
    report = await Readiness({"slack": never_answers}, timeout=0.05).report()
    assert report.reasons == {"slack": "no answer within 0.05 s"}


async def test_a_check_that_raises_fails_with_the_error_instead_of_a_500() -> None:
    report = await Readiness({"socket": raises}).report()
    assert report.reasons == {"socket": "RuntimeError: socket client gone"}


async def test_readyz_answers_200_when_ready_and_503_with_the_reasons_when_not() -> None:
    broken = {"yes": False}

    async def store() -> str | None:
        return "closed" if broken["yes"] else None

    readiness = Readiness({"store": store})
    app = web.Application()
    app.router.add_get("/readyz", readiness.handle)
    async with TestClient(TestServer(app)) as client:
        ok = await client.get("/readyz")
        assert (ok.status, await ok.json()) == (200, {"ready": True, "reasons": {}})
        broken["yes"] = True
        bad = await client.get("/readyz")
        assert (bad.status, await bad.json()) == (
            503,
            {"ready": False, "reasons": {"store": "closed"}},
        )


async def test_a_change_of_readiness_is_logged_once_not_on_every_probe(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="bot.service.readiness")
    readiness = Readiness({"store": store_read_only})
    await readiness.report()
    await readiness.report()
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [
        (
            "WARNING",
            "not ready: store: the store refuses writes: attempt to write a readonly database",
        )
    ]
