"""The model-facing `ask_user_question` tool: a JSON Schema and an execute over the service."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from pydantic import ValidationError

from .abort import AbortSignal
from .agents import Agent
from .errors import HarnessError
from .service import UserQuestionService
from .types import AskUserQuestionRequest, field_errors

NAME: Final = "ask_user_question"
DESCRIPTION: Final = (
    "Ask the user a concise question when you need confirmation, a choice, or missing "
    "information before proceeding. Send one or more questions, each with a stable id that "
    "will be echoed in the answer."
)

# `detail` and `intent` are deliberately absent: plan reviews come from the host, not the model.
PARAMETERS: Final[Mapping[str, Any]] = {
    "type": "object",
    "properties": {
        "questions": {
            "type": "array",
            "description": "The questions to ask, shown together and answered together.",
            "items": {
                "type": "object",
                "properties": {
                    "id": {
                        "type": "string",
                        "description": "Stable id for this question, echoed in its answer.",
                    },
                    "question": {"type": "string", "description": "The question to ask."},
                    "header": {
                        "type": "string",
                        "description": "Optional short heading shown above the question.",
                    },
                    "options": {
                        "type": "array",
                        "description": "Choices to offer; omit to ask for a free-text answer.",
                        "items": {
                            "type": "object",
                            "properties": {
                                "label": {
                                    "type": "string",
                                    "description": "Shown to the user and returned as the value.",
                                },
                                "description": {
                                    "type": "string",
                                    "description": "Optional explanation of this choice.",
                                },
                            },
                            "required": ["label"],
                            "additionalProperties": False,
                        },
                    },
                    "multi_select": {
                        "type": "boolean",
                        "description": "Allow choosing several options (default false).",
                    },
                },
                "required": ["id", "question"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["questions"],
    "additionalProperties": False,
}

_QUESTION_KEYS: Final = ("id", "question", "header", "options", "multi_select")
_OPTION_KEYS: Final = ("label", "description")


@dataclass(frozen=True)
class ToolError:
    """The machine-routable part of a failed call."""

    name: str
    code: str


@dataclass(frozen=True)
class ToolResult:
    """What the model sees: compact answer JSON, or `Error: <message>` with `error` set."""

    content: str
    error: ToolError | None = None

    @property
    def is_error(self) -> bool:
        """Whether the call failed."""
        return self.error is not None


@dataclass(frozen=True)
class AskUserQuestionTool:
    """`ask_user_question`, bound to a service."""

    service: UserQuestionService
    name: str = NAME
    description: str = DESCRIPTION

    @property
    def parameters(self) -> Mapping[str, Any]:
        """JSON Schema of the arguments, usable as-is for OpenAI or Anthropic tool calling."""
        return PARAMETERS

    async def execute(
        self,
        args: Mapping[str, object] | str,
        *,
        agent: Agent | None = None,
        signal: AbortSignal | None = None,
    ) -> ToolResult:
        """Ask the questions in `args` for `agent`; return the answer or an error result."""
        request = self.request_of(args, agent=agent, signal=signal)
        if isinstance(request, ToolResult):
            return request
        try:
            answer = await self.service.ask(request)
        except HarnessError as error:
            return ToolResult(f"Error: {error.message}", ToolError(error.name, error.code))
        return ToolResult(json.dumps(answer.to_wire(), ensure_ascii=False, separators=(",", ":")))

    def request_of(
        self,
        args: Mapping[str, object] | str,
        *,
        agent: Agent | None = None,
        signal: AbortSignal | None = None,
    ) -> AskUserQuestionRequest | ToolResult:
        """The request `args` stand for (schema keys only), or the error result saying why not.

        For hosts that ask in steps (start now, collect later) with the tool's own arguments.
        """
        try:
            return AskUserQuestionRequest(
                questions=_questions_from(args), agent=agent, signal=signal
            )
        except (ValidationError, ValueError) as error:
            return ToolResult(
                f"Error: invalid {NAME} arguments: {_describe(error)}",
                ToolError("ToolInputError", "INVALID_ARGUMENTS"),
            )


def ask_user_question_tool(service: UserQuestionService) -> AskUserQuestionTool:
    """The `ask_user_question` tool over `service`."""
    return AskUserQuestionTool(service)


def _questions_from(args: Mapping[str, object] | str) -> list[object]:
    """Keep only the schema's keys: models invent fields, and `detail`/`intent` are the host's."""
    if isinstance(args, str):
        args = json.loads(args)
    if not isinstance(args, Mapping):
        raise ValueError("arguments must be a JSON object")
    questions = args.get("questions")
    if not isinstance(questions, list):
        raise ValueError("questions: must be an array")
    return [_only_schema_keys(q) for q in questions]


def _only_schema_keys(question: object) -> object:
    if not isinstance(question, Mapping):
        return question
    question = dict(question)
    # The seam accepts both spellings, and a model may well use the camelCase one.
    if "multi_select" not in question and "multiSelect" in question:
        question["multi_select"] = question["multiSelect"]
    kept = {key: question[key] for key in _QUESTION_KEYS if key in question}
    options = kept.get("options")
    if isinstance(options, list):
        kept["options"] = [
            {k: o[k] for k in _OPTION_KEYS if k in o} if isinstance(o, Mapping) else o
            for o in options
        ]
    return kept


def _describe(error: ValidationError | ValueError) -> str:
    if not isinstance(error, ValidationError):
        return str(error)
    return "; ".join(f"{field}: {message}" for field, message in field_errors(error))
