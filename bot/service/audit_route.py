"""`GET /v1/audit/export`: the audit export through the relay, for admin callers only.

`?since=…` (required) `&until=…` (default now) `&agent=…&person=…&outcome=…&format=csv|jsonl`
(default csv) answers the same rows as `python -m bot audit export`, streamed page by page, as
an attachment. Only the admin token or an admin credential may: the file holds every agent's
questions and answers, typed text included. Anyone else gets 403 `ADMIN_ONLY` naming who may.
Permalinks are built from auth.test's workspace URL (empty when Slack cannot say).
"""

from __future__ import annotations

from typing import Final

from aiohttp import web

from bot.asks.audit_export import (
    MEDIA_TYPES,
    ExportFormat,
    encode,
    header,
    parse_format,
    parse_outcome,
    parse_time,
    records_in,
    row_of,
)
from bot.clock import Clock, SystemClock
from bot.service.relay import RelayServer, problem
from bot.slack.workspace_url import WorkspaceUrl
from bot.store import AskStore
from bot.store.queries import AskQuery, Outcome
from provider.relay_wire import FieldProblem

PATH: Final = "/v1/audit/export"
ADMIN_ONLY: Final = "ADMIN_ONLY"


class AuditExportRoute:
    """The export route over the relay's callers (`RelayServer.caller`) and the store."""

    def __init__(
        self,
        relay: RelayServer,
        store: AskStore,
        workspace: WorkspaceUrl,
        clock: Clock | None = None,
    ) -> None:
        self._relay = relay
        self._store = store
        self._workspace = workspace
        self._clock: Clock = clock or SystemClock()

    def add_routes(self, app: web.Application) -> None:
        """Mount the route on `app`."""
        app.router.add_get(PATH, self._export)

    async def _export(self, request: web.Request) -> web.StreamResponse:
        caller = await self._relay.caller(request)
        if isinstance(caller, web.Response):
            return caller
        if not caller.admin:
            return problem(
                ADMIN_ONLY,
                f"{caller.name} may not export the audit log: only the admin token "
                "SLACK_QUESTIONS_RELAY_TOKEN or an admin credential "
                "(python -m bot credentials create --admin) may",
            )
        read = self._query(request)
        if isinstance(read, web.Response):
            return read
        query, fmt = read
        workspace = await self._workspace.get()
        response = web.StreamResponse(
            headers={
                "Content-Type": f"{MEDIA_TYPES[fmt]}; charset=utf-8",
                "Content-Disposition": f'attachment; filename="asks.{fmt.value}"',
            }
        )
        await response.prepare(request)
        await response.write(header(fmt).encode())
        async for record in records_in(self._store, query):
            await response.write("".join(encode([row_of(record, workspace)], fmt)).encode())
        await response.write_eof()
        return response

    def _query(self, request: web.Request) -> tuple[AskQuery, ExportFormat] | web.Response:
        """The query and format the request names, or the 400 naming each bad parameter."""
        params = request.query
        problems: list[FieldProblem] = []

        since: float | None = None
        until: float | None = None
        outcome: Outcome | None = None
        fmt = ExportFormat.CSV
        if "since" not in params:
            problems.append(
                FieldProblem(field="since", message="required: an ISO-8601 date or time")
            )
        else:
            try:
                since = parse_time(params["since"], "since")
            except ValueError as error:
                problems.append(FieldProblem(field="since", message=str(error)))
        try:
            until = parse_time(params["until"], "until") if "until" in params else self._clock.now()
        except ValueError as error:
            problems.append(FieldProblem(field="until", message=str(error)))
        try:
            outcome = parse_outcome(params["outcome"]) if "outcome" in params else None
        except ValueError as error:
            problems.append(FieldProblem(field="outcome", message=str(error)))
        try:
            fmt = parse_format(params["format"]) if "format" in params else ExportFormat.CSV
        except ValueError as error:
            problems.append(FieldProblem(field="format", message=str(error)))
        if problems or since is None or until is None:
            summary = "; ".join(f"{p.field}: {p.message}" for p in problems)
            return problem("INVALID_BODY", f"invalid query: {summary}", problems)
        if until <= since:
            message = f"until {params.get('until', 'now')!r} is not after since {params['since']!r}"
            return problem("INVALID_RANGE", message, [FieldProblem(field="until", message=message)])
        query = AskQuery(
            since=since,
            until=until,
            agent=params.get("agent") or None,
            person=params.get("person") or None,
            outcome=outcome,
        )
        return query, fmt
