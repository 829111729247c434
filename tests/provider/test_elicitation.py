"""`elicitation_callback`: the `mcp` SDK's own client, a server that elicits, the seam asking."""

from __future__ import annotations

import subprocess
import sys

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.types import TextContent

from provider import (
    AskUserQuestionAnswer,
    AskUserQuestionRequest,
    ErrorCode,
    UserQuestionError,
    UserQuestionService,
)
from provider.elicitation import URL_MODE_REFUSED, elicitation_callback

from .mcp_server import eliciting_server


class FormFiller:
    """Answers every deploy form like a person would, and remembers what it was asked."""

    def __init__(self) -> None:
        self.requests: list[AskUserQuestionRequest] = []

    async def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        self.requests.append(request)
        picks: dict[str, dict[str, object]] = {
            "env": {"selected": ["production"]},
            "replicas": {"custom": "3"},
            "migrate": {"selected": ["No"]},
            "regions": {"selected": ["eu", "us"]},
        }
        return AskUserQuestionAnswer.model_validate(
            {"answers": [{"id": q.id, **picks[q.id]} for q in request.questions]}
        )


class Ending:
    """Ends every ask with one seam error."""

    def __init__(self, code: ErrorCode) -> None:
        self.code = code

    async def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        raise UserQuestionError(self.code, "ended")


def service_with(provider: FormFiller | Ending) -> UserQuestionService:
    service = UserQuestionService()
    service.register_provider(provider)
    return service


async def call(service: UserQuestionService, tool: str) -> str:
    callback = elicitation_callback(service)
    async with Client(eliciting_server(), mode="legacy", elicitation_callback=callback) as client:
        result = await client.call_tool(tool, {})
    [content] = result.content
    assert isinstance(content, TextContent)
    return content.text


async def test_an_accepted_form_reaches_the_server_as_typed_content() -> None:
    filler = FormFiller()
    assert await call(service_with(filler), "deploy") == (
        'accept {"env":"production","replicas":3,"migrate":false,"regions":["eu","us"]}'
    )
    [request] = filler.requests
    assert [(q.id, q.labels, q.multi_select) for q in request.questions] == [
        ("env", ["staging", "production"], False),
        ("replicas", [], False),
        ("migrate", ["Yes", "No"], False),
        ("regions", ["eu", "us"], True),
    ]


async def test_a_withdrawn_or_closed_ask_is_cancel() -> None:
    assert await call(service_with(Ending(ErrorCode.ASK_ABORTED)), "deploy") == "cancel"


async def test_an_explicit_dismissal_is_decline() -> None:
    assert await call(service_with(Ending(ErrorCode.ASK_CANCELLED)), "deploy") == "decline"


async def test_url_mode_is_refused_with_a_message_saying_why() -> None:
    filler = FormFiller()
    callback = elicitation_callback(service_with(filler))
    async with Client(eliciting_server(), mode="legacy", elicitation_callback=callback) as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool("login", {})
    assert caught.value.error.message == URL_MODE_REFUSED
    assert filler.requests == []


def test_importing_the_seam_loads_neither_aiohttp_nor_mcp() -> None:
    probe = (
        "import sys, provider, provider.types, provider.elicitation, provider.elicitation_forms;"
        "print(sorted(m for m in ('aiohttp', 'mcp') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout == "[]\n"
