"""`/agent-questions <word> …`: the team command's subcommands, one handler each.

The bare command shows the team view. A first word names a subcommand (`grants`, `delegate`,
`export`, …) whose handler a feature registers in `Subcommands`; `help` lists them. An
unknown word is answered ephemerally with the words there are, so a typo never silently
shows the list instead of doing what was asked.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from pydantic import BaseModel, ConfigDict

from bot.team import COMMAND, Respond

log = logging.getLogger(__name__)


class CommandBody(BaseModel):
    """The parts of a slash command's payload a subcommand reads."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    user_id: str
    text: str = ""
    channel_id: str = ""
    trigger_id: str = ""


@dataclass(frozen=True)
class CommandCall:
    """One run of a subcommand: who ran it, the words after the subcommand's name, where,
    the trigger for a modal, and the ephemeral reply through the command's response_url."""

    user: str
    args: str
    channel: str
    trigger_id: str
    respond: Respond


Handler = Callable[[CommandCall], Awaitable[None]]


@dataclass(frozen=True)
class Subcommand:
    """A subcommand's handler and its one-line help, as `help` lists it."""

    usage: str  # e.g. "grants — the grants you may see, with Revoke"
    run: Handler


@dataclass(frozen=True)
class Subcommands:
    """The subcommands by their first word."""

    by_word: Mapping[str, Subcommand] = field(default_factory=dict)

    def split(self, text: str) -> tuple[str, str]:
        """The first word (lower case) and the rest of the command's text."""
        word, _, rest = text.strip().partition(" ")
        return word.lower(), rest.strip()

    def help_text(self) -> str:
        """What `help` (and an unknown word) answers: every subcommand and its usage."""
        lines = [f"`{COMMAND}` shows the asks waiting for an answer and the recent decisions."]
        lines += [f"`{COMMAND} {sub.usage}`" for _, sub in sorted(self.by_word.items())]
        return "\n".join(lines)

    async def run(self, word: str, call: CommandCall) -> None:
        """Run the subcommand `word`; `help` or an unknown word gets the list of them."""
        sub = self.by_word.get(word)
        if sub is not None:
            await sub.run(call)
            return
        intro = "" if word == "help" else f"`{COMMAND}` has no subcommand `{word}`.\n"
        await reply(call.respond, intro + self.help_text())


async def reply(respond: Respond, text: str, blocks: Sequence[dict[str, Any]] = ()) -> None:
    """Answer a command ephemerally through its response_url; a failure is logged, since the
    person who ran the command is no longer waiting on the request."""
    try:
        response = await respond(text=text, blocks=list(blocks), response_type="ephemeral")
    except (aiohttp.ClientError, TimeoutError):
        log.exception("could not answer %s", COMMAND)
        return
    if response.status_code != 200:
        log.error("could not answer %s: HTTP %s %s", COMMAND, response.status_code, response.body)
