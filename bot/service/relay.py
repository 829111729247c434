"""The relay API: agents in any process or language ask through HTTP; one table maps errors.

POST   /v1/asks              create (idempotent with idempotency_key; withdrawn after
                             expires_in seconds if nobody answered) -> 201 {id, state}
GET    /v1/asks/{id}?wait=S  state, answer or error; held open up to S <= 60 s while pending
GET    /v1/asks/watch        a WebSocket waiting on many asks at once (bot/service/relay_watch.py)
DELETE /v1/asks/{id}         withdraw -> ASK_ABORTED
GET    /v1/asks?state=…      list, newest first
GET    /v1/openapi.json      this API, described

Every route but the document first turns the bearer token into a `Principal`
(bot/service/principals.py): an agent credential reaches only its own agents' asks (another
agent's is 404, as an unknown id, so ids are not confirmed), asks only under its agent ids
(403 AGENT_NOT_ALLOWED), only where `Routing` lets it (403 ROUTE_NOT_ALLOWED), and within its
`Limits` (429 RATE_LIMITED with Retry-After). Idempotency keys are scoped per agent.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Final

from aiohttp import web
from pydantic import ValidationError

from bot.asks.lifecycle import Asks
from bot.asks.posting import Posting
from bot.block_ids import parse_number
from bot.clock import Clock, SystemClock
from bot.metrics import Metrics
from bot.review import REQUESTER_ID
from bot.service.limits import Limits, RateLimited
from bot.service.openapi import openapi_document
from bot.service.principals import Principal, Principals, Refusal
from bot.service.relay_watch import WATCH_PATH, AskWatches
from bot.service.routing import RouteRefused, Routing
from bot.store import AskRecord, ThreadRef, Verdict
from bot.tasks import Tasks
from provider import AskUserQuestionRequest, ErrorCode, UserQuestionError
from provider.relay_wire import (
    IDEMPOTENCY_CONFLICT,
    MAX_WAIT_SECONDS,
    NOT_UNIQUE,
    STATUS_OF_CODE,
    UNIQUENESS_ERRORS,
    AgentRef,
    AskDetail,
    AskList,
    AskState,
    AskSummary,
    AskView,
    CreateAsk,
    ErrorBody,
    FieldProblem,
    Problem,
)
from provider.service import check_request
from provider.types import field_errors

log = logging.getLogger(__name__)

MAX_BODY_BYTES: Final = 256 * 1024
LIST_LIMIT_MAX: Final = 500

Links = Callable[[list[AskRecord]], Awaitable[dict[str, str]]]
"""Ask id -> permalink of its first Slack message, for the asks given (those it can find)."""


AGENT_NOT_ALLOWED: Final = "AGENT_NOT_ALLOWED"


def problem(
    code: str,
    message: str,
    fields: list[FieldProblem] | None = None,
    *,
    retry_after: int | None = None,
) -> web.Response:
    """A 4xx/5xx response in the relay's error shape, its status from `STATUS_OF_CODE`."""
    name = "UserQuestionError" if code in ErrorCode.__members__ else "RelayError"
    body = Problem(error=ErrorBody(name=name, code=code, message=message), fields=fields or [])
    status = STATUS_OF_CODE.get(code, 400)
    if status in (400, 401, 403, 413):
        # A client's garbage: one line, no traceback (an unknown id, 404, is normal polling).
        log.warning("relay refused a request (%d %s): %s", status, code, message)
    response = web.json_response(body.to_wire(), status=status)
    if code == "UNAUTHORIZED":
        response.headers["WWW-Authenticate"] = 'Bearer realm="slack-questions"'
    if retry_after is not None:
        response.headers["Retry-After"] = str(retry_after)
    return response


def view_of(record: AskRecord) -> AskView:
    """What the relay says about a stored ask."""
    error = None
    if record.error is not None:
        error = ErrorBody(
            name=record.error.name, code=record.error.code, message=record.error.message
        )
    return AskView(
        id=record.id,
        state=record.state,
        answer=record.answer,
        error=error,
        decided_by=record.decided_by,
        detail=AskDetail.QUEUED if record.queued else None,
        policy=record.policy,
    )


class RelayServer:
    """Relay routes over `Asks`; requests are checked like the seam's own service checks."""

    def __init__(
        self,
        asks: Asks,
        posting: Posting,
        tasks: Tasks,
        principals: Principals,
        routing: Routing,
        limits: Limits,
        *,
        metrics: Metrics | None = None,
        links: Links | None = None,
        clock: Clock | None = None,
    ) -> None:
        self._asks = asks
        self._posting = posting
        self._tasks = tasks
        self._principals = principals
        self._routing = routing
        self._limits = limits
        self.limits = limits  # read by tests and operators: the waits held now
        self._closing = False
        # The deadlines of the waits held open now: `close()` brings them forward.
        self._deadlines: set[asyncio.Timeout] = set()
        self._metrics = metrics
        self._links = links
        self._clock: Clock = clock or SystemClock()
        self.watches = AskWatches(
            asks, limits, tasks, self._caller, view_of, problem, metrics=metrics
        )

    def add_routes(self, app: web.Application) -> None:
        """Mount the relay on `app` (its `client_max_size` should be `MAX_BODY_BYTES`)."""
        app.router.add_get("/v1/openapi.json", self._openapi)
        app.router.add_post("/v1/asks", self._create)
        app.router.add_get("/v1/asks", self._list)
        app.router.add_get(WATCH_PATH, self.watches.handle)  # before {id}, which would match it
        app.router.add_get("/v1/asks/{id}", self._get)
        app.router.add_delete("/v1/asks/{id}", self._delete)

    def close(self) -> None:
        """Answer every held-open wait now, with the ask as it stands, for a quick shutdown;
        from now on a wait answers at once. Watch sockets close with 1001 (going away)."""
        self._closing = True
        self.watches.close()
        now = asyncio.get_running_loop().time()
        for deadline in self._deadlines:
            if not deadline.expired():
                deadline.reschedule(now)

    async def caller(self, request: web.Request) -> Principal | web.Response:
        """Who is calling, or the answer refusing the request (`_caller`): for the routes
        that stand beside the relay's own (bot/service/audit_route.py)."""
        return await self._caller(request)

    async def _caller(self, request: web.Request) -> Principal | web.Response:
        """Who is calling; or the answer to a request the relay must not serve (it is
        disabled, or the bearer token is missing, wrong or revoked).

        Called first by each route, not wrapped around it: a wrapper's frame would stay
        alive for as long as a wait is held."""
        try:
            found = await self._principals.of(request.headers.get("Authorization", ""))
        except Exception as error:  # whatever the store raised: nobody is let in on a doubt
            log.error("relay cannot check a caller's credential: the store failed: %r", error)
            return problem(
                "STORE_UNAVAILABLE",
                "cannot check your credential now: the store failed; try again shortly",
                retry_after=1,
            )
        if isinstance(found, Refusal):
            return problem(found.code, found.message)
        return found

    async def _openapi(self, request: web.Request) -> web.Response:
        return web.json_response(openapi_document())

    async def _create(self, request: web.Request) -> web.Response:
        caller = await self._caller(request)
        if isinstance(caller, web.Response):
            return caller
        try:
            raw = await request.read()
        except web.HTTPRequestEntityTooLarge:
            return problem("BODY_TOO_LARGE", f"the body is over {MAX_BODY_BYTES} bytes")
        try:
            body = CreateAsk.model_validate_json(raw)
        except ValidationError as error:
            return _invalid(error)
        agent_id = _agent_of(caller, body)
        if agent_id is None and not caller.admin:
            return _agent_refused(caller, body)
        requester = _requester_of(caller, body)
        if isinstance(requester, web.Response):
            return requester
        ask_request = body.request()
        asked = (
            ThreadRef(channel=body.thread.channel, thread_ts=body.thread.thread_ts)
            if body.thread
            else None
        )
        try:
            check_request(ask_request)
            route = await self._routing.route(caller, asked, agent_id)
            await self._limits.check_pending(caller)
            refund = self._limits.take_create(caller)
            record, created = await self._asks.create(
                ask_request,
                agent_id=agent_id,
                agent_name=body.agent.name if body.agent else None,
                idempotency_key=_scoped(agent_id, body.idempotency_key),
                route=route,
                expires_in=body.expires_in,
                requester=requester,
            )
        except UserQuestionError as error:
            return problem(error.code, error.message, _fields_of(error, ask_request))
        except RouteRefused as error:
            return problem(
                error.code, str(error), [FieldProblem(field="thread", message=str(error))]
            )
        except RateLimited as error:
            return problem(error.code, error.message, retry_after=error.retry_after)
        if not created:
            refund()  # an idempotent retry made no new ask
            if not _same_ask(record, body, agent_id, route) or record.requester != requester:
                return problem(
                    IDEMPOTENCY_CONFLICT,
                    f"idempotency_key {body.idempotency_key!r} already made ask {record.id} "
                    "with a different body; use a new key for a new ask",
                )
        if record.state is AskState.PENDING:
            # Answered 201 once stored; posting follows in its channel's queue (and is
            # retried on restart).
            self._posting.post_soon(record.id)
        return web.json_response(view_of(record).to_wire(), status=201 if created else 200)

    async def _get(self, request: web.Request) -> web.Response:
        caller = await self._caller(request)
        if isinstance(caller, web.Response):
            return caller
        ask_id = request.match_info["id"]
        wait = request.query.get("wait", "0")
        try:
            seconds = float(wait)
        except ValueError:
            seconds = -1
        if not 0 <= seconds <= MAX_WAIT_SECONDS:
            return problem(
                "INVALID_BODY",
                f"wait must be a number of seconds from 0 to {MAX_WAIT_SECONDS}",
                [FieldProblem(field="wait", message=f"got {wait!r}")],
            )
        if seconds > 0 and not self._closing:
            if not caller.admin:
                # Whose it is never changes: the live copy, if any, says so without a read.
                mine = await self._asks.record(ask_id)
                if mine is None or not caller.owns(mine):
                    return problem("NOT_FOUND", f"no ask {ask_id}")
            try:
                with self._limits.wait_held(caller):
                    record = await self._held(ask_id, seconds)
            except RateLimited as error:
                return problem(error.code, error.message, retry_after=error.retry_after)
        else:
            record = await self._asks.stored(ask_id)
        if record is None or not caller.owns(record):
            return problem("NOT_FOUND", f"no ask {ask_id}")
        return web.json_response(view_of(record).to_wire())

    async def _held(self, ask_id: str, seconds: float) -> AskRecord | None:
        """The ask once settled, or as it stands when `seconds` pass or the relay closes;
        None if there is no such ask.

        Held in this request's own task, no other: in one process nothing is read, the
        settle hands the record over and it is answered as is (with replicas, `Asks.wait`
        reads and notifications wake it). One deadline per request, which `close()` can
        bring forward."""
        metrics = self._metrics
        if metrics is not None:
            metrics.relay_waiters.inc()  # not the context manager: one object less each
        try:
            async with asyncio.timeout(seconds) as deadline:
                self._deadlines.add(deadline)
                try:
                    return await self._asks.wait(ask_id)
                finally:
                    self._deadlines.discard(deadline)
        except KeyError:
            return None
        except TimeoutError:
            if not deadline.expired():
                raise
        finally:
            if metrics is not None:
                metrics.relay_waiters.dec()
        # Still pending: its live copy says how it stands (a read only if not held here).
        return await self._asks.record(ask_id)

    async def _delete(self, request: web.Request) -> web.Response:
        caller = await self._caller(request)
        if isinstance(caller, web.Response):
            return caller
        ask_id = request.match_info["id"]
        stored = await self._asks.stored(ask_id)
        if stored is None or not caller.owns(stored):
            return problem("NOT_FOUND", f"no ask {ask_id}")
        await self._asks.held(ask_id)  # made or posted by another replica: take it in hand
        await self._asks.settle(
            ask_id, Verdict.WITHDRAWN, reason="the agent withdrew it through the relay"
        )
        # If someone else was settling it at that moment, report their decision once saved.
        record = await self._asks.wait(ask_id)
        return web.json_response(view_of(record).to_wire())

    async def _list(self, request: web.Request) -> web.Response:
        caller = await self._caller(request)
        if isinstance(caller, web.Response):
            return caller
        state = request.query.get("state")
        limit_text = request.query.get("limit", "100")
        problems = []
        if state is not None and state not in AskState.__members__.values():
            problems.append(FieldProblem(field="state", message="pending, answered or failed"))
        limit = parse_number(limit_text)
        if limit is None or not 1 <= limit <= LIST_LIMIT_MAX:
            problems.append(FieldProblem(field="limit", message=f"1 to {LIST_LIMIT_MAX}"))
        if problems:
            return problem("INVALID_BODY", "invalid query", problems)
        assert limit is not None
        records = await self._asks.recent(
            state=AskState(state) if state else None,
            limit=limit,
            agents=None if caller.admin else caller.agents,
        )
        links = await self._links(records) if self._links is not None else {}
        now = self._clock.now()
        return web.json_response(
            AskList(asks=[summary_of(r, links.get(r.id), now) for r in records]).to_wire()
        )


def summary_of(record: AskRecord, permalink: str | None, now: float) -> AskSummary:
    """What the relay's list says about an ask: its view, who asked, the question texts,
    where it is in Slack and its age."""
    agent = AgentRef(id=record.agent_id, name=record.agent_name) if record.agent_id else None
    return AskSummary(
        **view_of(record).model_dump(),
        agent=agent,
        questions=[q.question for q in record.questions],
        permalink=permalink,
        age_seconds=round(max(now - record.created_at, 0.0), 3),
    )


def _fields_of(error: UserQuestionError, request: AskUserQuestionRequest) -> list[FieldProblem]:
    """The field a seam check refused, so a 400 names it as every other 400 does."""
    if error.code == ErrorCode.EMPTY_QUESTIONS:
        return [FieldProblem(field="questions", message="at least one question is required")]
    if error.code != ErrorCode.BAD_INTENT:
        return []
    for index, question in enumerate(request.questions):
        if question.intent is None:
            continue
        labels = [option.label for option in question.options or []]
        if question.intent.label not in labels:
            return [
                FieldProblem(
                    field=f"questions.{index}.intent.{question.intent.label_field}",
                    message=f"names none of the options: {', '.join(map(repr, labels)) or 'none'}",
                )
            ]
        if question.intent.kind == "plan-review" and not question.detail:
            return [
                FieldProblem(
                    field=f"questions.{index}.detail", message="the plan to review is missing"
                )
            ]
    return []


def _agent_of(caller: Principal, body: CreateAsk) -> str | None:
    """The agent id the ask is made under: the one named, if the caller may act as it; a
    credential's only agent when none is named; else None (the admin: no agent)."""
    if body.agent is not None:
        return body.agent.id if caller.may_act_as(body.agent.id) else None
    if not caller.admin and len(caller.agents) == 1:
        return next(iter(caller.agents))
    return None


def _agent_refused(caller: Principal, body: CreateAsk) -> web.Response:
    allowed = ", ".join(sorted(caller.agents)) or "none"
    if body.agent is None:
        message = f"{caller.name} acts for several agents: name one in agent.id ({allowed})"
    else:
        message = f"{caller.name} may not ask as agent {body.agent.id!r}; it may ask as: {allowed}"
    return problem(AGENT_NOT_ALLOWED, message, [FieldProblem(field="agent.id", message=message)])


def _requester_of(caller: Principal, body: CreateAsk) -> str | web.Response | None:
    """The person the ask is on behalf of: the one the credential pins (a request naming
    another is refused, 403), else the one `agent.requester` names (a Slack user id), else
    None; or the response refusing the request."""
    named = body.agent.requester if body.agent else None
    if named is not None and not REQUESTER_ID.match(named):
        message = f"agent.requester {named!r} is not a Slack user id (U… or W…)"
        return problem(
            "INVALID_BODY", message, [FieldProblem(field="agent.requester", message=message)]
        )
    if caller.requester is None:
        return named
    if named is not None and named != caller.requester:
        message = (
            f"{caller.name} asks on behalf of {caller.requester} only, not {named}: leave "
            "agent.requester out or name that user"
        )
        return problem(
            AGENT_NOT_ALLOWED, message, [FieldProblem(field="agent.requester", message=message)]
        )
    return caller.requester


def _scoped(agent_id: str | None, key: str | None) -> str | None:
    """The idempotency key as stored: per agent, so one agent's key never finds (nor
    confirms) another agent's ask. The length prefix keeps `a`+`b:c` apart from `a:b`+`c`."""
    if key is None:
        return None
    agent = agent_id or ""
    return f"{len(agent)}:{agent}:{key}"


def _same_ask(
    record: AskRecord, body: CreateAsk, agent_id: str | None, route: ThreadRef | None
) -> bool:
    """Whether a retried create asks what the stored ask asked: same questions, same agent,
    and the same route when it names one (an ask without one gets its channel later)."""
    agent = body.agent
    same = (
        record.questions == body.questions
        and record.agent_id == agent_id
        and record.agent_name == (agent.name if agent else None)
    )
    if route is not None:
        same = same and (record.channel, record.thread_ts) == (route.channel, route.thread_ts)
    return same


def _invalid(error: ValidationError) -> web.Response:
    fields = [FieldProblem(field=f, message=m) for f, m in field_errors(error)]
    summary = "; ".join(f"{f.field}: {f.message}" for f in fields)
    if all(e["type"] in UNIQUENESS_ERRORS for e in error.errors()):
        return problem(NOT_UNIQUE, f"invalid ask: {summary}", fields)
    return problem("INVALID_BODY", f"invalid ask: {summary}", fields)


__all__ = ["MAX_BODY_BYTES", "RelayServer"]
