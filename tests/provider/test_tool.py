"""The model-facing ask_user_question tool."""

from __future__ import annotations

import json

import pytest

from provider import (
    AbortController,
    Agent,
    AgentRegistry,
    AskUserQuestionAnswer,
    AskUserQuestionRequest,
    ToolError,
    UserQuestionService,
    ask_user_question_tool,
)

from .fakes import RecordingProvider


class FixedProvider(RecordingProvider):
    """Records the request and returns a fixed answer."""

    def __init__(self, answer: dict[str, object]) -> None:
        super().__init__()
        self.answer = AskUserQuestionAnswer.model_validate(answer)

    async def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        self.requests.append(request)
        return self.answer


@pytest.fixture
def provider() -> FixedProvider:
    return FixedProvider({"answers": [{"id": "db", "selected": ["Postgres"]}]})


@pytest.fixture
def service(provider: FixedProvider) -> UserQuestionService:
    service = UserQuestionService()
    service.register_provider(provider)
    return service


def test_name_and_description_are_the_seams() -> None:
    tool = ask_user_question_tool(UserQuestionService())
    assert tool.name == "ask_user_question"
    assert tool.description == (
        "Ask the user a concise question when you need confirmation, a choice, or missing "
        "information before proceeding. Send one or more questions, each with a stable id that "
        "will be echoed in the answer."
    )


def test_the_parameter_schema_is_pinned() -> None:
    schema = ask_user_question_tool(UserQuestionService()).parameters
    option = {
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
    }
    assert schema == {
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
                            "items": option,
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
    json.dumps(schema)  # serialisable as-is for function-calling APIs


async def test_header_options_and_multi_select_pass_through(
    service: UserQuestionService, provider: FixedProvider
) -> None:
    await ask_user_question_tool(service).execute(
        {
            "questions": [
                {
                    "id": "db",
                    "question": "Which?",
                    "header": "Storage",
                    "multi_select": True,
                    "options": [
                        {"label": "Postgres", "description": "server"},
                        {"label": "SQLite"},
                    ],
                }
            ]
        }
    )
    assert provider.requests[0].to_wire() == {
        "questions": [
            {
                "id": "db",
                "question": "Which?",
                "header": "Storage",
                "multiSelect": True,
                "options": [{"label": "Postgres", "description": "server"}, {"label": "SQLite"}],
            }
        ]
    }


async def test_unknown_keys_detail_and_intent_are_dropped(
    service: UserQuestionService, provider: FixedProvider
) -> None:
    await ask_user_question_tool(service).execute(
        {
            "questions": [
                {
                    "id": "db",
                    "question": "Which?",
                    "detail": "# plan",
                    "intent": {"kind": "plan-review", "approve": "Postgres"},
                    "recommended": "Postgres",
                    "options": [{"label": "Postgres", "value": "pg", "desc": "x"}],
                }
            ],
            "extra": 1,
        }
    )
    assert provider.requests[0].to_wire() == {
        "questions": [
            {
                "id": "db",
                "question": "Which?",
                "multiSelect": False,
                "options": [{"label": "Postgres"}],
            }
        ]
    }


async def test_arguments_may_arrive_as_a_json_string(
    service: UserQuestionService, provider: FixedProvider
) -> None:
    result = await ask_user_question_tool(service).execute(
        '{"questions":[{"id":"db","question":"Which?"}]}'
    )
    assert result.error is None
    assert provider.requests[0].questions[0].id == "db"


async def test_the_agent_and_signal_are_forwarded(provider: FixedProvider) -> None:
    registry = AgentRegistry()
    agent = Agent("root")
    registry.enter(agent)
    service = UserQuestionService(registry)
    service.register_provider(provider)
    signal = AbortController().signal
    await ask_user_question_tool(service).execute(
        {"questions": [{"id": "db", "question": "?"}]}, agent=agent, signal=signal
    )
    assert provider.requests[0].agent is agent
    assert provider.requests[0].signal is signal


async def test_the_answer_is_compact_json(service: UserQuestionService) -> None:
    result = await ask_user_question_tool(service).execute(
        {"questions": [{"id": "db", "question": "?"}]}
    )
    assert result.content == '{"answers":[{"id":"db","selected":["Postgres"]}]}'
    assert not result.is_error


async def test_custom_is_kept_and_non_ascii_is_not_escaped() -> None:
    provider = FixedProvider({"answers": [{"id": "db", "selected": [], "custom": "Münster 🚀"}]})
    service = UserQuestionService()
    service.register_provider(provider)
    result = await ask_user_question_tool(service).execute(
        {"questions": [{"id": "db", "question": "?"}]}
    )
    assert result.content == '{"answers":[{"id":"db","selected":[],"custom":"Münster 🚀"}]}'


async def test_a_user_question_error_becomes_an_error_result() -> None:
    result = await ask_user_question_tool(UserQuestionService()).execute(
        {"questions": [{"id": "db", "question": "?"}]}
    )
    assert result.error == ToolError(name="UserQuestionError", code="NO_PROVIDER")
    assert result.content == "Error: no user-questions provider is registered"


async def test_no_questions_is_empty_questions(
    service: UserQuestionService, provider: FixedProvider
) -> None:
    result = await ask_user_question_tool(service).execute({"questions": []})
    assert result.error == ToolError(name="UserQuestionError", code="EMPTY_QUESTIONS")
    assert result.content == "Error: ask_user_question requires at least one question"
    assert provider.requests == []


async def test_malformed_arguments_are_an_error_naming_the_field(
    service: UserQuestionService, provider: FixedProvider
) -> None:
    result = await ask_user_question_tool(service).execute({"questions": [{"question": "?"}]})
    assert result.error == ToolError(name="ToolInputError", code="INVALID_ARGUMENTS")
    assert result.content == (
        "Error: invalid ask_user_question arguments: questions.0.id: Field required"
    )
    assert provider.requests == []


async def test_missing_questions_is_an_error(service: UserQuestionService) -> None:
    result = await ask_user_question_tool(service).execute({})
    assert result.content == (
        "Error: invalid ask_user_question arguments: questions: must be an array"
    )


async def test_a_lone_surrogate_is_invalid_arguments_naming_the_field(
    service: UserQuestionService, provider: FixedProvider
) -> None:
    args = '{"questions":[{"id":"6","question":"a","options":[{"label":"a","description":"\\udfff"}]}]}'
    result = await ask_user_question_tool(service).execute(args)
    assert result.error == ToolError(name="ToolInputError", code="INVALID_ARGUMENTS")
    assert result.content == (
        "Error: invalid ask_user_question arguments: questions.0.options.0.description: "
        "Value error, contains U+DFFF at index 0, a lone surrogate that UTF-8 cannot encode"
    )
    assert provider.requests == []
