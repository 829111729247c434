"""`python -m bot` as a real process: relay from another process, kill -9, SIGTERM, start-up."""

from __future__ import annotations

import asyncio
from pathlib import Path

import aiohttp
import pytest

from bot.store import AskState, EventKind
from bot.store.sqlite import SqliteStore
from provider import AskUserQuestionRequest, RelayProvider
from slack_emulator import SlackEmulator, SlowReply

from ..harness import ALICE, CHANNEL
from .harness import (
    RELAY_TOKEN,
    Process,
    free_port,
    relay,
    service_env,
    spawn,
    subprocess_service,
)
from .test_relay import DB, ask_posts, posted

REQUEST = AskUserQuestionRequest.model_validate({"questions": [DB]})


async def test_an_agent_in_another_process_asks_through_the_service_and_gets_the_answer(
    emu: SlackEmulator, tmp_path: Path
) -> None:
    env = service_env(emu, tmp_path / "asks.db", free_port())
    async with (
        subprocess_service(emu, env) as service,
        RelayProvider(service.url, RELAY_TOKEN) as relay_provider,
    ):
        asking = asyncio.create_task(relay_provider.ask(REQUEST))
        await emu.person(ALICE).click(await posted(emu), text="SQLite")
        answer = await asyncio.wait_for(asking, 20)
    assert answer.to_wire() == {"answers": [{"id": "db", "selected": ["SQLite"]}]}


async def test_a_pending_ask_survives_kill_9_and_the_waiting_client_gets_the_answer(
    emu: SlackEmulator, tmp_path: Path
) -> None:
    db = tmp_path / "asks.db"
    env = service_env(emu, db, free_port())
    service = Process(env)
    await service.start()
    emu.request_url = f"{service.url}/slack/events"
    try:
        async with RelayProvider(service.url, RELAY_TOKEN, first_retry=0.05) as relay_provider:
            asking = asyncio.create_task(relay_provider.ask(REQUEST))
            message = await posted(emu)
            await service.kill()
            await service.start()  # same file, same port
            # The button posted before the crash still answers the ask.
            delivery = await emu.person(ALICE).click(message, text="Postgres")
            assert delivery.acked
            answer = await asyncio.wait_for(asking, 20)
    finally:
        assert await service.stop() == 0
    assert answer.answers[0].selected == ["Postgres"]
    assert len(emu.calls_to("chat.postMessage")) == 1  # posted once, never again
    async with SqliteStore(db) as store:
        [record] = await store.recent()
        kinds = [event.kind for event in await store.events(record.id)]
    assert record.state is AskState.ANSWERED
    assert kinds == [EventKind.CREATED, EventKind.POSTED, EventKind.ANSWERED, EventKind.SHOWN]


async def test_kill_9_while_a_new_sessions_root_is_in_flight_leaves_one_root_after_restart(
    emu: SlackEmulator, tmp_path: Path
) -> None:
    env = service_env(emu, tmp_path / "asks.db", free_port())
    service = Process(env)
    await service.start()
    emu.request_url = f"{service.url}/slack/events"
    # Slack stores the root at once; its reply (with the ts) never reaches the service.
    emu.inject("chat.postMessage", SlowReply(seconds=3))
    body = {"questions": [DB], "agent": {"id": "planner-7", "name": "Release planner"}}
    try:
        async with aiohttp.ClientSession() as http:
            status, _ = await relay(http, "POST", f"{service.url}/v1/asks", json=body)
            assert status == 201
            await emu.wait_for(lambda: len(emu.channel_messages(CHANNEL)) == 1, what="the root")
            await service.kill()
            await service.start()  # same file, same port: the same replica, restarted
            await emu.wait_for(lambda: len(ask_posts(emu)) == 1, within=20, what="the ask")
    finally:
        assert await service.stop() == 0
    # One root: the restarted service found the one in flight by its metadata.
    [root] = emu.channel_messages(CHANNEL)
    assert root.text == "Release planner needs answers from people"
    [message] = ask_posts(emu)
    assert message.thread_ts == root.ts
    assert len(ask_posts(emu)) == 1


async def test_sigterm_keeps_pending_asks_pending_and_exits_cleanly(
    emu: SlackEmulator, tmp_path: Path
) -> None:
    db = tmp_path / "asks.db"
    env = service_env(emu, db, free_port())
    async with subprocess_service(emu, env) as service, aiohttp.ClientSession() as http:
        status, _ = await relay(http, "POST", f"{service.url}/v1/asks", json={"questions": [DB]})
        assert status == 201
        await posted(emu)
        assert await service.stop() == 0
    async with SqliteStore(db) as store:
        [record] = await store.recent()
    assert record.state is AskState.PENDING
    assert "shutting down" in "".join(service.output)


async def start_failure(env: dict[str, str]) -> tuple[int, str]:
    proc = await spawn(env)
    output, _ = await asyncio.wait_for(proc.communicate(), 30)
    return proc.returncode or 0, output.decode()


async def test_a_missing_signing_secret_fails_start_up_with_a_clear_message(
    emu: SlackEmulator, tmp_path: Path
) -> None:
    env = service_env(emu, tmp_path / "a.db", free_port(), SLACK_SIGNING_SECRET="")
    code, output = await start_failure(env)
    assert code == 2
    assert "SLACK_SIGNING_SECRET is missing: HTTP mode needs it" in output


async def test_a_malformed_signing_secret_fails_start_up(
    emu: SlackEmulator, tmp_path: Path
) -> None:
    env = service_env(emu, tmp_path / "a.db", free_port(), SLACK_SIGNING_SECRET="not-a-secret")
    code, output = await start_failure(env)
    assert code == 2
    assert "SLACK_SIGNING_SECRET must be the 32 hexadecimal characters Slack shows" in output


async def test_a_bad_token_fails_start_up_naming_slacks_error(
    emu: SlackEmulator, tmp_path: Path
) -> None:
    env = service_env(emu, tmp_path / "a.db", free_port(), SLACK_BOT_TOKEN="xoxb-revoked")
    code, output = await start_failure(env)
    assert code == 2
    assert "Slack rejected the bot token" in output
    assert "(invalid_auth); check SLACK_BOT_TOKEN" in output


async def test_an_unreachable_slack_api_fails_start_up_as_unreachable_not_as_a_bad_token(
    emu: SlackEmulator, tmp_path: Path
) -> None:
    closed = f"http://127.0.0.1:{free_port()}/api/"
    env = service_env(emu, tmp_path / "a.db", free_port(), SLACK_API_URL=closed)
    code, output = await start_failure(env)
    assert code == 2
    assert f"cannot start: cannot reach Slack's Web API at {closed} (" in output
    assert "check SLACK_API_URL and the network" in output
    assert "rejected the bot token" not in output


async def test_a_token_of_the_wrong_kind_fails_start_up(emu: SlackEmulator, tmp_path: Path) -> None:
    env = service_env(emu, tmp_path / "a.db", free_port(), SLACK_BOT_TOKEN="xoxp-user-token")
    code, output = await start_failure(env)
    assert code == 2
    assert "SLACK_BOT_TOKEN must start with 'xoxb-'" in output


async def test_a_channel_without_the_bot_fails_start_up(emu: SlackEmulator, tmp_path: Path) -> None:
    emu.workspace.add_channel("C0NOBOT000", name="no-bot", members=[ALICE])
    env = service_env(emu, tmp_path / "a.db", free_port(), SLACK_QUESTIONS_CHANNEL="C0NOBOT000")
    code, output = await start_failure(env)
    assert code == 2
    assert "the bot is not a member of channel C0NOBOT000" in output


@pytest.mark.parametrize("channel", [CHANNEL])
async def test_the_service_answers_healthz(
    emu: SlackEmulator, tmp_path: Path, channel: str
) -> None:
    env = service_env(emu, tmp_path / "a.db", free_port(), SLACK_QUESTIONS_CHANNEL=channel)
    async with subprocess_service(emu, env) as service:
        reader, writer = await asyncio.open_connection("127.0.0.1", service.port)
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        response = await reader.read()
        writer.close()
        await writer.wait_closed()
    assert response.startswith(b"HTTP/1.1 200")


async def test_without_responders_the_service_refuses_to_start_saying_what_to_set(
    emu: SlackEmulator, tmp_path: Path
) -> None:
    env = service_env(emu, tmp_path / "a.db", free_port(), SLACK_QUESTIONS_RESPONDERS="")
    code, output = await start_failure(env)
    assert code == 2
    assert (
        "SLACK_QUESTIONS_RESPONDERS is missing: say who may answer the agents' questions, "
        "as user ids (U…/W…) and user-group ids (S…), comma separated, or * for anyone"
    ) in output
