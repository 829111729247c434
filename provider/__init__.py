"""The user-questions seam: provider-neutral vocabulary, service, tool and relay client.

Nothing in this package imports Slack.
"""

from .abort import AbortController, AbortSignal
from .agents import Agent, AgentRegistry
from .contract import AnswerContractError, AnswerRule, check_answer
from .errors import ErrorCode, HarnessError, UserQuestionError
from .relay_client import RelayProvider
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
)

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
    "ToolError",
    "ToolResult",
    "UserQuestionError",
    "UserQuestionProvider",
    "UserQuestionService",
    "ask_user_question_tool",
    "check_answer",
]
