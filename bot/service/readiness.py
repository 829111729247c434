"""`/readyz`: whether the service can do its work now — unlike `/healthz`, which only says the
process answers.

Ready means every check passes: the store takes a write, Slack answers (the last Web API call
succeeded, or `auth.test` does now), and in Socket Mode the socket is connected. Otherwise
503 with the reason of each failing check, so an orchestrator stops routing to this replica
and a person sees why.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Final

from aiohttp import web
from pydantic import BaseModel

log = logging.getLogger(__name__)

Check = Callable[[], Awaitable[str | None]]
"""One readiness check: None when it passes, else why it does not (one line)."""

CHECK_TIMEOUT_SECONDS: Final = 3.0
"""A check that takes longer fails: a probe must answer before its caller gives up."""


class ReadinessReport(BaseModel):
    """The body of `/readyz`: ready, and the reason of every failing check by name."""

    ready: bool
    reasons: dict[str, str]


class Readiness:
    """The named checks `/readyz` runs, all at once, each within `timeout` seconds."""

    def __init__(self, checks: Mapping[str, Check], *, timeout: float = CHECK_TIMEOUT_SECONDS):
        self._checks = dict(checks)
        self._timeout = timeout
        self._last_ready: bool | None = None

    def add(self, name: str, check: Check) -> None:
        """Also run `check` (e.g. the Socket Mode connection, once it is opened)."""
        self._checks[name] = check

    async def report(self) -> ReadinessReport:
        """Run every check; the report names each that failed."""
        names = list(self._checks)
        results = await asyncio.gather(*(self._run(name) for name in names))
        reasons = {name: why for name, why in zip(names, results, strict=True) if why is not None}
        ready = not reasons
        if ready != self._last_ready:
            # Once per change, not once per probe: a probe every few seconds would bury it.
            if ready:
                log.info("ready")
            else:
                log.warning(
                    "not ready: %s", "; ".join(f"{name}: {why}" for name, why in reasons.items())
                )
            self._last_ready = ready
        return ReadinessReport(ready=ready, reasons=reasons)

    async def _run(self, name: str) -> str | None:
        try:
            async with asyncio.timeout(self._timeout):
                return await self._checks[name]()
        except TimeoutError:
            return f"no answer within {self._timeout:g} s"
        except Exception as error:  # a broken check is a failing check, never a 500
            return f"{type(error).__name__}: {error}"

    async def handle(self, request: web.Request) -> web.Response:
        """`GET /readyz`: 200 `{"ready": true, "reasons": {}}`, or 503 with the reasons."""
        report = await self.report()
        return web.json_response(report.model_dump(), status=200 if report.ready else 503)
