"""Providers for seam tests: one that records, one that waits and honours aborts."""

from __future__ import annotations

import asyncio

from provider import (
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionRequest,
)
from provider.errors import aborted


def first_label_answer(request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
    """Pick the first option of every question; custom text for optionless ones."""
    return AskUserQuestionAnswer(
        answers=[
            AskUserQuestionAnswerItem(id=q.id, selected=q.labels[:1])
            if q.labels
            else AskUserQuestionAnswerItem(id=q.id, custom="typed")
            for q in request.questions
        ]
    )


class RecordingProvider:
    """Answers at once and remembers every request it was given."""

    def __init__(self) -> None:
        self.requests: list[AskUserQuestionRequest] = []

    async def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        self.requests.append(request)
        return first_label_answer(request)


class WaitingProvider:
    """Never answers; withdraws on abort signal or cancellation, as real providers must."""

    def __init__(self) -> None:
        self.asked = asyncio.Event()
        self.withdrawn: list[str] = []

    async def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        self.asked.set()
        try:
            if request.signal is None:
                await asyncio.get_running_loop().create_future()
            else:
                await request.signal
        except asyncio.CancelledError:
            self.withdrawn.append("cancelled")
            raise
        self.withdrawn.append("signal")
        raise aborted()
