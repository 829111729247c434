"""A client side of MCP Tasks for the tests, on the SDK's own `Client`: the extension declared,
the `CreateTaskResult` claimed, and `tasks/get` / `tasks/cancel` sent as typed requests."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from mcp import Client
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp_types import CallToolResult, Implementation, Request, RequestParams, Result

from bot.mcp.desk import QuestionDesk
from bot.mcp.tasks import EXTENSION

MODERN = "2026-07-28"


class TaskResult(Result):
    """`CreateTaskResult` (resultType "task") and `GetTaskResult` (resultType "complete")."""

    result_type: Literal["task", "complete"]
    task_id: str
    status: str
    status_message: str | None = None
    created_at: str
    last_updated_at: str
    ttl_ms: int | None
    poll_interval_ms: int | None = None
    result: dict[str, Any] | None = None


class CreatedTask(TaskResult):
    """The claimed shape of a `tools/call` that made a task."""

    result_type: Literal["task"]


class Acknowledged(Result):
    """`tasks/cancel`'s empty acknowledgement."""

    result_type: Literal["complete"]


class TaskIdParams(RequestParams):
    task_id: str


class GetTask(Request[TaskIdParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    name_param = "taskId"


class CancelTask(Request[TaskIdParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    name_param = "taskId"


async def _unresolved(result: CreatedTask, ctx: ClaimContext) -> CallToolResult:
    raise AssertionError("the tests take the task themselves (allow_claimed=True)")


class TasksClientExtension(ClientExtension):
    """Declares `io.modelcontextprotocol/tasks` and claims its `CreateTaskResult`."""

    identifier = EXTENSION

    def claims(self) -> Sequence[ResultClaim[Any]]:
        return (ResultClaim(result_type="task", model=CreatedTask, resolve=_unresolved),)


def tasks_client(server: QuestionDesk | Any, *, declares: bool = True) -> Client:
    """A 2026-07-28 client of a desk (in process) or of a transport such as `stdio_client`,
    declaring the extension unless `declares` is False."""
    return Client(
        server.server if isinstance(server, QuestionDesk) else server,
        mode=MODERN,
        client_info=Implementation(name="claude-code", version="2.1.332"),
        extensions=[TasksClientExtension()] if declares else None,
    )


async def call_as_task(mcp: Client, name: str, arguments: dict[str, Any]) -> Result:
    """`tools/call`, keeping a claimed task as it came."""
    return await mcp.session.call_tool(name, arguments, allow_claimed=True)


async def get_task(mcp: Client, task_id: str) -> TaskResult:
    """`tasks/get`."""
    return await mcp.session.send_request(GetTask(params=TaskIdParams(task_id=task_id)), TaskResult)


async def cancel_task(mcp: Client, task_id: str) -> Acknowledged:
    """`tasks/cancel`."""
    return await mcp.session.send_request(
        CancelTask(params=TaskIdParams(task_id=task_id)), Acknowledged
    )
