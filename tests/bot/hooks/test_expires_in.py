"""`expires_in` on the relay's create: the ask is withdrawn when its asker stops waiting, even
across a restart; out-of-range values are refused naming the field."""

from __future__ import annotations

from pathlib import Path

import aiohttp
import pytest

from bot.outcomes import Verdict
from provider import AskUserQuestionRequest
from provider.relay_client import RelayProvider
from provider.types import AskUserQuestionItem, AskUserQuestionOption
from slack_emulator import SlackEmulator

from ..service.harness import RELAY_TOKEN, in_process

QUESTION = AskUserQuestionItem(
    id="approve",
    question="Allow Bash: `git push`?",
    options=[AskUserQuestionOption(label="Allow"), AskUserQuestionOption(label="Deny")],
)


async def test_an_ask_is_withdrawn_after_expires_in_even_across_a_restart(
    emu: SlackEmulator, tmp_path: Path
) -> None:
    db = tmp_path / "asks.db"
    async with (
        in_process(emu, db) as server,
        RelayProvider(server.url, RELAY_TOKEN, expires_in=2) as relay,
    ):
        view = await relay.start(AskUserQuestionRequest(questions=[QUESTION]), idempotency_key="k1")
    # Stopped before it lapsed; the timer is rebuilt from the stored expires_at.
    async with in_process(emu, db) as server:
        record = await server.provider.asks.wait(view.id)
    assert (record.verdict, record.reason) == (
        Verdict.WITHDRAWN,
        "the asking process stopped waiting for an answer",
    )


@pytest.mark.parametrize("seconds", [0, 86401, 2.5])
async def test_an_expires_in_out_of_range_is_refused_naming_it(
    emu: SlackEmulator, tmp_path: Path, seconds: float
) -> None:
    async with (
        in_process(emu, tmp_path / "asks.db") as server,
        aiohttp.ClientSession() as http,
        http.post(
            f"{server.url}/v1/asks",
            json={"questions": [QUESTION.to_wire()], "expires_in": seconds},
            headers={"Authorization": f"Bearer {RELAY_TOKEN}"},
        ) as response,
    ):
        body = await response.json()
    assert (response.status, body["error"]["code"], [f["field"] for f in body["fields"]]) == (
        400,
        "INVALID_BODY",
        ["expires_in"],
    )
