"""MCP elicitation answered by people: `elicit()` for any asker, `elicitation_callback` for `mcp`.

`elicitation_callback(service)` is a ready `elicitation_callback` for the `mcp` SDK's
`Client` / `ClientSession`: every form a server requests is asked through the seam (so the
active provider — Slack, the relay — shows it to people), and the answer goes back as
`ElicitResult`. A closed form or withdrawn ask is `cancel`, an explicit dismissal `decline`;
URL-mode elicitations are refused with an error that says so.

The `mcp` package is imported only inside the callback, when an elicitation arrives: a host
that never speaks MCP does not need it installed.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from .agents import Agent
from .elicitation_forms import ElicitAction, ElicitationForm, ElicitOutcome, FormError
from .errors import ErrorCode, UserQuestionError
from .service import UserQuestionService
from .types import AskUserQuestionAnswer, AskUserQuestionRequest

if TYPE_CHECKING:
    from mcp.client.session import ClientRequestContext, ElicitationFnT
    from mcp.types import ElicitRequestParams, ElicitResult, ErrorData

log = logging.getLogger(__name__)

Ask = Callable[[AskUserQuestionRequest], Awaitable[AskUserQuestionAnswer]]

# A person who keeps typing what the form refuses is asked again, but not forever.
MAX_ROUNDS = 3

URL_MODE_REFUSED = (
    "URL-mode elicitation is not supported here: people answer in Slack, and a URL must be "
    "opened by the user it was meant for, so no one can consent to it on their behalf"
)


async def elicit(
    ask: Ask, form: ElicitationForm, *, agent: Agent | None = None, rounds: int = MAX_ROUNDS
) -> ElicitOutcome:
    """Ask `form` through `ask`; re-ask the fields whose answers the schema refuses.

    `ASK_ABORTED` (a closed form, a withdrawn or expired ask) is `cancel`, `ASK_CANCELLED`
    (someone dismissed it) is `decline`; any other seam error propagates. When answers are
    still refused after `rounds` rounds, the elicitation is cancelled rather than sent invalid.
    """
    content: dict[str, Any] = {}
    problems: dict[str, str] | None = None
    for _ in range(rounds):
        request = AskUserQuestionRequest(questions=form.questions(problems), agent=agent)
        try:
            answer = await ask(request)
        except UserQuestionError as error:
            if error.code is ErrorCode.ASK_CANCELLED:
                return ElicitOutcome(action=ElicitAction.DECLINE)
            if error.code is ErrorCode.ASK_ABORTED:
                return ElicitOutcome(action=ElicitAction.CANCEL)
            raise
        got, problems = form.read(answer, [q.id for q in request.questions])
        content.update(got)
        if not problems:
            return ElicitOutcome(action=ElicitAction.ACCEPT, content=content)
        log.info("re-asking refused answers: %s", problems)
    log.warning("answers still refused after %d rounds (%s); cancelling", rounds, problems)
    return ElicitOutcome(action=ElicitAction.CANCEL)


def elicitation_callback(
    service: UserQuestionService, *, agent: Agent | None = None
) -> ElicitationFnT:
    """An `elicitation_callback` for `mcp.Client` that asks people through `service`.

    `agent`, when given, must be live in the service's registry (the seam's usual check).
    """

    async def callback(
        context: ClientRequestContext, params: ElicitRequestParams
    ) -> ElicitResult | ErrorData:
        from mcp.types import INTERNAL_ERROR, INVALID_PARAMS, ElicitResult, ErrorData

        if params.mode == "url":
            return ErrorData(code=INVALID_PARAMS, message=URL_MODE_REFUSED)
        try:
            form = ElicitationForm.from_schema(params.message, params.requested_schema)
        except FormError as error:
            return ErrorData(code=INVALID_PARAMS, message=f"cannot ask this form: {error}")
        try:
            outcome = await elicit(service.ask, form, agent=agent)
        except UserQuestionError as error:
            return ErrorData(code=INTERNAL_ERROR, message=f"{error.code}: {error.message}")
        return ElicitResult.model_validate(outcome.to_wire())

    return callback
