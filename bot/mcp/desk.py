"""The MCP server's tools: `ask_user_question`, and start/get/withdraw for clients that cut calls.

Every question goes through a relay (`RelayProvider`): a running service's, or the one an
in-process Socket Mode service listens with on loopback. `ask_user_question` is the seam's
tool itself (its name, description and schema) over a `UserQuestionService`; the step tools
hold the relay's ask id, and reach only the asks this server started: the relay token lets
this process see every ask, its clients must not.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import dataclass
from importlib.metadata import version as package_version
from types import TracebackType
from typing import Annotated, Any, Final

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.tools import Tool
from mcp_types import CallToolResult, TextContent
from pydantic import Field

from bot.mcp.calls import SharedCalls, call_key
from bot.mcp.guard import HttpAccess, StaticTokenVerifier, bearer_auth_settings
from bot.mcp.sessions import AgentSessions
from bot.mcp.tasks import TaskBook, TasksExtension, task_slot
from provider import (
    AgentRegistry,
    AskUserQuestionRequest,
    ErrorCode,
    RelayProvider,
    UserQuestionError,
    UserQuestionService,
    ask_user_question_tool,
)
from provider.relay_client import error_of
from provider.relay_wire import AskState, AskView
from provider.tool import DESCRIPTION, NAME, PARAMETERS, ToolResult

PROGRESS_EVERY_SECONDS: Final = 15.0
MAX_WAIT_SECONDS: Final = 50
# How long a cancelled call waits for its withdrawal before letting the cancellation through.
WITHDRAW_WITHIN_SECONDS: Final = 10.0

INSTRUCTIONS: Final = (
    "Asks people in Slack and returns their structured answer. Use ask_user_question when "
    "your client lets a tool call run for as long as people take. If your client ends long "
    "tool calls (after a minute or a few), use start_question, then get_answer until its "
    "state is no longer pending, and withdraw_question for a question you no longer need."
)
START_DESCRIPTION: Final = (
    "Start asking people in Slack without waiting for the answer: the same questions as "
    "ask_user_question. Returns {ask_id}; collect the answer with get_answer."
)
GET_DESCRIPTION: Final = (
    "Wait up to wait_seconds (at most 50) for the answer to a question started with "
    'start_question. Returns {state: "pending"|"answered"|"failed", answer?, error?}; '
    "while it is pending, call again."
)
WITHDRAW_DESCRIPTION: Final = (
    "Withdraw a question started with start_question that is no longer needed (people see "
    "it was withdrawn). Returns its final {state, answer?, error?}: an answer that came first wins."
)


@dataclass(frozen=True)
class DeskOptions:
    """How the desk names its agents and words its progress."""

    agent_name: str | None = None  # SLACK_QUESTIONS_AGENT_NAME
    # SLACK_QUESTIONS_AGENT_ID: the agent the relay credential names (sessions ask under it).
    agent_id: str | None = None
    # SLACK_QUESTIONS_REQUESTER: the Slack user every session acts for (policies may refuse
    # their approval of their own agent's tools and plans).
    requester: str | None = None
    where: str = "Slack"  # "#agent-questions" when the channel's name is known
    progress_every: float = PROGRESS_EVERY_SECONDS
    # `--http`: with SLACK_QUESTIONS_MCP_TOKEN, every request must carry it as a bearer token.
    http: HttpAccess | None = None


class QuestionDesk:
    """The MCP server (`desk.server`) and what its tools share; `close()` withdraws calls in flight."""

    def __init__(self, relay: RelayProvider, options: DeskOptions | None = None) -> None:
        self._relay = relay
        self._options = options or DeskOptions()
        registry = AgentRegistry()
        self._service = UserQuestionService(registry)
        self._dispose = self._service.register_provider(relay)
        self._tool = ask_user_question_tool(self._service)
        self._sessions = AgentSessions(
            registry,
            self._options.agent_name,
            self._options.agent_id,
            requester=self._options.requester,
        )
        self._calls = SharedCalls()
        # How many asks each started-question key has already used (see `_start`).
        self._occurrences: dict[str, int] = {}
        # The asks start_question made here: the only ids get_answer and withdraw_question
        # reach, so a caller cannot read or withdraw another agent's ask by its id.
        self._started: set[str] = set()
        # MCP Tasks: a declaring client's ask_user_question becomes a task (its ask's id).
        self._tasks = TaskBook(
            poll=lambda ask_id: relay.poll(ask_id, wait_seconds=0),
            withdraw=relay.withdraw,
            result_of=_settled_result,
            where=self._options.where,
        )
        http = self._options.http
        token = http.token if http is not None else None
        self.server: MCPServer[Any] = MCPServer(
            "slack-questions",
            # Clients show and log it; an empty one reads as a broken server.
            version=package_version("slack-questions"),
            instructions=INSTRUCTIONS,
            tools=self._tools(),
            extensions=[TasksExtension(self._tasks)],
            token_verifier=StaticTokenVerifier(token) if token is not None else None,
            auth=bearer_auth_settings(http.url) if http is not None and token is not None else None,
        )

    async def __aenter__(self) -> QuestionDesk:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def close(self) -> None:
        """Withdraw the blocking calls still waiting, then leave the service."""
        await self._calls.close("the MCP server shut down")
        self._dispose()

    def _tools(self) -> list[Tool]:
        def seam_schema(tool: Tool) -> Tool:
            # The seam's schema exactly, not one derived from the Python signature.
            return tool.model_copy(update={"parameters": dict(PARAMETERS)})

        return [
            seam_schema(
                Tool.from_function(self.ask_user_question, name=NAME, description=DESCRIPTION)
            ),
            seam_schema(
                Tool.from_function(
                    self.start_question, name="start_question", description=START_DESCRIPTION
                )
            ),
            Tool.from_function(self.get_answer, name="get_answer", description=GET_DESCRIPTION),
            Tool.from_function(
                self.withdraw_question, name="withdraw_question", description=WITHDRAW_DESCRIPTION
            ),
        ]

    # --- the tools ------------------------------------------------------------------------

    async def ask_user_question(
        self, ctx: Context[Any, Any], questions: Any = None
    ) -> CallToolResult:
        """Ask and wait for the answer, with progress; cancelling the call withdraws the ask.
        A client that declared MCP Tasks gets a task instead (`bot.mcp.tasks`)."""
        agent = self._sessions.agent_for(ctx)
        arguments = {"questions": questions}
        slot = task_slot()
        if slot is not None:
            request = self._tool.request_of(arguments, agent=agent)
            if isinstance(request, ToolResult):
                return _tool_result(request)
            try:
                self._service.check(request)
                view = await self._start(request, call_key(agent.id, arguments))
            except UserQuestionError as error:
                return _error_result(error)
            # The interceptor answers with this task; the ask is already durable in the
            # service, as the spec requires before a CreateTaskResult.
            slot.created = self._tasks.created(view)
            return _json_result({"ask_id": view.id})
        call = self._calls.join(
            call_key(agent.id, arguments),
            lambda signal: self._tool.execute(arguments, agent=agent, signal=signal),
        )
        try:
            result = await self._with_progress(call.task, ctx)
        except BaseException:
            # Cancelled by the client, or its stream closed: the message must say it was
            # withdrawn. The ask runs in its own task, so the withdrawal finishes either way;
            # shielded, this request waits for it (within reason) before it lets go.
            call.withdraw("the MCP client cancelled the call")
            with anyio.move_on_after(WITHDRAW_WITHIN_SECONDS, shield=True):
                await asyncio.wait({call.task})
            raise
        return _tool_result(result)

    async def start_question(self, ctx: Context[Any, Any], questions: Any = None) -> CallToolResult:
        """Create the ask and return its id at once."""
        agent = self._sessions.agent_for(ctx)
        arguments = {"questions": questions}
        request = self._tool.request_of(arguments, agent=agent)
        if isinstance(request, ToolResult):
            return _tool_result(request)
        try:
            self._service.check(request)
            view = await self._start(request, call_key(agent.id, arguments))
        except UserQuestionError as error:
            return _error_result(error)
        return _json_result({"ask_id": view.id})

    async def get_answer(
        self,
        ctx: Context[Any, Any],
        ask_id: str,
        wait_seconds: Annotated[float, Field(ge=0, le=MAX_WAIT_SECONDS)] = 30,
    ) -> CallToolResult:
        """The ask's state, waiting up to `wait_seconds` for an answer, with progress."""
        if ask_id not in self._started:
            return _error_result(_unknown("GET", ask_id))
        loop = asyncio.get_running_loop()
        started = loop.time()
        try:
            while True:
                remaining = max(0.0, wait_seconds - (loop.time() - started))
                view = await self._relay.poll(
                    ask_id, wait_seconds=min(remaining, self._options.progress_every)
                )
                if view.state is not AskState.PENDING or loop.time() - started >= wait_seconds:
                    break
                await self._report(ctx, loop.time() - started)
        except UserQuestionError as error:
            return _error_result(error)
        return _json_result(_state_of(view))

    async def withdraw_question(self, ask_id: str) -> CallToolResult:
        """Withdraw the ask; report how it ended (an answer that came first wins)."""
        if ask_id not in self._started:
            return _error_result(_unknown("DELETE", ask_id))
        try:
            view = await self._relay.withdraw(ask_id)
        except UserQuestionError as error:
            return _error_result(error)
        return _json_result(_state_of(view))

    # --- helpers --------------------------------------------------------------------------

    async def _start(self, request: AskUserQuestionRequest, key: str) -> AskView:
        # The relay's idempotency key is `mcp/<call key>/<n>`: the same start while its ask is
        # pending returns that ask; once it has settled, the same start asks anew (n + 1).
        occurrence = self._occurrences.get(key, 0)
        view = await self._relay.start(request, idempotency_key=f"mcp/{key}/{occurrence}")
        if view.state is not AskState.PENDING:
            self._occurrences[key] = occurrence + 1
            view = await self._relay.start(request, idempotency_key=f"mcp/{key}/{occurrence + 1}")
        self._started.add(view.id)
        return view

    async def _with_progress(
        self, task: asyncio.Task[ToolResult], ctx: Context[Any, Any]
    ) -> ToolResult:
        loop = asyncio.get_running_loop()
        started = loop.time()
        while True:
            await self._report(ctx, loop.time() - started)
            done, _ = await asyncio.wait({task}, timeout=self._options.progress_every)
            if done:
                return task.result()

    async def _report(self, ctx: Context[Any, Any], elapsed: float) -> None:
        # A no-op unless the client sent a progress token with the call.
        await ctx.report_progress(
            elapsed, None, f"waiting for an answer in {self._options.where} ({elapsed:.0f} s)"
        )


def _settled_result(view: AskView) -> dict[str, Any]:
    """The blocking call's result for a settled ask, as the JSON a completed task carries."""
    if view.state is AskState.ANSWERED and view.answer is not None:
        answer = json.dumps(view.answer.to_wire(), ensure_ascii=False, separators=(",", ":"))
        result = _tool_result(ToolResult(answer))
    else:
        result = _error_result(error_of(view))
    return result.model_dump(by_alias=True, exclude_none=True, mode="json")


def _unknown(method: str, ask_id: str) -> UserQuestionError:
    """What the relay's 404 for an id it never made reads as: an id another agent's ask has
    is answered exactly like one nobody's has, so this server confirms no one else's ids."""
    return UserQuestionError(
        ErrorCode.ASK_FAILED,
        f"relay {method} /v1/asks/{ask_id}: HTTP 404 NOT_FOUND: no ask {ask_id}",
    )


def _state_of(view: AskView) -> dict[str, object]:
    """`{state, answer?, error?}`: the relay's view without the id the caller already has (and
    without `decided_by` or `policy`: the tool's result is the seam's answer, as
    `ask_user_question` gives)."""
    hidden = {"id", "decided_by", "policy"}
    return {key: value for key, value in view.to_wire().items() if key not in hidden}


def _json_result(body: Mapping[str, object]) -> CallToolResult:
    text = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
    return CallToolResult(
        content=[TextContent(type="text", text=text)], structured_content=dict(body)
    )


def _tool_result(result: ToolResult) -> CallToolResult:
    """The seam's result as MCP: the compact JSON (text and structured), or an error result."""
    if result.error is None:
        return CallToolResult(
            content=[TextContent(type="text", text=result.content)],
            structured_content=json.loads(result.content),
        )
    return CallToolResult(
        content=[TextContent(type="text", text=result.content)],
        structured_content={
            "error": {
                "name": result.error.name,
                "code": result.error.code,
                "message": result.content.removeprefix("Error: "),
            }
        },
        is_error=True,
    )


def _error_result(error: UserQuestionError) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=f"Error: {error.message}")],
        structured_content={
            "error": {"name": error.name, "code": error.code, "message": error.message}
        },
        is_error=True,
    )
