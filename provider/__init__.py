"""The user-questions seam: provider-neutral vocabulary, service, tool and relay client.

Nothing in this package imports Slack. Every name below is loaded from its module when first
used (PEP 562): `from provider import Agent` loads `provider.agents` and nothing else, so the
Claude Code hook — started before every gated tool call, a person waiting — pays only for the
modules it uses. The relay client loads aiohttp only when its default transport is used, and
`provider.elicitation` touches mcp only inside the callback.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
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
        ToolApprovalIntent,
    )

# Each exported name → the submodule that defines it.
_HOME: Final = {
    "AbortController": "abort",
    "AbortSignal": "abort",
    "Agent": "agents",
    "AgentRegistry": "agents",
    "AnswerContractError": "contract",
    "AnswerRule": "contract",
    "AskUserQuestionAnswer": "types",
    "AskUserQuestionAnswerItem": "types",
    "AskUserQuestionIntent": "types",
    "AskUserQuestionItem": "types",
    "AskUserQuestionOption": "types",
    "AskUserQuestionRequest": "types",
    "AskUserQuestionTool": "tool",
    "ErrorCode": "errors",
    "HarnessError": "errors",
    "PlanReviewIntent": "types",
    "RelayProvider": "relay_client",
    "ToolApprovalIntent": "types",
    "ToolError": "tool",
    "ToolResult": "tool",
    "UserQuestionError": "errors",
    "UserQuestionProvider": "service",
    "UserQuestionService": "service",
    "ask_user_question_tool": "tool",
    "check_answer": "contract",
}

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


def __getattr__(name: str) -> object:
    """Load an exported name from its submodule on first use (then it is a module global)."""
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'provider' has no attribute {name!r}")
    value = getattr(import_module(f".{home}", __name__), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
