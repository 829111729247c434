"""The team view through Slack: `/agent-questions` and the app's Home tab."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any

import aiohttp

from bot.render.decided import when
from bot.render.text import escape
from bot.store import AskRecord, AskState, MemoryStore
from provider import Agent, AskUserQuestionAnswer, AskUserQuestionItem
from slack_emulator import ApiError, Ephemeral, SlackEmulator
from slack_emulator.app_payloads import event_callback
from slack_emulator.request_signing import signed_headers

from .harness import ALICE, BOB, SECRET, Bot, running_bot

COMMAND = "/agent-questions"
DB = {"id": "db", "question": "Which database?", "options": [{"label": "Postgres"}]}
CACHE = {"id": "cache", "question": "Which cache?", "options": [{"label": "Redis"}]}


def texts(blocks: list[dict[str, Any]]) -> list[str]:
    """Each block's text, as a person reads it: headers, sections and context lines."""
    shown = []
    for block in blocks:
        if block["type"] in ("header", "section"):
            shown.append(block["text"]["text"])
        elif block["type"] == "context":
            shown.append(block["elements"][0]["text"])
        else:
            shown.append(f"<{block['type']}>")
    return shown


def without_grants(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The Home tab's blocks but its "Grants" section (tests/bot/test_grant_list.py)."""
    return [b for b in blocks if not str(b.get("block_id", "")).startswith("sq~grants.")]


async def command(bot: Bot, user: str = ALICE) -> Ephemeral:
    """Run `/agent-questions` as `user` and return the list it answers with."""
    before = len(bot.emu.ephemerals(user))
    await bot.emu.person(user).command(COMMAND)
    await bot.emu.wait_for(lambda: len(bot.emu.ephemerals(user)) > before, what="the list")
    return bot.emu.ephemerals(user)[-1]


async def stored(bot: Bot, ask_id: str | None = None) -> AskRecord:
    """The newest stored ask (or the one with `ask_id`)."""
    records = await bot.provider.store.recent(limit=100)
    return next(r for r in records if ask_id is None or r.id == ask_id)


def permalink(bot: Bot, record: AskRecord) -> str:
    """The permalink Slack gave for the ask's first message, escaped as mrkdwn needs."""
    [call] = [
        c
        for c in bot.emu.calls_to("chat.getPermalink")
        if c.ok and c.params["message_ts"] == record.message_ts[0]
    ]
    return escape(str(call.response["permalink"]))


async def answered(bot: Bot, question: Mapping[str, object], label: str, by: str) -> AskRecord:
    """Ask `question` as the agent "Planner", have `by` click `label`, return the record."""
    asking = bot.ask(question, agent=planner(bot))
    message = await bot.posted(len(bot.ask_posts()) + 1)
    await bot.emu.person(by).click(message, text=label)
    await asking
    await bot.idle()
    return await stored(bot)


def planner(bot: Bot) -> Agent:
    agent = Agent("planner-1", "Planner")
    if bot.agents.get(agent.id) is None:
        bot.agents.enter(agent)
    return bot.agents.get(agent.id) or agent


async def test_the_command_acks_with_nothing_and_answers_through_its_response_url(
    bot: Bot,
) -> None:
    delivery = await bot.emu.person(ALICE).command(COMMAND)
    await bot.emu.wait_for_call("response_url")
    assert (delivery.status, delivery.ack) == (200, None)
    [call] = bot.emu.calls_to("response_url")
    assert (call.status, call.params["response_type"]) == (200, "ephemeral")
    assert bot.emu.calls_to("chat.postEphemeral") == []


async def test_with_no_asks_the_command_says_nothing_waits_and_nothing_was_decided(
    bot: Bot,
) -> None:
    shown = await command(bot)
    assert shown.text == "Agent questions: 0 waiting for an answer, 0 recent decisions"
    assert texts(shown.blocks) == [
        "Waiting for an answer",
        ":white_check_mark: Nothing is waiting for an answer right now.",
        "<divider>",
        "Recent decisions",
        "_No decisions yet._ When someone answers an agent's question, it shows up here.",
    ]


async def test_the_command_shows_a_waiting_ask_with_its_agent_time_and_link(bot: Bot) -> None:
    asking = bot.ask(DB, agent=planner(bot))
    await bot.posted()
    shown = await command(bot)
    record = await stored(bot)
    assert texts(shown.blocks)[1] == (
        ":hourglass_flowing_sand: *Which database?*\n"
        f"asked {when(record.created_at)} · from Planner (`planner-1`) · "
        f"<{permalink(bot, record)}|View in Slack>"
    )
    asking.cancel()


async def test_the_command_shows_what_was_answered_by_whom_and_when(bot: Bot) -> None:
    record = await answered(bot, DB, "Postgres", by=ALICE)
    assert record.decided_at is not None
    shown = await command(bot)
    assert texts(shown.blocks)[1:] == [
        ":white_check_mark: Nothing is waiting for an answer right now.",
        "<divider>",
        "Recent decisions",
        "*Which database?* → *Postgres*\n"
        f":white_check_mark: Answered by <@{ALICE}>\n"
        f"{when(record.decided_at)} · from Planner (`planner-1`) · <{permalink(bot, record)}|View in Slack>",
    ]


async def test_the_command_lists_decisions_newest_first(bot: Bot) -> None:
    await answered(bot, DB, "Postgres", by=ALICE)
    await answered(bot, CACHE, "Redis", by=BOB)
    decided = texts((await command(bot)).blocks)[4:]
    assert [line.split("\n")[0] for line in decided] == [
        "*Which cache?* → *Redis*",
        "*Which database?* → *Postgres*",
    ]


async def test_the_home_tab_shows_the_same_list_when_it_is_opened(bot: Bot) -> None:
    await answered(bot, DB, "Postgres", by=ALICE)
    waiting = bot.ask(CACHE, agent=planner(bot))
    await bot.posted(2)
    listed = await command(bot)
    await bot.emu.person(BOB).open_home()
    await bot.emu.wait_for_call("views.publish")
    home = bot.emu.home(BOB)
    assert home is not None
    assert home.type == "home"
    # Under the intro, the Home tab's filters and figures (3 blocks), then the same list.
    assert texts(without_grants(home.blocks))[5:] == texts(listed.blocks)
    waiting.cancel()


async def test_opening_the_messages_tab_publishes_nothing(bot: Bot) -> None:
    # The emulator only opens Home; Slack sends the same event, with tab "messages", for
    # the app's DM. Signed and posted here as Slack would.
    envelope = event_callback(
        app=bot.emu.identity,
        event={
            "type": "app_home_opened",
            "user": ALICE,
            "channel": bot.emu.workspace.im_channel(ALICE).id,
            "tab": "messages",
            "event_ts": "1700000000.000100",
        },
        event_id="Ev0MESSAGES",
        event_time=int(time.time()),
    )
    body = json.dumps(envelope)
    headers = signed_headers(
        secret=SECRET, timestamp=int(time.time()), body=body, content_type="application/json"
    )
    async with (
        aiohttp.ClientSession() as session,
        session.post(str(bot.emu.request_url), data=body, headers=headers) as response,
    ):
        assert response.status == 200
    await bot.idle()
    assert bot.emu.calls_to("views.publish") == []
    assert bot.emu.calls_to("chat.getPermalink") == []


async def test_permalinks_are_looked_up_once_per_message(bot: Bot) -> None:
    await answered(bot, DB, "Postgres", by=ALICE)
    await command(bot)
    await command(bot, BOB)
    await bot.emu.person(ALICE).open_home()
    await bot.emu.wait_for_call("views.publish")
    assert len(bot.emu.calls_to("chat.getPermalink")) == 1


async def test_a_failed_permalink_lookup_only_leaves_the_link_out(bot: Bot) -> None:
    record = await answered(bot, DB, "Postgres", by=ALICE)
    assert record.decided_at is not None
    bot.emu.inject("chat.getPermalink", ApiError("message_not_found"))
    shown = await command(bot)
    assert texts(shown.blocks)[4] == (
        "*Which database?* → *Postgres*\n"
        f":white_check_mark: Answered by <@{ALICE}>\n"
        f"{when(record.decided_at)} · from Planner (`planner-1`)"
    )


async def test_agent_text_that_would_ping_the_channel_is_escaped(bot: Bot) -> None:
    loud = Agent("loud", "<!here> bot")
    bot.agents.enter(loud)
    asking = bot.ask({"id": "q", "question": "Tell <!channel> & <@U0BOB00002>?"}, agent=loud)
    await bot.posted()
    shown = texts((await command(bot)).blocks)[1]
    assert shown.startswith(
        ":hourglass_flowing_sand: *Tell &lt;!channel&gt; &amp; &lt;@U0BOB00002&gt;?*\n"
    )
    assert "from &lt;!here&gt; bot (`loud`)" in shown
    assert "<!channel>" not in shown
    assert "<!here>" not in shown
    asking.cancel()


def history(pending: int, settled: int) -> list[AskRecord]:
    """Stored asks without messages: `pending` waiting, `settled` answered, one a minute."""
    records = []
    for n in range(pending + settled):
        record = AskRecord(
            id=f"ask{n:03}",
            questions=[AskUserQuestionItem(id="q", question=f"Question {n}?")],
            created_at=1_700_000_000 + 60 * n,
            agent_name="Planner",
        )
        if n < settled:
            record = record.model_copy(
                update={
                    "state": AskState.ANSWERED,
                    "answer": AskUserQuestionAnswer.model_validate(
                        {"answers": [{"id": "q", "custom": f"answer {n}"}]}
                    ),
                    "decided_by": ALICE,
                    "decided_at": record.created_at + 30,
                }
            )
        records.append(record)
    return records


async def test_a_long_history_is_cut_to_fifty_blocks_saying_how_many_more(
    emu: SlackEmulator,
) -> None:
    store = MemoryStore()
    for record in history(pending=5, settled=60):
        await store.add(record)
    async with running_bot(emu, store=store) as bot:
        shown = await command(bot)
    listed = texts(shown.blocks)
    assert len(listed) == 50
    assert listed[7] == "Recent decisions"
    assert listed[8].startswith("*Question 59?* → “answer 59”\n")
    assert listed[-1] == (
        "…and 4 more decisions, and older ones. The app's Home tab shows a longer list."
    )
    assert emu.violations == []


async def test_the_home_tab_shows_the_fifty_newest_asks_and_every_waiting_one(
    emu: SlackEmulator,
) -> None:
    store = MemoryStore()
    for record in history(pending=5, settled=60):
        await store.add(record)
    async with running_bot(emu, store=store) as bot:
        await emu.person(ALICE).open_home()
        await emu.wait_for_call("views.publish")
        await bot.idle()
    home = emu.home(ALICE)
    assert home is not None
    listed = texts(without_grants(home.blocks))
    waiting = listed[6 : listed.index("<divider>")]  # after the intro, filters and figures
    decided = listed[listed.index("Recent decisions") + 1 :]
    assert [line.split("\n")[0] for line in waiting] == [
        f":hourglass_flowing_sand: *Question {n}?*" for n in range(64, 59, -1)
    ]
    assert len(decided) == 46
    assert decided[-2].startswith("*Question 15?*")
    assert decided[-1] == "Older decisions are not listed."
    assert emu.violations == []


async def test_a_second_home_visit_publishes_the_list_again(bot: Bot) -> None:
    await bot.emu.person(ALICE).open_home()
    await bot.emu.wait_for_call("views.publish")
    await answered(bot, DB, "Postgres", by=ALICE)
    await bot.emu.person(ALICE).open_home()
    await bot.emu.wait_for_call("views.publish", count=2)
    home = bot.emu.home(ALICE)
    assert home is not None
    assert texts(home.blocks)[9].startswith("*Which database?* → *Postgres*\n")


async def test_an_unknown_subcommand_is_named_and_the_subcommands_are_listed(bot: Bot) -> None:
    before = len(bot.emu.ephemerals(ALICE))
    await bot.emu.person(ALICE).command(COMMAND, "frobnicate now")
    await bot.emu.wait_for(lambda: len(bot.emu.ephemerals(ALICE)) > before, what="the reply")
    shown = bot.emu.ephemerals(ALICE)[-1]
    assert shown.text.splitlines()[0] == "`/agent-questions` has no subcommand `frobnicate`."
    assert bot.emu.calls_to("chat.getPermalink") == []


async def test_help_lists_what_the_bare_command_shows(bot: Bot) -> None:
    before = len(bot.emu.ephemerals(ALICE))
    await bot.emu.person(ALICE).command(COMMAND, "HELP")
    await bot.emu.wait_for(lambda: len(bot.emu.ephemerals(ALICE)) > before, what="the reply")
    assert bot.emu.ephemerals(ALICE)[-1].text.splitlines()[0] == (
        "`/agent-questions` shows the asks waiting for an answer and the recent decisions."
    )
