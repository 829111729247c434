"""Only our own workspace and app reach an ask: an interaction whose team, enterprise or app
id is not the bot's (as auth.test named them) is acked and refused, with one WARNING line and
nothing changed in Slack or in the store."""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from urllib.parse import urlencode

import pytest

from bot.store import AskState, InboxItem, InboxKind, MemoryStore
from bot.team import COMMAND
from slack_emulator import Message, Person, SlackEmulator

from ..harness import ALICE, CHANNEL, Bot, request, running_bot

DB = {
    "id": "db",
    "question": "Which database?",
    "options": [{"label": "Postgres"}, {"label": "SQLite"}],
}
NAME = {"id": "name", "question": "Name the service"}
EVIL_TEAM = "TEVIL00001"
EVIL_APP = "AEVIL00001"
REFUSALS = "bot.interactions.origins"


class SpyStore(MemoryStore):
    """A memory store that records what reaches its inbox."""

    def __init__(self) -> None:
        super().__init__()
        self.kept: list[InboxItem] = []

    async def inbox_add(self, item: InboxItem) -> None:
        self.kept.append(item)
        await super().inbox_add(item)


Act = Callable[[Person, Person, Bot, Message], Awaitable[object]]


async def pick(own: Person, sender: Person, bot: Bot, message: Message) -> object:
    return await sender.click(message, text="SQLite")


async def submit_form(own: Person, sender: Person, bot: Bot, message: Message) -> object:
    # The form is opened from our own workspace; only its submission claims another.
    await own.click(message, text="Answer in a form")
    await bot.idle()
    [form] = bot.emu.views(ALICE)
    await own.choose(form, block_id="db", value="1")
    await own.type(form, block_id="name", text="billing")
    return await sender.submit(bot.emu.views(ALICE)[0])


async def reply(own: Person, sender: Person, bot: Bot, message: Message) -> object:
    return await sender.reply(CHANNEL, message.ts, "billing")


KINDS = [
    pytest.param(pick, (DB,), id="a click"),
    pytest.param(submit_form, (DB, NAME), id="a form submission"),
    pytest.param(reply, (NAME,), id="a thread reply"),
]
FOREIGN = [
    pytest.param({"team_id": EVIL_TEAM}, EVIL_TEAM, id="from another team"),
    pytest.param({"app_id": EVIL_APP}, EVIL_APP, id="for another app"),
]


def refusals(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == REFUSALS]


@pytest.mark.parametrize(("claims", "named"), FOREIGN)
@pytest.mark.parametrize(("act", "questions"), KINDS)
async def test_a_foreign_interaction_from_an_allowed_user_changes_nothing(
    emu: SlackEmulator,
    caplog: pytest.LogCaptureFixture,
    act: Act,
    questions: tuple[Mapping[str, object], ...],
    claims: dict[str, str],
    named: str,
) -> None:
    store = SpyStore()
    async with running_bot(emu, store=store) as bot:
        asking = bot.ask(*questions)
        message = await bot.posted()
        own, sender = emu.person(ALICE), emu.person(ALICE, **claims)
        before = bot.now(message)
        caplog.clear()
        await act(own, sender, bot, message)
        await bot.idle()
        delivery = emu.deliveries[-1]
        [record] = await store.recent(limit=10)
        assert record.state is AskState.PENDING
        assert bot.now(message).blocks == before.blocks
        assert store.kept == []
        assert not asking.done()
        asking.cancel()
    assert delivery.status == 200  # acked, so Slack does not send it again
    [warning] = refusals(caplog)
    assert warning.levelno == logging.WARNING
    assert named in warning.getMessage()
    assert emu.ephemerals(ALICE) == []


@pytest.mark.parametrize(("act", "questions"), KINDS)
async def test_the_same_interaction_from_our_own_team_and_app_still_answers(
    emu: SlackEmulator,
    caplog: pytest.LogCaptureFixture,
    act: Act,
    questions: tuple[Mapping[str, object], ...],
) -> None:
    async with running_bot(emu) as bot:
        asking = bot.ask(*questions)
        message = await bot.posted()
        own = emu.person(ALICE)
        await act(own, own, bot, message)
        answer = await asking
        await bot.idle()
    assert answer.answers[0].id == questions[0]["id"]
    assert refusals(caplog) == []


async def test_a_foreign_slash_command_is_acked_with_nothing_and_lists_nothing(
    emu: SlackEmulator, caplog: pytest.LogCaptureFixture
) -> None:
    async with running_bot(emu) as bot:
        delivery = await emu.person(ALICE, team_id=EVIL_TEAM).command(COMMAND)
        await bot.idle()
    assert (delivery.status, delivery.ack) == (200, None)
    assert emu.calls_to("response_url") == []
    [warning] = refusals(caplog)
    assert EVIL_TEAM in warning.getMessage()


async def test_a_foreign_home_tab_opening_publishes_nothing(
    emu: SlackEmulator, caplog: pytest.LogCaptureFixture
) -> None:
    async with running_bot(emu) as bot:
        delivery = await emu.person(ALICE, app_id=EVIL_APP).open_home()
        await bot.idle()
    assert delivery.status == 200
    assert emu.calls_to("views.publish") == []
    assert emu.home(ALICE) is None
    [warning] = refusals(caplog)
    assert EVIL_APP in warning.getMessage()


async def test_a_kept_foreign_click_is_forgotten_on_replay_without_answering(
    emu: SlackEmulator, caplog: pytest.LogCaptureFixture
) -> None:
    store = MemoryStore()
    async with running_bot(emu, store=store) as bot:
        await bot.provider.asks.create(request(DB), ask_id="a1")
        await bot.provider.posting.post("a1")
        message = await bot.posted()
        url, emu.request_url = emu.request_url, None  # signed by Slack, never received
        delivery = await emu.person(ALICE, team_id=EVIL_TEAM).click(message, text="SQLite")
        emu.request_url = url
    before = bot.now(message)
    # As if it had been kept by a bot that did not check (or knew other ids).
    body = urlencode({"payload": json.dumps(delivery.payload)})
    await store.inbox_add(
        InboxItem(id="i1", received_at=1.0, kind=InboxKind.BLOCK_ACTIONS, body=body)
    )
    caplog.clear()
    async with running_bot(emu, store=store) as bot:
        await bot.idle()
        assert await store.inbox_pending() == []
        record = await store.get("a1")
        assert bot.now(message).blocks == before.blocks
    assert record is not None
    assert record.state is AskState.PENDING
    [warning] = refusals(caplog)
    assert EVIL_TEAM in warning.getMessage()
