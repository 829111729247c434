"""Slack's agent session states for an app declared as an agent (SLACK_QUESTIONS_AGENT_SESSIONS):
the agent's thread is `suspended`, titled "<agent> · waiting for …", while one of its asks
waits, `processing` once answered; Stop in Slack ends the session's pending asks as stopped.
An app not declared as an agent keeps the thread status line (assistant.threads.setStatus)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.outcomes import EventKind, Verdict
from bot.store.sqlite import SqliteStore
from provider import Agent, ErrorCode, UserQuestionError
from slack_emulator import RateLimited, SlackEmulator

from ..harness import ALICE, BOB, CHANNEL, running_bot
from ..interactions.test_one_click import DB
from ..interactions.test_plan_review import review


def session_calls(emu: SlackEmulator) -> list[dict[str, object]]:
    """The arguments of every agents.sessions.* call, in order, with its method."""
    return [
        {"method": call.method, **call.params}
        for call in emu.calls
        if call.method.startswith("agents.sessions.")
    ]


async def test_a_waiting_ask_suspends_the_session_and_its_answer_resumes_processing(
    emu: SlackEmulator,
) -> None:
    emu.declare_agent()
    async with running_bot(emu, agent_sessions=True) as bot:
        agent = Agent("deployer", name="Deploy agent")
        bot.agents.enter(agent)
        asking = bot.ask(DB, agent=agent)
        message = await bot.posted()
        await bot.idle()
        await emu.person(ALICE).click(message, text="SQLite")
        await asking
        await bot.idle()
        thread = str(message.thread_ts)
        assert session_calls(emu) == [
            {
                "method": "agents.sessions.setStatus",
                "channel_id": CHANNEL,
                "thread_ts": thread,
                "status": "suspended",
                "title": "Deploy agent · waiting for an answer",
            },
            {
                "method": "agents.sessions.setStatus",
                "channel_id": CHANNEL,
                "thread_ts": thread,
                "status": "processing",
            },
        ]
        session = emu.agent_session(CHANNEL, thread)
        assert session is not None
        assert (session.status, session.title) == (
            "processing",
            "Deploy agent · waiting for an answer",
        )


async def test_a_plan_review_titles_the_session_waiting_for_a_plan_review(
    emu: SlackEmulator,
) -> None:
    emu.declare_agent()
    async with running_bot(emu, agent_sessions=True) as bot:
        agent = Agent("deployer", name="Deploy agent")
        bot.agents.enter(agent)
        bot.ask(review("# Plan\n\n1. Ship it"), agent=agent)
        message = await bot.posted()
        await emu.wait_for_call("agents.sessions.setStatus")
        session = emu.agent_session(CHANNEL, str(message.thread_ts))
        assert session is not None
        assert (session.status, session.title) == (
            "suspended",
            "Deploy agent · waiting for a plan review",
        )


async def test_a_later_ask_of_another_kind_renames_the_session(emu: SlackEmulator) -> None:
    emu.declare_agent()
    async with running_bot(emu, agent_sessions=True) as bot:
        agent = Agent("deployer", name="Deploy agent")
        bot.agents.enter(agent)
        first = bot.ask(DB, agent=agent)
        await emu.person(ALICE).click(await bot.posted(1), text="SQLite")
        await first
        bot.ask(review("# Plan\n\n1. Ship it"), agent=agent)
        message = await bot.posted(2)
        await emu.wait_for(lambda: len(session_calls(emu)) == 4, what="the rename")
        assert session_calls(emu)[-1] == {
            "method": "agents.sessions.rename",
            "channel_id": CHANNEL,
            "thread_ts": str(message.thread_ts),
            "title": "Deploy agent · waiting for a plan review",
        }
        session = emu.agent_session(CHANNEL, str(message.thread_ts))
        assert session is not None
        assert (session.status, session.title) == (
            "suspended",
            "Deploy agent · waiting for a plan review",
        )


async def test_an_app_not_declared_as_an_agent_keeps_the_thread_status_line(
    emu: SlackEmulator,
) -> None:
    async with running_bot(emu) as bot:
        agent = Agent("deployer", name="Deploy agent")
        bot.agents.enter(agent)
        asking = bot.ask(DB, agent=agent)
        message = await bot.posted()
        await bot.idle()
        await emu.person(ALICE).click(message, text="SQLite")
        await asking
        await bot.idle()
        statuses = [call.params["status"] for call in emu.calls_to("assistant.threads.setStatus")]
        assert statuses == ["is waiting for an answer", ""]
        assert session_calls(emu) == []


async def test_stop_in_slack_ends_the_sessions_pending_ask_as_stopped_in_slack(
    emu: SlackEmulator,
) -> None:
    emu.declare_agent()
    async with running_bot(emu, agent_sessions=True) as bot:
        agent = Agent("deployer", name="Deploy agent")
        bot.agents.enter(agent)
        first = bot.ask(DB, agent=agent)
        message = await bot.posted()
        await emu.person(ALICE).click(message, text="SQLite")
        await first
        await bot.idle()
        thread = str(message.thread_ts)
        # The agent asks again while Slack holds its post back: stored, pending, not yet
        # shown, so the session is still processing and Slack offers Stop.
        emu.inject("chat.postMessage", RateLimited(retry_after=60), times=None)
        second = bot.ask(DB, agent=agent)
        await emu.wait_for(
            lambda: any(call.status == 429 for call in emu.calls_to("chat.postMessage")),
            what="the second ask's post held back",
        )
        await emu.person(ALICE).stop_agent_session(CHANNEL, thread)
        with pytest.raises(UserQuestionError) as raised:
            await asyncio.wait_for(second, 10)
        assert (raised.value.code, raised.value.message) == (
            ErrorCode.ASK_ABORTED,
            "ask_user_question was aborted before the user answered: stopped in Slack",
        )
        emu.clear_faults()
        await bot.idle()
        assert session_calls(emu)[-1] == {
            "method": "agents.sessions.setStatus",
            "channel_id": CHANNEL,
            "thread_ts": thread,
            "status": "active",
        }
        store = bot.provider.parts.store
        first_record, second_record = sorted(await store.recent(), key=lambda r: r.created_at)
        assert first_record.verdict is Verdict.ANSWERED
        assert (second_record.verdict, second_record.decided_by, second_record.reason) == (
            Verdict.STOPPED,
            ALICE,
            f"stopped in Slack by <@{ALICE}>",
        )
        kinds = [event.kind for event in await store.events(second_record.id)]
        assert EventKind.STOPPED in kinds


async def test_the_agents_session_ending_closes_its_slack_session(emu: SlackEmulator) -> None:
    emu.declare_agent()
    async with running_bot(emu, agent_sessions=True) as bot:
        agent = Agent("deployer", name="Deploy agent")
        detach = bot.agents.enter(agent)
        asking = bot.ask(DB, agent=agent)
        message = await bot.posted()
        await emu.person(ALICE).click(message, text="SQLite")
        await asking
        detach()
        await bot.provider.session_ended("deployer")
        await bot.idle()
        assert session_calls(emu)[-1] == {
            "method": "agents.sessions.setStatus",
            "channel_id": CHANNEL,
            "thread_ts": str(message.thread_ts),
            "status": "closed",
        }


async def test_stop_by_someone_who_may_not_answer_ends_nothing_and_says_who_may(
    emu: SlackEmulator,
) -> None:
    emu.declare_agent()
    async with running_bot(emu, agent_sessions=True, responders=[BOB]) as bot:
        agent = Agent("deployer", name="Deploy agent")
        bot.agents.enter(agent)
        first = bot.ask(DB, agent=agent)
        message = await bot.posted()
        await emu.person(BOB).click(message, text="SQLite")
        await first
        await bot.idle()
        emu.inject("chat.postMessage", RateLimited(retry_after=60), times=None)
        second = bot.ask(DB, agent=agent)
        await emu.wait_for(
            lambda: any(call.status == 429 for call in emu.calls_to("chat.postMessage")),
            what="the second ask's post held back",
        )
        await emu.person(ALICE).stop_agent_session(CHANNEL, str(message.thread_ts))
        await emu.wait_for(lambda: bool(emu.ephemerals(ALICE)), what="the refusal")
        assert [e.text for e in emu.ephemerals(ALICE)] == [
            f"Stop did not end this question: Only <@{BOB}> may answer or stop it, "
            "so nothing changed."
        ]
        assert not second.done()
        emu.clear_faults()
        second.cancel()


async def test_on_sqlite_a_stopped_ask_is_stored_with_its_stopped_ending(
    emu: SlackEmulator, tmp_path: Path
) -> None:
    emu.declare_agent()
    async with (
        SqliteStore(tmp_path / "asks.db") as store,
        running_bot(emu, agent_sessions=True, store=store) as bot,
    ):
        agent = Agent("deployer", name="Deploy agent")
        bot.agents.enter(agent)
        first = bot.ask(DB, agent=agent)
        message = await bot.posted()
        await emu.person(ALICE).click(message, text="SQLite")
        await first
        await bot.idle()
        emu.inject("chat.postMessage", RateLimited(retry_after=60), times=None)
        second = bot.ask(DB, agent=agent)
        await emu.wait_for(
            lambda: any(call.status == 429 for call in emu.calls_to("chat.postMessage")),
            what="the second ask's post held back",
        )
        await emu.person(ALICE).stop_agent_session(CHANNEL, str(message.thread_ts))
        with pytest.raises(UserQuestionError):
            await asyncio.wait_for(second, 10)
        emu.clear_faults()
        await bot.idle()
        stopped = [r for r in await store.recent() if r.verdict is Verdict.STOPPED]
    assert [(r.decided_by, r.error.code if r.error else None) for r in stopped] == [
        (ALICE, ErrorCode.ASK_ABORTED)
    ]
