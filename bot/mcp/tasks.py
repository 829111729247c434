"""The MCP Tasks extension (`io.modelcontextprotocol/tasks`, 2026-07-28) for `ask_user_question`.

A client that declares the extension in a request's capabilities gets a task at once instead
of a call held open for as long as people take: the task id is the relay's ask id, so the
task is as durable as the ask (kept by the service, not this process) and any MCP server
process on the same relay answers `tasks/get` and `tasks/cancel` for it. Without the
extension the desk's blocking call with progress is left exactly as it is.
"""

from __future__ import annotations

import contextvars
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final, Literal

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension, MethodBinding
from mcp.shared.exceptions import MCPError
from mcp_types import CLIENT_CAPABILITIES_META_KEY, CallToolRequestParams, RequestParams
from mcp_types.jsonrpc import INVALID_PARAMS, MISSING_REQUIRED_CLIENT_CAPABILITY
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel, ConfigDict, Field

from provider import ErrorCode, UserQuestionError
from provider.relay_wire import AskDetail, AskState, AskView
from provider.tool import NAME

EXTENSION: Final = "io.modelcontextprotocol/tasks"
# People take minutes: polling faster than this would only load the relay.
POLL_INTERVAL_MS: Final = 5000
# The relay's ask ids (bot.asks.lifecycle.new_ask_id): anything else is no task of ours, and
# is refused before it reaches the relay's URL.
_ASK_ID: Final = re.compile(r"^[0-9a-f]{16}$")

TaskStatus = Literal["working", "input_required", "completed", "cancelled", "failed"]


class TaskIdParams(RequestParams):
    """`tasks/get`, `tasks/cancel` (and `tasks/update`): which task."""

    model_config = ConfigDict(populate_by_name=True, extra="allow")

    task_id: str = Field(alias="taskId")


class Task(BaseModel):
    """The spec's `Task` (and `DetailedTask`, with `result` when completed), as on the wire."""

    model_config = ConfigDict(populate_by_name=True)

    result_type: Literal["task", "complete"] = Field(alias="resultType")
    task_id: str = Field(alias="taskId")
    status: TaskStatus
    status_message: str | None = Field(default=None, alias="statusMessage")
    created_at: str = Field(alias="createdAt")
    last_updated_at: str = Field(alias="lastUpdatedAt")
    # Null: the ask lives until it is answered, withdrawn or expires in the service.
    ttl_ms: int | None = Field(alias="ttlMs")
    poll_interval_ms: int | None = Field(default=None, alias="pollIntervalMs")
    result: dict[str, Any] | None = None

    def to_wire(self) -> dict[str, Any]:
        """The JSON-RPC result: camelCase, absent fields left out (`ttlMs` stays, null)."""
        wire = self.model_dump(by_alias=True, exclude_none=True)
        wire["ttlMs"] = self.ttl_ms
        return wire


@dataclass
class TaskSlot:
    """Set by the interceptor for one `tools/call` of a declaring client; the tool fills
    `created` when it made a task instead of waiting."""

    created: Task | None = None


_SLOT: contextvars.ContextVar[TaskSlot | None] = contextvars.ContextVar("task_slot", default=None)


def task_slot() -> TaskSlot | None:
    """The slot of the `tools/call` being served, when its client declared the extension."""
    return _SLOT.get()


def declares_tasks(ctx: ServerRequestContext[Any, Any]) -> bool:
    """Whether this request's own capabilities declare the extension (2026-07-28 envelopes
    only: a task is 2026 vocabulary, and the spec asks for the declaration per request)."""
    if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS or ctx.meta is None:
        return False
    capabilities = ctx.meta.get(CLIENT_CAPABILITIES_META_KEY)
    if not isinstance(capabilities, dict):
        return False
    extensions = capabilities.get("extensions")
    return isinstance(extensions, dict) and EXTENSION in extensions


def now() -> str:
    """An ISO 8601 timestamp, as the spec's `createdAt` and `lastUpdatedAt` are."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


ToolResultOf = Callable[[AskView], dict[str, Any]]


@dataclass
class TaskBook:
    """Turns the relay's asks into tasks: what `tasks/get` and `tasks/cancel` answer."""

    poll: Callable[[str], Awaitable[AskView]]
    withdraw: Callable[[str], Awaitable[AskView]]
    result_of: ToolResultOf  # the blocking call's CallToolResult for a settled ask, as JSON
    where: str = "Slack"
    # When the asks made by this process were created; another process's get the time it
    # first saw them (the relay's view carries no timestamps).
    _created: dict[str, str] = field(default_factory=dict)

    def created(self, view: AskView) -> Task:
        """The `CreateTaskResult` for an ask just made."""
        self._created[view.id] = now()
        return self.task_of(view, result_type="task")

    def task_of(self, view: AskView, *, result_type: Literal["task", "complete"]) -> Task:
        """The task an ask's view stands for."""
        stamp = now()
        created = self._created.setdefault(view.id, stamp)
        status, message, result = self._status_of(view)
        return Task(
            result_type=result_type,
            task_id=view.id,
            status=status,
            status_message=message,
            created_at=created,
            last_updated_at=stamp,
            ttl_ms=None,
            poll_interval_ms=POLL_INTERVAL_MS,
            result=result,
        )

    def _status_of(self, view: AskView) -> tuple[TaskStatus, str, dict[str, Any] | None]:
        if view.state is AskState.PENDING:
            if view.detail is AskDetail.QUEUED:
                return "working", f"queued to be posted in {self.where}", None
            return "working", f"waiting for an answer in {self.where}", None
        aborted = view.error is not None and view.error.code == ErrorCode.ASK_ABORTED
        if view.state is AskState.FAILED and view.error is not None and aborted:
            return "cancelled", view.error.message, None
        # Answered, or failed otherwise (expired, declined…): the blocking call's result,
        # an isError one for a failure, which the spec files under "completed".
        message = "answered" if view.state is AskState.ANSWERED else "ended without an answer"
        return "completed", message, self.result_of(view)

    async def get(self, ask_id: str) -> Task:
        """`tasks/get`: the task's status now (never held open: the client polls)."""
        view = await self._relay_call(self.poll, ask_id)
        return self.task_of(view, result_type="complete")

    async def cancel(self, ask_id: str) -> None:
        """`tasks/cancel`: withdraw the ask (people see it was withdrawn); an answer that
        came first stands."""
        await self._relay_call(self.withdraw, ask_id)

    async def _relay_call(self, call: Callable[[str], Awaitable[AskView]], ask_id: str) -> AskView:
        if not _ASK_ID.match(ask_id):
            raise _not_found()
        try:
            view = await call(ask_id)
        except UserQuestionError as error:
            # The relay's 404 is the spec's "no such task"; anything else is its outage.
            if "HTTP 404" in error.message:
                raise _not_found() from None
            raise MCPError(code=-32603, message=f"the relay failed: {error.message}") from None
        if view.id != ask_id:
            raise MCPError(code=-32603, message="the relay answered for another ask")
        return view


def _not_found() -> MCPError:
    return MCPError(code=INVALID_PARAMS, message="Failed to retrieve task: Task not found")


def _missing_capability() -> MCPError:
    return MCPError(
        code=MISSING_REQUIRED_CLIENT_CAPABILITY,
        message="Missing required client capability",
        data={"requiredCapabilities": {"extensions": {EXTENSION: {}}}},
    )


class TasksExtension(Extension):
    """Serves `tasks/get`, `tasks/update` and `tasks/cancel`, and lets `ask_user_question`
    answer a declaring client with a task."""

    identifier = EXTENSION

    def __init__(self, book: TaskBook) -> None:
        self._book = book

    def methods(self) -> Sequence[MethodBinding]:
        """The extension's three request methods, 2026-07-28 envelopes only."""
        modern = frozenset(MODERN_PROTOCOL_VERSIONS)
        return (
            MethodBinding("tasks/get", TaskIdParams, self._get, protocol_versions=modern),
            MethodBinding("tasks/update", TaskIdParams, self._update, protocol_versions=modern),
            MethodBinding("tasks/cancel", TaskIdParams, self._cancel, protocol_versions=modern),
        )

    async def intercept_tool_call(
        self,
        params: CallToolRequestParams,
        ctx: ServerRequestContext[Any, Any],
        call_next: CallNext,
    ) -> HandlerResult:
        """For a declaring client's `ask_user_question`, the task the tool made (if it made
        one: invalid arguments still get their error result at once)."""
        if params.name != NAME or not declares_tasks(ctx):
            return await call_next(ctx)
        slot = TaskSlot()
        token = _SLOT.set(slot)
        try:
            result = await call_next(ctx)
        finally:
            _SLOT.reset(token)
        return slot.created.to_wire() if slot.created is not None else result

    async def _get(self, ctx: ServerRequestContext[Any, Any], params: Any) -> HandlerResult:
        if not declares_tasks(ctx):
            raise _missing_capability()
        return (await self._book.get(_task_id(params))).to_wire()

    async def _update(self, ctx: ServerRequestContext[Any, Any], params: Any) -> HandlerResult:
        # Our tasks never ask the client for input: known tasks are acknowledged, and the
        # responses ignored, as the spec says for keys that are not outstanding.
        if not declares_tasks(ctx):
            raise _missing_capability()
        await self._book.get(_task_id(params))
        return {}

    async def _cancel(self, ctx: ServerRequestContext[Any, Any], params: Any) -> HandlerResult:
        if not declares_tasks(ctx):
            raise _missing_capability()
        await self._book.cancel(_task_id(params))
        return {}


def _task_id(params: Any) -> str:
    if not isinstance(params, TaskIdParams):  # pragma: no cover - the binding validates
        raise MCPError(code=INVALID_PARAMS, message="taskId is required")
    return params.task_id
