"""Stored before shown: after a restart, an ask is posted once — never lost, never twice."""

from __future__ import annotations

from pathlib import Path

from slack_sdk.web.async_client import AsyncWebClient

from bot.slack.messages import METADATA_EVENT
from bot.store import AskRecord, EventKind, MemoryStore
from bot.store.sqlite import SqliteStore
from provider import AskUserQuestionItem
from slack_emulator import ServerError, SlackEmulator

from ..harness import ALICE, CHANNEL, TOKEN, running_bot

QUESTION = AskUserQuestionItem.model_validate(
    {"id": "db", "question": "Which database?", "options": [{"label": "Postgres"}]}
)


def stored_but_unposted(ask_id: str) -> AskRecord:
    """What a crash right after the store write leaves behind."""
    return AskRecord(id=ask_id, questions=[QUESTION], created_at=1_700_000_000.0, channel=CHANNEL)


async def test_an_ask_stored_but_never_posted_is_posted_once_on_restart(
    emu: SlackEmulator, tmp_path: Path
) -> None:
    async with SqliteStore(tmp_path / "asks.db") as store:
        await store.add(stored_but_unposted("a1"))
        async with running_bot(emu, store=store) as bot:
            message = await bot.posted()
            await emu.person(ALICE).click(message, text="Postgres")
            record = await bot.provider.asks.wait("a1")
            assert len(bot.ask_posts()) == 1
        assert record.answer is not None
        assert [e.kind for e in await store.events("a1")] == [
            EventKind.CREATED,
            EventKind.POSTED,
            EventKind.ANSWERED,
            EventKind.SHOWN,
        ]


async def test_an_ask_posted_but_not_recorded_before_a_crash_is_not_posted_again(
    emu: SlackEmulator, tmp_path: Path
) -> None:
    async with SqliteStore(tmp_path / "asks.db") as store:
        await store.add(stored_but_unposted("a2"))
        # The crash came after Slack took the post and before the store heard of it.
        client = AsyncWebClient(token=TOKEN, base_url=emu.api_url)
        await client.chat_postMessage(
            channel=CHANNEL,
            text="Which database?",
            metadata={"event_type": METADATA_EVENT, "event_payload": {"ask_id": "a2", "part": 0}},
        )
        async with running_bot(emu, store=store) as bot:
            await bot.idle()  # start-up queued the post; it has had its turn
        [record] = await store.recent()
    assert len(emu.calls_to("chat.postMessage")) == 1
    assert record.message_ts == [emu.channel_messages(CHANNEL)[0].ts]


async def test_a_lost_post_deep_in_a_busy_thread_is_found_not_posted_again(
    emu: SlackEmulator,
) -> None:
    client = AsyncWebClient(token=TOKEN, base_url=emu.api_url)
    root = await client.chat_postMessage(channel=CHANNEL, text="Agent needs answers")
    for n in range(210):  # a busy agent session: earlier asks and chatter
        await client.chat_postMessage(channel=CHANNEL, thread_ts=root["ts"], text=f"reply {n}")
    store = MemoryStore()
    await store.add(stored_but_unposted("a3").model_copy(update={"thread_ts": str(root["ts"])}))
    # The crash came after Slack took the post and before the store heard of it.
    await client.chat_postMessage(
        channel=CHANNEL,
        thread_ts=root["ts"],
        text="Which database?",
        metadata={"event_type": METADATA_EVENT, "event_payload": {"ask_id": "a3", "part": 0}},
    )
    async with running_bot(emu, store=store) as bot:
        await bot.idle()  # start-up queued the post; it has had its turn
        assert len(bot.ask_posts()) == 1  # only the post from before the crash
        record = await store.get("a3")
        assert record is not None
        assert record.message_ts == [bot.ask_posts()[0].response["ts"]]


async def test_a_decision_slack_would_not_show_is_shown_after_a_restart(
    emu: SlackEmulator,
) -> None:
    store = MemoryStore()
    async with running_bot(emu, store=store) as bot:
        asking = bot.ask({"id": "db", "question": "Which database?", "options": [{"label": "A"}]})
        message = await bot.posted()
        # A failure the client does not send again (a 503 would be, after a real backoff).
        emu.inject("chat.update", ServerError(502), times=1)
        await emu.person(ALICE).click(message, text="A")
        await asking
        assert any(b["type"] == "actions" for b in bot.now(message).blocks)
    # Shutting down left the retry to the next start, without waiting out its backoff.
    [record] = await store.recent()
    assert (record.settled, record.shown) == (True, False)
    assert any(b["type"] == "actions" for b in emu.message(message.channel, message.ts).blocks)
    async with running_bot(emu, store=store) as bot:  # the bot restarts
        assert not any(b["type"] == "actions" for b in bot.now(message).blocks)
        [record] = await store.recent()
        assert record.shown
