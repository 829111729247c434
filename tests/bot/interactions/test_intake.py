"""The intake: an acked click is never lost (kept in the inbox before its ack, replayed after a
restart), and live handling and replay run the same dispatch."""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
from collections.abc import Awaitable, Callable, Mapping
from contextlib import closing
from pathlib import Path
from urllib.parse import urlencode

import pytest

from bot.interactions.intake import body_of
from bot.store import AskEvent, AskRecord, AskState, InboxItem, InboxKind, MemoryStore, Verdict
from bot.store.sqlite import SqliteStore
from slack_emulator import Message, Person, SlackEmulator

from ..harness import ALICE, BOB, CHANNEL, REVIEWERS, Bot, request, running_bot

DB = {
    "id": "db",
    "question": "Which database?",
    "options": [{"label": "Postgres"}, {"label": "SQLite"}],
}
NAME = {"id": "name", "question": "Name the service"}


class SpyStore(MemoryStore):
    """A memory store that records what reaches its inbox."""

    def __init__(self) -> None:
        super().__init__()
        self.kept: list[InboxItem] = []
        self.done: list[str] = []

    async def inbox_add(self, item: InboxItem) -> None:
        self.kept.append(item)
        await super().inbox_add(item)

    async def inbox_done(self, item_id: str) -> None:
        self.done.append(item_id)
        await super().inbox_done(item_id)


async def relay_ask(bot: Bot, ask_id: str, *questions: Mapping[str, object]) -> None:
    """An ask made as the relay makes it: kept pending by the store across restarts."""
    await bot.provider.asks.create(request(*questions), ask_id=ask_id)
    await bot.provider.posting.post(ask_id)


async def unsent_click(emu: SlackEmulator, bot: Bot, label: str) -> str:
    """The body Slack signs for a click on `label`, as it would reach us (not delivered)."""
    url, emu.request_url = emu.request_url, None
    delivery = await emu.person(ALICE).click(await bot.posted(), text=label)
    emu.request_url = url
    return urlencode({"payload": json.dumps(delivery.payload)})


async def test_a_click_is_kept_before_its_ack_and_forgotten_once_handled(
    emu: SlackEmulator,
) -> None:
    store = SpyStore()
    # Only the reviewers may answer: admitting Alice needs a lookup, so the click is kept.
    async with running_bot(emu, store=store, responders=[REVIEWERS]) as bot:
        asking = bot.ask(DB)
        delivery = await emu.person(ALICE).click(await bot.posted(), text="SQLite")
        assert (await asking).answers[0].selected == ["SQLite"]
        await bot.idle()
    assert delivery.acked
    [kept] = store.kept
    assert kept.kind is InboxKind.BLOCK_ACTIONS
    assert body_of(kept.body) == delivery.payload
    assert store.done == [kept.id]
    assert await store.inbox_pending() == []


class BrokenInbox(MemoryStore):
    """A store whose inbox refuses every write."""

    async def inbox_add(self, item: InboxItem) -> None:
        raise OSError("disk full")


async def test_a_click_the_inbox_cannot_keep_is_still_acked_and_answers(
    emu: SlackEmulator, caplog: pytest.LogCaptureFixture
) -> None:
    async with running_bot(emu, store=BrokenInbox(), responders=[REVIEWERS]) as bot:
        asking = bot.ask(DB)
        delivery = await emu.person(ALICE).click(await bot.posted(), text="Postgres")
        assert (await asking).answers[0].selected == ["Postgres"]
    assert delivery.acked
    assert "could not keep a block_actions in the inbox; handling it anyway" in caplog.text


class GatedSettle(SpyStore):
    """Holds every settlement until `open` is set, and says when one is waiting."""

    def __init__(self) -> None:
        super().__init__()
        self.settling = asyncio.Event()
        self.open = asyncio.Event()
        self.settled: list[AskRecord] = []

    async def settle(self, record: AskRecord, event: AskEvent) -> bool:
        self.settling.set()
        await self.open.wait()
        won = await super().settle(record, event)
        self.settled.append(record)
        return won


async def test_a_pick_anyone_may_answer_is_saved_before_its_ack_and_wakes_the_agent_after(
    emu: SlackEmulator,
) -> None:
    store = GatedSettle()
    async with running_bot(emu, store=store) as bot:
        asking = bot.ask(DB)
        clicking = asyncio.ensure_future(emu.person(ALICE).click(await bot.posted(), text="SQLite"))
        await store.settling.wait()
        await asyncio.sleep(0.05)  # room for an early ack or wake-up, were there one
        assert not clicking.done()  # no ack yet
        assert not asking.done()  # and the agent not woken
        store.open.set()
        delivery = await clicking
        assert (await asking).answers[0].selected == ["SQLite"]
        await bot.idle()
    assert (delivery.status, delivery.acked) == (200, True)
    [record] = store.settled
    assert (record.state, record.decided_by) == (AskState.ANSWERED, ALICE)
    # The settlement keeps the click: no inbox row to write before the ack, none to forget.
    assert (store.kept, store.done) == ([], [])
    assert len(emu.calls_to("chat.update")) == 1


async def test_a_pick_is_committed_to_the_file_before_the_agent_hears_the_answer(
    emu: SlackEmulator, tmp_path: Path
) -> None:
    seen: list[tuple[str, ...]] = []

    def read_the_file(_: object) -> None:
        # Runs the moment the agent's ask completes: what another process would read then.
        with closing(sqlite3.connect(tmp_path / "asks.db")) as conn:
            seen.extend(row for row in conn.execute("SELECT state FROM asks"))

    async with SqliteStore(tmp_path / "asks.db") as store, running_bot(emu, store=store) as bot:
        asking = bot.ask(DB)
        asking.add_done_callback(read_the_file)
        await emu.person(ALICE).click(await bot.posted(), text="SQLite")
        assert (await asking).answers[0].selected == ["SQLite"]
        await bot.idle()
        assert await store.inbox_pending() == []
    assert seen == [("answered",)]


class GatedPost(SpyStore):
    """Holds the save of a posted message until `open` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.saving = asyncio.Event()
        self.open = asyncio.Event()

    async def advance(self, record: AskRecord, event: AskEvent) -> bool:
        self.saving.set()
        await self.open.wait()
        return await super().advance(record, event)


async def test_a_pick_while_its_post_is_still_being_saved_is_kept_and_answers_after(
    emu: SlackEmulator,
) -> None:
    store = GatedPost()
    async with running_bot(emu, store=store) as bot:
        asking = bot.ask(DB)
        message = await bot.posted()
        await store.saving.wait()
        async with asyncio.timeout(10):  # the ack is not held until the post is saved
            delivery = await emu.person(ALICE).click(message, text="SQLite")
        assert delivery.acked
        store.open.set()
        assert (await asking).answers[0].selected == ["SQLite"]
        await bot.idle()
    assert [item.kind for item in store.kept] == [InboxKind.BLOCK_ACTIONS]


class FailsOnce(SpyStore):
    """The first settlement fails (nothing is saved); later ones go through."""

    def __init__(self) -> None:
        super().__init__()
        self.failed = False

    async def settle(self, record: AskRecord, event: AskEvent) -> bool:
        if not self.failed:
            self.failed = True
            raise OSError("disk full")
        return await super().settle(record, event)


async def test_a_pick_that_cannot_be_saved_on_the_spot_is_kept_and_answers_after_the_ack(
    emu: SlackEmulator, caplog: pytest.LogCaptureFixture
) -> None:
    store = FailsOnce()
    async with running_bot(emu, store=store) as bot:
        asking = bot.ask(DB)
        delivery = await emu.person(ALICE).click(await bot.posted(), text="Postgres")
        assert (await asking).answers[0].selected == ["Postgres"]
        await bot.idle()
    assert delivery.acked
    assert "could not decide a pick of ask" in caplog.text
    assert [item.kind for item in store.kept] == [InboxKind.BLOCK_ACTIONS]
    assert store.done == [store.kept[0].id]


async def test_a_thread_reply_is_kept_as_a_message(emu: SlackEmulator) -> None:
    store = SpyStore()
    async with running_bot(emu, store=store) as bot:
        asking = bot.ask(NAME)
        message = await bot.posted()
        await emu.person(ALICE).reply(CHANNEL, message.ts, "billing")
        assert (await asking).answers[0].custom == "billing"
        await bot.idle()
    assert [item.kind for item in store.kept] == [InboxKind.MESSAGE]
    assert store.done == [store.kept[0].id]


async def test_opening_a_modal_is_not_kept(emu: SlackEmulator) -> None:
    store = SpyStore()
    async with running_bot(emu, store=store) as bot:
        bot.ask(DB)
        await emu.person(ALICE).click(await bot.posted(), text="Other…")
        await bot.idle()
    assert store.kept == []


async def test_a_click_kept_but_never_handled_answers_the_ask_on_the_next_start(
    emu: SlackEmulator, tmp_path: Path
) -> None:
    async with SqliteStore(tmp_path / "asks.db") as store:
        async with running_bot(emu, store=store) as bot:
            await relay_ask(bot, "a1", DB)
            body = await unsent_click(emu, bot, "SQLite")
        # What a kill -9 right after the ack leaves behind.
        await store.inbox_add(
            InboxItem(id="i1", received_at=1.0, kind=InboxKind.BLOCK_ACTIONS, body=body)
        )
        async with running_bot(emu, store=store) as bot, asyncio.timeout(10):
            record = await bot.provider.asks.wait("a1")
            await bot.idle()
        assert record.state is AskState.ANSWERED
        assert record.answer is not None
        assert record.answer.answers[0].selected == ["SQLite"]
        assert record.decided_by == ALICE
        assert await store.inbox_pending() == []


async def test_a_replayed_click_on_an_ask_answered_meanwhile_changes_nothing(
    emu: SlackEmulator, tmp_path: Path
) -> None:
    async with SqliteStore(tmp_path / "asks.db") as store:
        async with running_bot(emu, store=store) as bot:
            await relay_ask(bot, "a1", DB)
            body = await unsent_click(emu, bot, "SQLite")
            await emu.person(BOB).click(await bot.posted(), text="Postgres")
            first = await bot.provider.asks.wait("a1")
            await bot.idle()
        await store.inbox_add(
            InboxItem(id="i1", received_at=1.0, kind=InboxKind.BLOCK_ACTIONS, body=body)
        )
        async with running_bot(emu, store=store) as bot:
            await bot.idle()
        record = await store.get("a1")
        assert record is not None
        assert (record.decided_by, record.answer) == (BOB, first.answer)
        assert await store.inbox_pending() == []


async def test_an_unreadable_kept_body_is_dropped_on_start(
    emu: SlackEmulator, tmp_path: Path
) -> None:
    async with SqliteStore(tmp_path / "asks.db") as store:
        await store.inbox_add(
            InboxItem(id="i1", received_at=1.0, kind=InboxKind.VIEW_CLOSED, body="payload=%7B")
        )
        async with running_bot(emu, store=store) as bot:
            await bot.idle()
        assert await store.inbox_pending() == []


def test_a_kept_body_reads_back_as_form_or_json() -> None:
    payload = {"type": "block_actions", "text": "é & 🚀 %"}
    assert body_of(urlencode({"payload": json.dumps(payload)})) == payload
    assert body_of(json.dumps(payload)) == payload
    assert body_of("[1]") is None
    assert body_of("token=x") is None


# --- live and replayed: one dispatch ---------------------------------------------------------

BATCH = (DB, NAME)
Act = Callable[[Person, Bot, Message], Awaitable[Callable[[], Awaitable[object]]]]


async def pick(alice: Person, bot: Bot, message: Message) -> Callable[[], Awaitable[object]]:
    return lambda: alice.click(message, text="SQLite")


async def submit_part(alice: Person, bot: Bot, message: Message) -> Callable[[], Awaitable[object]]:
    await alice.choose(message, block_id="db", value="1")
    await alice.type(message, block_id="name", text="billing")
    return lambda: alice.click(message, text="Submit")


async def submit_form(alice: Person, bot: Bot, message: Message) -> Callable[[], Awaitable[object]]:
    await alice.click(message, text="Answer in a form")
    await bot.idle()
    [form] = bot.emu.views(ALICE)
    await alice.choose(form, block_id="db", value="1")
    await alice.type(form, block_id="name", text="billing")
    return lambda: alice.submit(bot.emu.views(ALICE)[0])


async def submit_other(
    alice: Person, bot: Bot, message: Message
) -> Callable[[], Awaitable[object]]:
    await alice.click(message, text="Other…")
    await bot.idle()
    [modal] = bot.emu.views(ALICE)
    await alice.type(modal, block_id="db", text="CockroachDB")
    return lambda: alice.submit(bot.emu.views(ALICE)[0])


async def close_form(alice: Person, bot: Bot, message: Message) -> Callable[[], Awaitable[object]]:
    await alice.click(message, text="Answer in a form")
    await bot.idle()
    return lambda: alice.close(bot.emu.views(ALICE)[0])


async def reply(alice: Person, bot: Bot, message: Message) -> Callable[[], Awaitable[object]]:
    return lambda: alice.reply(CHANNEL, message.ts, "billing")


SQLITE_AND_BILLING = {
    "answers": [
        {"id": "db", "selected": ["SQLite"]},
        {"id": "name", "selected": [], "custom": "billing"},
    ]
}
EVERY_KEPT_KIND = [
    pytest.param(pick, (DB,), {"answers": [{"id": "db", "selected": ["SQLite"]}]}, id="a pick"),
    pytest.param(submit_part, BATCH, SQLITE_AND_BILLING, id="a part submitted"),
    pytest.param(submit_form, BATCH, SQLITE_AND_BILLING, id="a form submitted"),
    pytest.param(
        submit_other,
        (DB,),
        {"answers": [{"id": "db", "selected": [], "custom": "CockroachDB"}]},
        id="Other submitted",
    ),
    pytest.param(close_form, BATCH, None, id="a form closed"),
    pytest.param(
        reply,
        (NAME,),
        {"answers": [{"id": "name", "selected": [], "custom": "billing"}]},
        id="a thread reply",
    ),
]


@pytest.mark.parametrize("replayed", [False, True], ids=["live", "replayed after a restart"])
@pytest.mark.parametrize(("act", "questions", "answer"), EVERY_KEPT_KIND)
async def test_a_kept_interaction_settles_the_ask_the_same_live_and_replayed(
    emu: SlackEmulator,
    tmp_path: Path,
    act: Act,
    questions: tuple[Mapping[str, object], ...],
    answer: dict[str, object] | None,
    replayed: bool,
) -> None:
    async with SqliteStore(tmp_path / "asks.db") as store:
        # Only the reviewers may answer: admitting Alice needs a lookup, so a pick is kept too.
        async with running_bot(emu, store=store, responders=[REVIEWERS]) as bot:
            await relay_ask(bot, "a1", *questions)
            last = await act(emu.person(ALICE), bot, await bot.posted())
            if replayed:
                url, emu.request_url = emu.request_url, None  # sent by Slack, never received
                await last()
                emu.request_url = url
                delivery = emu.deliveries[-1]
            else:
                await last()
                await bot.provider.asks.wait("a1")
            await bot.idle()
        if replayed:
            # What a kill -9 right after the ack leaves behind: the row, as it was kept.
            kind = (
                InboxKind.MESSAGE if delivery.kind == "event_callback" else InboxKind(delivery.kind)
            )
            body = (
                json.dumps(delivery.payload)
                if kind is InboxKind.MESSAGE
                else urlencode({"payload": json.dumps(delivery.payload)})
            )
            await store.inbox_add(InboxItem(id="i1", received_at=1.0, kind=kind, body=body))
            async with running_bot(emu, store=store, responders=[REVIEWERS]) as bot:
                async with asyncio.timeout(10):
                    await bot.provider.asks.wait("a1")
                await bot.idle()
        record = await store.get("a1")
        assert await store.inbox_pending() == []
    assert record is not None
    assert record.verdict is (Verdict.CLOSED if answer is None else Verdict.ANSWERED)
    assert (record.answer.to_wire() if record.answer else None) == answer
    assert record.decided_by == ALICE


async def test_a_kept_row_that_names_nothing_to_do_is_forgotten_on_start(
    emu: SlackEmulator, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with SqliteStore(tmp_path / "asks.db") as store:
        async with running_bot(emu, store=store) as bot:
            await relay_ask(bot, "a1", DB)
        payload = {"type": "block_actions", "user": {"id": ALICE}, "actions": []}
        body = urlencode({"payload": json.dumps(payload)})
        await store.inbox_add(
            InboxItem(id="i1", received_at=1.0, kind=InboxKind.BLOCK_ACTIONS, body=body)
        )
        async with running_bot(emu, store=store) as bot:
            await bot.idle()
            assert await store.inbox_pending() == []
        record = await store.get("a1")
    assert record is not None
    assert record.state is AskState.PENDING
    assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []
