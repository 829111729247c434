"""AbortSignal/AbortController, and aborts reaching a provider through the service."""

from __future__ import annotations

import asyncio

import pytest

from provider import (
    AbortController,
    AskUserQuestionRequest,
    ErrorCode,
    UserQuestionError,
    UserQuestionService,
)

from .fakes import WaitingProvider

QUESTION = {"id": "q", "question": "Go on?", "options": [{"label": "Yes"}]}


def test_a_new_signal_is_not_aborted() -> None:
    signal = AbortController().signal
    assert (signal.aborted, signal.reason) == (False, None)


def test_abort_sets_aborted_and_keeps_the_first_reason() -> None:
    controller = AbortController()
    controller.abort("first")
    controller.abort("second")
    assert (controller.signal.aborted, controller.signal.reason) == (True, "first")


def test_callbacks_run_once_with_the_reason() -> None:
    controller = AbortController()
    seen: list[object] = []
    controller.signal.add_callback(seen.append)
    controller.abort("stop")
    controller.abort("again")
    assert seen == ["stop"]


def test_a_callback_added_after_abort_runs_at_once() -> None:
    controller = AbortController()
    controller.abort("late")
    seen: list[object] = []
    controller.signal.add_callback(seen.append)
    assert seen == ["late"]


def test_a_removed_callback_is_not_called() -> None:
    controller = AbortController()
    seen: list[object] = []
    remove = controller.signal.add_callback(seen.append)
    remove()
    controller.abort()
    assert seen == []


def test_a_failing_callback_does_not_stop_the_others(caplog: pytest.LogCaptureFixture) -> None:
    controller = AbortController()
    seen: list[object] = []

    def fail(reason: object) -> None:
        raise RuntimeError("boom")

    controller.signal.add_callback(fail)
    controller.signal.add_callback(seen.append)
    controller.abort("x")
    assert seen == ["x"]
    assert "abort callback failed" in caplog.text


async def test_awaiting_the_signal_returns_the_reason() -> None:
    controller = AbortController()
    waiter = asyncio.create_task(controller.signal.wait())
    await asyncio.sleep(0)
    controller.abort("done")
    assert await waiter == "done"


async def test_awaiting_an_aborted_signal_returns_at_once() -> None:
    controller = AbortController()
    controller.abort("now")
    assert await controller.signal == "now"


# --- through the service, with a provider that honours aborts -------------------------------


@pytest.fixture
def provider() -> WaitingProvider:
    return WaitingProvider()


@pytest.fixture
def service(provider: WaitingProvider) -> UserQuestionService:
    service = UserQuestionService()
    service.register_provider(provider)
    return service


async def test_a_pre_aborted_signal_never_reaches_the_provider(
    service: UserQuestionService, provider: WaitingProvider
) -> None:
    controller = AbortController()
    controller.abort()
    request = AskUserQuestionRequest.model_validate(
        {"questions": [QUESTION], "signal": controller.signal}
    )
    with pytest.raises(UserQuestionError) as caught:
        await service.ask(request)
    assert caught.value.code is ErrorCode.ASK_ABORTED
    assert not provider.asked.is_set()


async def test_aborting_while_the_provider_waits_is_ask_aborted(
    service: UserQuestionService, provider: WaitingProvider
) -> None:
    controller = AbortController()
    request = AskUserQuestionRequest.model_validate(
        {"questions": [QUESTION], "signal": controller.signal}
    )
    asking = asyncio.create_task(service.ask(request))
    await provider.asked.wait()
    controller.abort("user left")
    with pytest.raises(UserQuestionError) as caught:
        await asking
    assert caught.value.code is ErrorCode.ASK_ABORTED
    assert provider.withdrawn == ["signal"]


async def test_cancelling_the_awaiting_task_reaches_the_provider(
    service: UserQuestionService, provider: WaitingProvider
) -> None:
    request = AskUserQuestionRequest.model_validate({"questions": [QUESTION]})
    asking = asyncio.create_task(service.ask(request))
    await provider.asked.wait()
    asking.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asking
    assert provider.withdrawn == ["cancelled"]
