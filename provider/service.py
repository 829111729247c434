"""UserQuestionService: one active provider; `check_request`: the ordered checks every ask
passes first."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from .agents import AgentRegistry
from .errors import (
    CALLER_NOT_LIVE_MESSAGE,
    DELEGATED_CALLER_MESSAGE,
    DUPLICATE_PROVIDER_MESSAGE,
    EMPTY_QUESTIONS_MESSAGE,
    NO_PROVIDER_MESSAGE,
    ErrorCode,
    UserQuestionError,
    aborted,
    bad_intent_detail,
    bad_intent_label,
)
from .types import AskUserQuestionAnswer, AskUserQuestionRequest, PlanReviewIntent


class UserQuestionProvider(Protocol):
    """A UI that shows questions to people and returns their answer.

    It must honour `request.signal` and cancellation of the awaiting task (withdraw the
    question, then raise `ASK_ABORTED` or let `CancelledError` propagate), and return
    answers that pass `provider.check_answer`.
    """

    async def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        """Show the questions and wait for the answer."""
        ...


def check_request(request: AskUserQuestionRequest, agents: AgentRegistry | None = None) -> None:
    """Run checks 1-5 in order and raise the first failure. Every ask passes them before any
    provider sees it: `UserQuestionService.ask` here, the relay for asks from other processes."""
    # A caller that already gave up must not put a question in front of anyone.
    if request.signal is not None and request.signal.aborted:
        reason = request.signal.reason
        raise aborted(reason if isinstance(reason, BaseException) else None)
    # An empty ask would show people nothing and could never be answered.
    if not request.questions:
        raise UserQuestionError(ErrorCode.EMPTY_QUESTIONS, EMPTY_QUESTIONS_MESSAGE)
    if request.agent is not None:
        # A stale or impostor agent object must not speak to people in a live one's name.
        if agents is None or not agents.is_live(request.agent):
            raise UserQuestionError(ErrorCode.CALLER_NOT_LIVE, CALLER_NOT_LIVE_MESSAGE)
        # An owned child has no human of its own: asking would block forever.
        if agents.owner_of(request.agent) is not None:
            raise UserQuestionError(ErrorCode.DELEGATED_CALLER, DELEGATED_CALLER_MESSAGE)
    for question in request.questions:
        # Types cannot tie `approve` (`allow`) to the options or require the plan it reviews.
        intent = question.intent
        if intent is None:
            continue
        if intent.label not in question.labels:
            raise bad_intent_label(question.id, intent.kind, intent.label, intent.label_field)
        if isinstance(intent, PlanReviewIntent) and not (question.detail or "").strip():
            raise bad_intent_detail(question.id, intent.kind)


class UserQuestionService:
    """Holds exactly one active provider and guards every ask before it reaches it."""

    def __init__(self, agents: AgentRegistry | None = None) -> None:
        self._agents = agents
        self._provider: UserQuestionProvider | None = None

    @property
    def provider(self) -> UserQuestionProvider | None:
        """The active provider, if one is registered."""
        return self._provider

    def register_provider(self, provider: UserQuestionProvider) -> Callable[[], None]:
        """Make `provider` the active one; return an idempotent dispose."""
        # Replacing silently would leave two UIs believing they answer for the person.
        if self._provider is not None:
            raise UserQuestionError(ErrorCode.DUPLICATE_PROVIDER, DUPLICATE_PROVIDER_MESSAGE)
        self._provider = provider

        def dispose() -> None:
            # Only our own registration: a stale dispose must not remove a newer provider.
            if self._provider is provider:
                self._provider = None

        return dispose

    def check(self, request: AskUserQuestionRequest) -> None:
        """Run checks 1-5 in order and raise the first failure (see `check_request`)."""
        check_request(request, self._agents)

    async def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        """Run the checks in order (first failure wins), then ask the provider."""
        check_request(request, self._agents)
        provider = self._provider
        if provider is None:
            raise UserQuestionError(ErrorCode.NO_PROVIDER, NO_PROVIDER_MESSAGE)
        return await provider.ask(request)
