"""`/agent-questions export [since] [until]`: the asks a person may see, as a CSV in their DM."""

from __future__ import annotations

import csv
import io

from bot.store import AskState, MemoryStore, Verdict
from bot.team import COMMAND
from slack_emulator import ApiError, SlackEmulator
from tests.bot.audit_asks import ASKS, HEADER
from tests.bot.audit_asks import CHANNEL as SCRIPTED_CHANNEL

from ..harness import ALICE, CAROL, CHANNEL, running_bot

PRIVATE = "G0PRIVATE1"  # alice and the bot; carol is not in it
DAY = "2026-12-01 2026-12-02"
USAGE = (
    "`/agent-questions export [since] [until] — the asks you may see, made from since "
    "(default: 30 days ago) to until (default: now), as a CSV file in your DM`"
)


async def scripted(emu: SlackEmulator) -> MemoryStore:
    """The scripted asks, settled, in our channel, but `a3-plan` in a private channel."""
    emu.workspace.add_channel(
        PRIVATE, name="secret", members=[ALICE, emu.bot_user_id], is_private=True
    )
    store = MemoryStore()
    for record in ASKS:
        moved = record.evolve(channel=CHANNEL if record.channel == SCRIPTED_CHANNEL else PRIVATE)
        if not moved.settled:
            moved = moved.evolve(state=AskState.FAILED, verdict=Verdict.EXPIRED)
        await store.add(moved)
    return store


async def export(emu: SlackEmulator, user: str, text: str) -> str:
    """Run the subcommand as `user`; the ephemeral reply's text."""
    before = len(emu.ephemerals(user))
    await emu.person(user).command(COMMAND, f"export {text}".strip())
    await emu.wait_for(lambda: len(emu.ephemerals(user)) > before, what="the reply")
    return emu.ephemerals(user)[-1].text


def ids_in(content: str) -> list[str]:
    return [row["ask_id"] for row in csv.DictReader(io.StringIO(content, newline=""))]


async def test_the_file_in_the_dm_holds_every_ask_the_person_may_see(emu: SlackEmulator) -> None:
    store = await scripted(emu)
    async with running_bot(emu, store=store):
        text = await export(emu, ALICE, DAY)
    [sent] = emu.files()
    assert text == (
        "Sent you 5 asks made from 2026-12-01T00:00:00.000Z to 2026-12-02T00:00:00.000Z as "
        "`asks-2026-12-01-to-2026-12-02.csv`, in our DM."
    )
    assert (sent.filename, sent.channels) == (
        "asks-2026-12-01-to-2026-12-02.csv",
        [emu.workspace.im_channel(ALICE).id],
    )
    assert sent.comment == (
        "5 asks made from 2026-12-01T00:00:00.000Z to 2026-12-02T00:00:00.000Z: those you may see."
    )
    assert sent.text.startswith(HEADER)
    assert ids_in(sent.text) == ["a1-person", "a2-rule", "a3-plan", "a4-batch", "a5-grant"]


async def test_someone_outside_a_channel_gets_none_of_its_asks(emu: SlackEmulator) -> None:
    store = await scripted(emu)
    async with running_bot(emu, store=store):
        await export(emu, CAROL, DAY)
    [sent] = emu.files()
    assert ids_in(sent.text) == ["a1-person", "a2-rule", "a4-batch", "a5-grant"]
    assert sent.channels == [emu.workspace.im_channel(CAROL).id]


async def test_permalinks_are_built_from_the_workspace_url(emu: SlackEmulator) -> None:
    store = await scripted(emu)
    async with running_bot(emu, store=store):
        await export(emu, ALICE, DAY)
    [sent] = emu.files()
    first = next(csv.DictReader(io.StringIO(sent.text, newline="")))
    assert first["permalink"] == (
        f"{emu.identity.workspace_url}archives/{CHANNEL}/p1796115600000200"
        f"?thread_ts=1796115000.000100&cid={CHANNEL}"
    )


async def test_a_period_without_asks_they_may_see_sends_no_file(emu: SlackEmulator) -> None:
    store = await scripted(emu)
    async with running_bot(emu, store=store):
        text = await export(emu, CAROL, "2026-11-01 2026-11-02")
    assert text == (
        "No asks you may see were made from 2026-11-01T00:00:00.000Z to 2026-11-02T00:00:00.000Z."
    )
    assert (emu.files(), emu.calls_to("files.getUploadURLExternal")) == ([], [])


async def test_a_bad_date_is_named_and_nothing_is_sent(emu: SlackEmulator) -> None:
    async with running_bot(emu, store=MemoryStore()):
        text = await export(emu, ALICE, "2026-13-01")
    assert text == (
        "`/agent-questions export`: since '2026-13-01' is not an ISO-8601 date or time "
        f"(e.g. 2026-12-01 or 2026-12-01T09:30:00Z). Usage: {USAGE}"
    )
    assert emu.calls_to("files.getUploadURLExternal") == []


async def test_an_until_before_since_is_refused(emu: SlackEmulator) -> None:
    async with running_bot(emu, store=MemoryStore()):
        text = await export(emu, ALICE, "2026-12-02 2026-12-01")
    assert text == (
        "`/agent-questions export`: until 2026-12-01T00:00:00.000Z is not after since "
        f"2026-12-02T00:00:00.000Z. Usage: {USAGE}"
    )


async def test_more_than_two_words_are_refused(emu: SlackEmulator) -> None:
    async with running_bot(emu, store=MemoryStore()):
        text = await export(emu, ALICE, "2026-12-01 2026-12-02 jsonl")
    assert text == (
        "`/agent-questions export`: expected at most a since and an until, not 3 words. "
        f"Usage: {USAGE}"
    )


async def test_help_lists_export(emu: SlackEmulator) -> None:
    async with running_bot(emu, store=MemoryStore()):
        before = len(emu.ephemerals(ALICE))
        await emu.person(ALICE).command(COMMAND, "help")
        await emu.wait_for(lambda: len(emu.ephemerals(ALICE)) > before, what="the help")
    assert USAGE in emu.ephemerals(ALICE)[-1].text


async def test_a_refused_upload_is_told_to_the_person(emu: SlackEmulator) -> None:
    store = await scripted(emu)
    emu.inject("files.completeUploadExternal", ApiError("missing_scope"))
    async with running_bot(emu, store=store):
        text = await export(emu, ALICE, DAY)
    assert text == (
        "Could not send the file: Slack refused files.completeUploadExternal: missing_scope."
    )
    assert emu.files() == []


async def test_a_channel_whose_members_cannot_be_read_is_left_out_and_said_so(
    emu: SlackEmulator,
) -> None:
    store = await scripted(emu)
    emu.inject("conversations.members", ApiError("missing_scope"), times=None)
    async with running_bot(emu, store=store):
        text = await export(emu, CAROL, DAY)
    assert text == (
        "No asks you may see were made from 2026-12-01T00:00:00.000Z to "
        "2026-12-02T00:00:00.000Z.\n"
        f":lock: Some asks in <#{CHANNEL}>, <#{PRIVATE}> were left out: the bot could not read "
        "who is in there, so from there you get only the asks you may answer or review."
    )
