"""`/agent-questions <word>`: a registered subcommand gets its words, `help` lists usages."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from slack_sdk.webhook import WebhookResponse

from bot.interactions.team_commands import CommandCall, Subcommand, Subcommands


class Replies:
    """A response_url that keeps what it was sent."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    async def __call__(
        self, *, text: str, blocks: Sequence[dict[str, Any]], response_type: str
    ) -> WebhookResponse:
        assert response_type == "ephemeral"
        self.texts.append(text)
        return WebhookResponse(url="", status_code=200, body="ok", headers={})


def call(args: str, respond: Replies) -> CommandCall:
    return CommandCall("U1", args, "C1", "trigger", respond)


async def test_a_subcommand_runs_with_the_words_after_its_name() -> None:
    seen: list[str] = []

    async def grants(call: CommandCall) -> None:
        seen.append(call.args)

    subs = Subcommands({"grants": Subcommand("grants — list them", grants)})
    word, args = subs.split("  Grants   revoke g-1 ")
    await subs.run(word, call(args, Replies()))
    assert (word, seen) == ("grants", ["revoke g-1"])


async def test_help_lists_every_subcommand_in_order() -> None:
    async def nothing(call: CommandCall) -> None:
        return None

    subs = Subcommands(
        {
            "grants": Subcommand("grants — list them", nothing),
            "delegate": Subcommand("delegate @deputy until DATE", nothing),
        }
    )
    replies = Replies()
    await subs.run("help", call("", replies))
    assert replies.texts == [
        "`/agent-questions` shows the asks waiting for an answer and the recent decisions.\n"
        "`/agent-questions delegate @deputy until DATE`\n"
        "`/agent-questions grants — list them`"
    ]
