"""`/agent-questions export [since] [until]`: the asks a person may see, as a CSV file in their
DM with the bot.

The same rows as `python -m bot audit export` (bot/asks/audit_export.py), but only the asks
the person may see in the team view (`Audience`: their channels' asks, and those they may
answer or review), so the file shows nobody more than Slack already does. `since` defaults
to 30 days ago, `until` to now; each an ISO-8601 date or time (UTC unless it says otherwise).
Every reply is ephemeral; a bad date names itself and nothing is sent.
"""

from __future__ import annotations

import logging
from typing import Final

from bot.asks.audit_export import (
    ExportFormat,
    encode,
    header,
    iso,
    parse_time,
    records_in,
    row_of,
)
from bot.clock import Clock
from bot.interactions.team_commands import CommandCall, Subcommand, reply
from bot.slack.api import SlackCallFailed, SlackClient
from bot.slack.audience import Audience
from bot.slack.dm_files import send_file
from bot.slack.workspace_url import WorkspaceUrl
from bot.store import AskRecord, AskStore
from bot.store.queries import PAGE_MAX, AskQuery
from bot.team import COMMAND

log = logging.getLogger(__name__)

WORD: Final = "export"
USAGE: Final = (
    f"{WORD} [since] [until] — the asks you may see, made from since (default: 30 days ago) "
    "to until (default: now), as a CSV file in your DM"
)
DEFAULT_DAYS: Final = 30


class AuditExports:
    """Runs `/agent-questions export` for one person at a time."""

    def __init__(
        self,
        store: AskStore,
        audience: Audience,
        client: SlackClient,
        workspace: WorkspaceUrl,
        clock: Clock,
    ) -> None:
        self._store = store
        self._audience = audience
        self._client = client
        self._workspace = workspace
        self._clock = clock

    def subcommand(self) -> Subcommand:
        """The entry `Subcommands` lists it under."""
        return Subcommand(USAGE, self.run)

    async def run(self, call: CommandCall) -> None:
        """Send `call.user` the file of the period `call.args` names, or say what was wrong."""
        try:
            query = self._query(call.args)
        except ValueError as error:
            await reply(call.respond, f"`{COMMAND} {WORD}`: {error}. Usage: `{COMMAND} {USAGE}`")
            return
        shown, unread = await self._visible(call.user, query)
        period = f"from {iso(query.since)} to {iso(query.until)}"
        if not shown:
            await reply(call.respond, f"No asks you may see were made {period}.{_note(unread)}")
            return
        workspace = await self._workspace.get()
        content = header(ExportFormat.CSV) + "".join(
            encode([row_of(r, workspace) for r in shown], ExportFormat.CSV)
        )
        filename = f"asks-{iso(query.since)[:10]}-to-{iso(query.until)[:10]}.csv"
        try:
            await send_file(
                self._client,
                call.user,
                filename=filename,
                content=content.encode(),
                comment=f"{len(shown)} asks made {period}: those you may see.",
            )
        except SlackCallFailed as failed:
            log.warning("%s %s: could not send the file: %s", COMMAND, WORD, failed)
            await reply(call.respond, f"Could not send the file: {failed}.")
            return
        await reply(
            call.respond,
            f"Sent you {len(shown)} asks made {period} as `{filename}`, in our DM.{_note(unread)}",
        )

    def _query(self, args: str) -> AskQuery:
        words = args.split()
        if len(words) > 2:
            raise ValueError(f"expected at most a since and an until, not {len(words)} words")
        now = self._clock.now()
        since = parse_time(words[0], "since") if words else now - DEFAULT_DAYS * 86400
        until = parse_time(words[1], "until") if len(words) > 1 else now
        if until <= since:
            raise ValueError(f"until {iso(until)} is not after since {iso(since)}")
        return AskQuery(since=since, until=until)

    async def _visible(self, user: str, query: AskQuery) -> tuple[list[AskRecord], set[str]]:
        """The asks of `query` that `user` may see, and the channels whose members could not
        be read (their asks were shown only to who may answer or review them)."""
        shown: list[AskRecord] = []
        unread: set[str] = set()
        batch: list[AskRecord] = []
        async for record in records_in(self._store, query):
            batch.append(record)
            if len(batch) == PAGE_MAX:
                seen = await self._audience.visible(user, batch)
                shown += seen.records
                unread.update(seen.unread)
                batch = []
        if batch:
            seen = await self._audience.visible(user, batch)
            shown += seen.records
            unread.update(seen.unread)
        return shown, unread


def _note(unread: set[str]) -> str:
    if not unread:
        return ""
    channels = ", ".join(f"<#{c}>" for c in sorted(unread))
    return (
        f"\n:lock: Some asks in {channels} were left out: the bot could not read who is in "
        "there, so from there you get only the asks you may answer or review."
    )
