"""UserQuestionService: registration and the ordered checks of every ask."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from provider import (
    AbortController,
    Agent,
    AgentRegistry,
    AskUserQuestionItem,
    AskUserQuestionRequest,
    ErrorCode,
    UserQuestionError,
    UserQuestionService,
)
from provider.service import check_request

from .fakes import RecordingProvider

CHOICE = {"id": "db", "question": "Which database?", "options": [{"label": "Postgres"}]}
PLAN = {
    "id": "plan",
    "question": "Approve the plan?",
    "detail": "1. migrate\n2. deploy",
    "options": [{"label": "Decline"}, {"label": "Approve"}],
    "intent": {"kind": "plan-review", "approve": "Approve"},
}


def request(*questions: Mapping[str, object], **runtime: object) -> AskUserQuestionRequest:
    return AskUserQuestionRequest.model_validate({"questions": list(questions), **runtime})


async def ask_error(service: UserQuestionService, req: AskUserQuestionRequest) -> UserQuestionError:
    with pytest.raises(UserQuestionError) as caught:
        await service.ask(req)
    return caught.value


@pytest.fixture
def provider() -> RecordingProvider:
    return RecordingProvider()


@pytest.fixture
def registry() -> AgentRegistry:
    return AgentRegistry()


@pytest.fixture
def service(provider: RecordingProvider, registry: AgentRegistry) -> UserQuestionService:
    service = UserQuestionService(registry)
    service.register_provider(provider)
    return service


# --- registration -------------------------------------------------------------------------


def test_a_second_provider_is_refused_and_the_first_stays() -> None:
    service = UserQuestionService()
    first, second = RecordingProvider(), RecordingProvider()
    service.register_provider(first)
    with pytest.raises(UserQuestionError) as caught:
        service.register_provider(second)
    assert caught.value.code is ErrorCode.DUPLICATE_PROVIDER
    assert caught.value.message == "a user-questions provider is already registered"
    assert service.provider is first


def test_dispose_is_idempotent_and_frees_the_slot() -> None:
    service = UserQuestionService()
    dispose = service.register_provider(RecordingProvider())
    dispose()
    dispose()
    assert service.provider is None


def test_a_provider_may_register_after_dispose() -> None:
    service = UserQuestionService()
    service.register_provider(RecordingProvider())()
    again = RecordingProvider()
    service.register_provider(again)
    assert service.provider is again


def test_a_stale_dispose_does_not_remove_a_newer_provider() -> None:
    service = UserQuestionService()
    stale = service.register_provider(RecordingProvider())
    stale()
    newer = RecordingProvider()
    service.register_provider(newer)
    stale()
    assert service.provider is newer


# --- each check -----------------------------------------------------------------------------


async def test_a_pre_aborted_signal_is_ask_aborted(
    service: UserQuestionService, provider: RecordingProvider
) -> None:
    controller = AbortController()
    controller.abort()
    error = await ask_error(service, request(CHOICE, signal=controller.signal))
    assert error.code is ErrorCode.ASK_ABORTED
    assert error.message == "ask_user_question was aborted before the user answered"
    assert provider.requests == []


async def test_an_abort_reason_that_is_an_exception_is_kept_as_cause(
    service: UserQuestionService,
) -> None:
    controller = AbortController()
    reason = TimeoutError("deadline")
    controller.abort(reason)
    error = await ask_error(service, request(CHOICE, signal=controller.signal))
    assert error.__cause__ is reason


async def test_no_questions_is_empty_questions(
    service: UserQuestionService, provider: RecordingProvider
) -> None:
    error = await ask_error(service, request())
    assert error.code is ErrorCode.EMPTY_QUESTIONS
    assert error.message == "ask_user_question requires at least one question"
    assert provider.requests == []


async def test_an_agent_without_a_registry_is_not_live(provider: RecordingProvider) -> None:
    service = UserQuestionService()
    service.register_provider(provider)
    error = await ask_error(service, request(CHOICE, agent=Agent("a1")))
    assert error.code is ErrorCode.CALLER_NOT_LIVE
    assert error.message == (
        "human interaction requires the exact live calling agent when an agent is supplied"
    )
    assert provider.requests == []


async def test_an_agent_never_entered_is_not_live(
    service: UserQuestionService, provider: RecordingProvider
) -> None:
    error = await ask_error(service, request(CHOICE, agent=Agent("a1")))
    assert error.code is ErrorCode.CALLER_NOT_LIVE
    assert provider.requests == []


async def test_another_object_with_a_live_id_is_not_live(
    service: UserQuestionService, provider: RecordingProvider, registry: AgentRegistry
) -> None:
    registry.enter(Agent("a1"))
    error = await ask_error(service, request(CHOICE, agent=Agent("a1")))
    assert error.code is ErrorCode.CALLER_NOT_LIVE
    assert provider.requests == []


async def test_a_detached_agent_is_not_live(
    service: UserQuestionService, provider: RecordingProvider, registry: AgentRegistry
) -> None:
    agent = Agent("a1")
    registry.enter(agent)()
    error = await ask_error(service, request(CHOICE, agent=agent))
    assert error.code is ErrorCode.CALLER_NOT_LIVE
    assert provider.requests == []


async def test_an_owned_agent_is_a_delegated_caller(
    service: UserQuestionService, provider: RecordingProvider, registry: AgentRegistry
) -> None:
    parent, child = Agent("parent"), Agent("child")
    registry.enter(parent)
    registry.enter(child, owner=parent)
    error = await ask_error(service, request(CHOICE, agent=child))
    assert error.code is ErrorCode.DELEGATED_CALLER
    assert error.message == (
        "human interaction is unavailable while the calling agent is owned by another live "
        "agent; include the unresolved question or decision in the child agent's final result"
    )
    assert provider.requests == []


async def test_a_former_child_entered_as_a_root_may_ask(
    service: UserQuestionService, provider: RecordingProvider, registry: AgentRegistry
) -> None:
    parent, child = Agent("parent"), Agent("child")
    registry.enter(parent)
    registry.enter(child, owner=parent)()
    registry.enter(child)
    req = request(CHOICE, agent=child)
    await service.ask(req)
    assert provider.requests == [req]


async def test_a_live_root_agent_reaches_the_provider_with_the_same_request(
    service: UserQuestionService, provider: RecordingProvider, registry: AgentRegistry
) -> None:
    agent = Agent("root")
    registry.enter(agent)
    req = request(CHOICE, agent=agent)
    answer = await service.ask(req)
    assert provider.requests[0] is req
    assert answer.to_wire() == {"answers": [{"id": "db", "selected": ["Postgres"]}]}


async def test_an_agentless_ask_skips_the_caller_checks(provider: RecordingProvider) -> None:
    service = UserQuestionService()  # no registry at all
    service.register_provider(provider)
    req = request(CHOICE)
    await service.ask(req)
    assert provider.requests == [req]


async def test_an_approve_label_naming_no_option_is_bad_intent(
    service: UserQuestionService, provider: RecordingProvider
) -> None:
    plan = {**PLAN, "intent": {"kind": "plan-review", "approve": "Ship it"}}
    error = await ask_error(service, request(plan))
    assert error.code is ErrorCode.BAD_INTENT
    assert error.message == (
        'question plan declares intent plan-review whose approve label "Ship it" '
        "names none of its options"
    )
    assert provider.requests == []


TOOL = {
    "id": "approve",
    "question": "Allow Bash: `make`?",
    "options": [{"label": "Allow"}, {"label": "Deny"}],
    "intent": {"kind": "tool-approval", "allow": "Allow", "tool": "Bash"},
}


async def test_a_tool_approval_whose_allow_label_names_no_option_is_bad_intent(
    service: UserQuestionService, provider: RecordingProvider
) -> None:
    tool = {**TOOL, "intent": {"kind": "tool-approval", "allow": "Yes"}}
    error = await ask_error(service, request(tool))
    assert error.code is ErrorCode.BAD_INTENT
    assert error.message == (
        'question approve declares intent tool-approval whose allow label "Yes" '
        "names none of its options"
    )
    assert provider.requests == []


async def test_a_tool_approval_needs_no_detail(
    service: UserQuestionService, provider: RecordingProvider
) -> None:
    req = request(TOOL)
    await service.ask(req)
    assert provider.requests == [req]


async def test_an_intent_on_an_optionless_question_is_bad_intent(
    service: UserQuestionService, provider: RecordingProvider
) -> None:
    plan = {key: value for key, value in PLAN.items() if key != "options"}
    error = await ask_error(service, request(plan))
    assert error.code is ErrorCode.BAD_INTENT
    assert "names none of its options" in error.message
    assert provider.requests == []


async def test_an_intent_without_detail_is_bad_intent(
    service: UserQuestionService, provider: RecordingProvider
) -> None:
    plan = {key: value for key, value in PLAN.items() if key != "detail"}
    error = await ask_error(service, request(plan))
    assert error.code is ErrorCode.BAD_INTENT
    assert error.message == (
        "question plan declares intent plan-review without the detail it reviews"
    )
    assert provider.requests == []


async def test_a_blank_detail_counts_as_missing(
    service: UserQuestionService, provider: RecordingProvider
) -> None:
    error = await ask_error(service, request({**PLAN, "detail": "  \n"}))
    assert error.message.endswith("without the detail it reviews")
    assert provider.requests == []


async def test_the_label_check_comes_before_the_detail_check(
    service: UserQuestionService,
) -> None:
    plan = {key: value for key, value in PLAN.items() if key != "detail"}
    plan["intent"] = {"kind": "plan-review", "approve": "Ship it"}
    error = await ask_error(service, request(plan))
    assert "names none of its options" in error.message


async def test_a_valid_intent_reaches_the_provider_unchanged(
    service: UserQuestionService, provider: RecordingProvider
) -> None:
    req = request(PLAN)
    await service.ask(req)
    assert provider.requests[0] is req
    assert provider.requests[0].questions[0] == AskUserQuestionItem.model_validate(PLAN)


async def test_no_provider_is_no_provider() -> None:
    error = await ask_error(UserQuestionService(), request(CHOICE))
    assert error.code is ErrorCode.NO_PROVIDER
    assert error.message == "no user-questions provider is registered"


async def test_provider_errors_pass_through_unchanged(registry: AgentRegistry) -> None:
    failure = UserQuestionError(ErrorCode.ASK_FAILED, "slack said no")

    class FailingProvider:
        async def ask(self, request: AskUserQuestionRequest) -> object:
            raise failure

    service = UserQuestionService(registry)
    service.register_provider(FailingProvider())  # type: ignore[arg-type]
    assert await ask_error(service, request(CHOICE)) is failure


# --- order: for each adjacent pair, an input that breaks both gets the earlier code ---------


def _parent_and_child(registry: AgentRegistry) -> Agent:
    parent, child = Agent("parent"), Agent("child")
    registry.enter(parent)
    registry.enter(child, owner=parent)
    return child


async def test_aborted_comes_before_empty_questions(
    service: UserQuestionService, provider: RecordingProvider
) -> None:
    controller = AbortController()
    controller.abort()
    error = await ask_error(service, request(signal=controller.signal))
    assert error.code is ErrorCode.ASK_ABORTED
    assert provider.requests == []


async def test_empty_questions_comes_before_caller_not_live(
    service: UserQuestionService, provider: RecordingProvider
) -> None:
    error = await ask_error(service, request(agent=Agent("stranger")))
    assert error.code is ErrorCode.EMPTY_QUESTIONS
    assert provider.requests == []


async def test_caller_not_live_comes_before_delegated_caller(
    service: UserQuestionService, provider: RecordingProvider, registry: AgentRegistry
) -> None:
    child = _parent_and_child(registry)
    impostor = Agent(child.id)  # the child's id, but not the live object
    error = await ask_error(service, request(CHOICE, agent=impostor))
    assert error.code is ErrorCode.CALLER_NOT_LIVE
    assert provider.requests == []


async def test_delegated_caller_comes_before_bad_intent(
    service: UserQuestionService, provider: RecordingProvider, registry: AgentRegistry
) -> None:
    child = _parent_and_child(registry)
    plan = {key: value for key, value in PLAN.items() if key != "detail"}
    error = await ask_error(service, request(plan, agent=child))
    assert error.code is ErrorCode.DELEGATED_CALLER
    assert provider.requests == []


async def test_bad_intent_comes_before_no_provider() -> None:
    plan = {key: value for key, value in PLAN.items() if key != "detail"}
    error = await ask_error(UserQuestionService(), request(plan))
    assert error.code is ErrorCode.BAD_INTENT


# --- the checks without a service -------------------------------------------------------------


def test_check_request_runs_the_same_checks_without_a_service() -> None:
    with pytest.raises(UserQuestionError) as caught:
        check_request(AskUserQuestionRequest(questions=[]))
    assert caught.value.code is ErrorCode.EMPTY_QUESTIONS
    assert caught.value.message == "ask_user_question requires at least one question"


def test_check_request_refuses_an_agent_when_it_knows_no_agents() -> None:
    agent = Agent(id="main")
    with pytest.raises(UserQuestionError) as caught:
        check_request(request(CHOICE, agent=agent))
    assert caught.value.code is ErrorCode.CALLER_NOT_LIVE
