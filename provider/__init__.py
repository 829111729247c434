"""The user-questions seam: provider-neutral vocabulary, service, tool and relay client.

Nothing in this package imports Slack. Importing it loads neither aiohttp nor mcp: the relay
client (aiohttp) is loaded when `RelayProvider` is first used, and `provider.elicitation`
touches mcp only inside the callback, so a host that needs neither never pays for them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .abort import AbortController, AbortSignal
from .agents import Agent, AgentRegistry
from .contract import AnswerContractError, AnswerRule, check_answer
from .errors import ErrorCode, HarnessError, UserQuestionError
from .service import UserQuestionProvider, UserQuestionService
from .tool import AskUserQuestionTool, ToolError, ToolResult, ask_user_question_tool
from .types import (
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionIntent,
    AskUserQuestionItem,
    AskUserQuestionOption,
    AskUserQuestionRequest,
    PlanReviewIntent,
    ToolApprovalIntent,
)

if TYPE_CHECKING:
    from .relay_client import RelayProvider

__all__ = [
    "AbortController",
    "AbortSignal",
    "Agent",
    "AgentRegistry",
    "AnswerContractError",
    "AnswerRule",
    "AskUserQuestionAnswer",
    "AskUserQuestionAnswerItem",
    "AskUserQuestionIntent",
    "AskUserQuestionItem",
    "AskUserQuestionOption",
    "AskUserQuestionRequest",
    "AskUserQuestionTool",
    "ErrorCode",
    "HarnessError",
    "PlanReviewIntent",
    "RelayProvider",
    "ToolApprovalIntent",
    "ToolError",
    "ToolResult",
    "UserQuestionError",
    "UserQuestionProvider",
    "UserQuestionService",
    "ask_user_question_tool",
    "check_answer",
]


def __getattr__(name: str) -> Any:
    # The relay client pulls in aiohttp: only its users should pay for (and depend on) it.
    if name == "RelayProvider":
        from .relay_client import RelayProvider

        return RelayProvider
    raise AttributeError(f"module 'provider' has no attribute {name!r}")
