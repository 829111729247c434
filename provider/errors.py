"""The seam's error taxonomy: one base with a stable code; callers route on the code."""

from __future__ import annotations

import json
from enum import StrEnum


class ErrorCode(StrEnum):
    """Every code a user-questions ask can fail with (DESIGN.md §1, Errors)."""

    DUPLICATE_PROVIDER = "DUPLICATE_PROVIDER"
    ASK_ABORTED = "ASK_ABORTED"
    EMPTY_QUESTIONS = "EMPTY_QUESTIONS"
    CALLER_NOT_LIVE = "CALLER_NOT_LIVE"
    DELEGATED_CALLER = "DELEGATED_CALLER"
    BAD_INTENT = "BAD_INTENT"
    NO_PROVIDER = "NO_PROVIDER"
    ASK_CANCELLED = "ASK_CANCELLED"
    ASK_FAILED = "ASK_FAILED"


class HarnessError(Exception):
    """Base of every structured error the harness reports to tools and models."""

    name = "HarnessError"

    def __init__(self, code: str, message: str, *, cause: BaseException | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        if cause is not None:
            self.__cause__ = cause

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, message={self.message!r})"


class UserQuestionError(HarnessError):
    """A failure of the user-questions seam; `code` is always an `ErrorCode`."""

    name = "UserQuestionError"

    def __init__(
        self, code: ErrorCode, message: str, *, cause: BaseException | None = None
    ) -> None:
        super().__init__(code, message, cause=cause)
        self.code: ErrorCode = code


# Stable messages: tools and models read them, so they change only with a new code.
ABORTED_MESSAGE = "ask_user_question was aborted before the user answered"
EMPTY_QUESTIONS_MESSAGE = "ask_user_question requires at least one question"
CALLER_NOT_LIVE_MESSAGE = (
    "human interaction requires the exact live calling agent when an agent is supplied"
)
DELEGATED_CALLER_MESSAGE = (
    "human interaction is unavailable while the calling agent is owned by another live agent; "
    "include the unresolved question or decision in the child agent's final result"
)
NO_PROVIDER_MESSAGE = "no user-questions provider is registered"
DUPLICATE_PROVIDER_MESSAGE = "a user-questions provider is already registered"


def aborted(cause: BaseException | None = None) -> UserQuestionError:
    """The `ASK_ABORTED` error every provider raises when an ask is withdrawn."""
    return UserQuestionError(ErrorCode.ASK_ABORTED, ABORTED_MESSAGE, cause=cause)


def bad_intent_label(
    question_id: str, kind: str, label: str, field: str = "approve"
) -> UserQuestionError:
    """`BAD_INTENT` for an intent's yes label (`field`: `approve`, `allow`) that names none
    of the question's options."""
    return UserQuestionError(
        ErrorCode.BAD_INTENT,
        f"question {question_id} declares intent {kind} whose {field} label "
        f"{json.dumps(label, ensure_ascii=False)} names none of its options",
    )


def bad_intent_detail(question_id: str, kind: str) -> UserQuestionError:
    """`BAD_INTENT` for an intent on a question without the detail it reviews."""
    return UserQuestionError(
        ErrorCode.BAD_INTENT,
        f"question {question_id} declares intent {kind} without the detail it reviews",
    )
