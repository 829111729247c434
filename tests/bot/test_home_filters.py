"""The Home tab's filters and per-agent figures, on a scripted history with a manual clock so
every time is exact (`bot/render/home_filters.py`, `bot/render/figures.py`, `bot/team.py`)."""

from __future__ import annotations

import json

import pytest

from bot.outcomes import AskState
from bot.store import AskEvent, AskRecord, EventKind, MemoryStore, Verdict
from provider import AskUserQuestionAnswer, AskUserQuestionItem
from slack_emulator import ManualClock, SlackEmulator
from slack_emulator.slack_objects import View

from .harness import ALICE, BOB, CHANNEL, Bot, running_bot

NOW = 1_700_000_000.0 + 40 * 86_400
DAY = 86_400.0
PLANNER_ALL = (
    "*Planner*: 4 asks · median answer 32 s · auto-decided 25 % · expired 25 % · "
    "answered within 2 s: 1"
)
DEPLOYER_ALL = (
    "*Deployer*: 2 asks · median answer 5 min · auto-decided 50 % · expired 0 % · "
    "answered within 2 s: 0"
)


def ask(
    ask_id: str,
    agent: str,
    created: float,
    *,
    by: str | None = None,
    decided: float | None = None,
    verdict: Verdict = Verdict.ANSWERED,
) -> AskRecord:
    answered = verdict is Verdict.ANSWERED
    return AskRecord(
        id=ask_id,
        questions=[AskUserQuestionItem(id="q", question=f"{ask_id}?")],
        created_at=NOW + created,
        agent_name=agent,
        channel=CHANNEL,
        state=AskState.ANSWERED if answered else AskState.FAILED,
        verdict=verdict,
        answer=AskUserQuestionAnswer.model_validate({"answers": [{"id": "q", "custom": "yes"}]})
        if answered
        else None,
        decided_by=by,
        decided_at=NOW + (decided if decided is not None else created),
    )


async def scripted() -> MemoryStore:
    """Six decided asks of two agents, with when each was posted in Slack."""
    store = MemoryStore()
    history = [
        # Planner: answered 1 s after it was posted (a rubber stamp), 2 s after it was asked.
        (ask("p1", "Planner", -3600, by=ALICE, decided=-3598), -3599),
        # Planner: answered 62 s after it was asked.
        (ask("p2", "Planner", -7200, by=BOB, decided=-7138), -7199),
        # Planner: expired ten days ago, nobody answered.
        (ask("p3", "Planner", -10 * DAY, verdict=Verdict.EXPIRED, decided=-10 * DAY + 600), None),
        # Planner: a rule decided it at once; it was never posted.
        (ask("p4", "Planner", -600, by="rule:safe-reads"), None),
        # Deployer: answered five minutes after it was asked.
        (ask("d1", "Deployer", -400, by=ALICE, decided=-100), -399),
        # Deployer: a grant decided it.
        (ask("d2", "Deployer", -50, by="grant:g1"), None),
    ]
    for record, posted in history:
        await store.add(record)
        if posted is not None:
            await store.log(AskEvent(ask_id=record.id, at=NOW + posted, kind=EventKind.POSTED))
    return store


async def opened_home(bot: Bot, user: str = ALICE) -> View:
    await bot.emu.person(user).open_home()
    await bot.emu.wait_for_call("views.publish")
    await bot.idle()
    home = bot.emu.home(user)
    assert home is not None
    return home


async def changed(bot: Bot, home: View, action_id: str, value: str, publishes: int) -> View:
    """Pick `value` in one filter of `home`; the tab once it is published again."""
    await bot.emu.person(ALICE).select(home, action_id=action_id, value=value)
    await bot.emu.wait_for_call("views.publish", count=publishes)
    await bot.idle()
    again = bot.emu.home(ALICE)
    assert again is not None
    return again


def figures(home: View) -> list[str]:
    [block] = [b for b in home.blocks if b.get("block_id") == "sq~team.figures.0"]
    return str(block["text"]["text"]).split("\n")


def listed(home: View) -> list[str]:
    """The ids of the decided asks the tab lists, newest decision first."""
    return [
        str(b["text"]["text"]).split("?*")[0].lstrip("*")
        for b in home.blocks
        if str(b.get("block_id", "")).startswith("sq~team.d.") and "?*" in str(b["text"]["text"])
    ]


async def test_the_home_tab_shows_each_agents_figures_over_every_recent_ask(
    emu: SlackEmulator,
) -> None:
    async with running_bot(emu, store=await scripted(), clock=ManualClock(NOW)) as bot:
        home = await opened_home(bot)
    assert figures(home) == [PLANNER_ALL, DEPLOYER_ALL]
    assert listed(home) == ["d2", "d1", "p4", "p1", "p2", "p3"]


async def test_a_period_filter_counts_only_the_asks_of_that_period(emu: SlackEmulator) -> None:
    async with running_bot(emu, store=await scripted(), clock=ManualClock(NOW)) as bot:
        home = await changed(bot, await opened_home(bot), "sq_filter_period", "week", 2)
    assert figures(home) == [
        "*Planner*: 3 asks · median answer 32 s · auto-decided 33 % · expired 0 % · "
        "answered within 2 s: 1",
        DEPLOYER_ALL,
    ]
    assert "p3" not in listed(home)
    assert json.loads(home.private_metadata) == {"period": "week"}


async def test_each_filter_change_keeps_the_others_from_the_views_metadata(
    emu: SlackEmulator,
) -> None:
    async with running_bot(emu, store=await scripted(), clock=ManualClock(NOW)) as bot:
        home = await changed(bot, await opened_home(bot), "sq_filter_period", "week", 2)
        home = await changed(bot, home, "sq_filter_agent", "Planner", 3)
        assert listed(home) == ["p4", "p1", "p2"]
        home = await changed(bot, home, "sq_filter_person", ALICE, 4)
    assert json.loads(home.private_metadata) == {
        "agent": "Planner",
        "person": ALICE,
        "period": "week",
    }
    assert listed(home) == ["p1"]
    assert figures(home) == [
        "*Planner*: 1 ask · median answer 2 s · auto-decided 0 % · expired 0 % · "
        "answered within 2 s: 1"
    ]


async def test_an_outcome_filter_lists_only_asks_that_ended_that_way(emu: SlackEmulator) -> None:
    async with running_bot(emu, store=await scripted(), clock=ManualClock(NOW)) as bot:
        home = await changed(bot, await opened_home(bot), "sq_filter_outcome", "expired", 2)
    assert listed(home) == ["p3"]
    assert figures(home) == [
        "*Planner*: 1 ask · median answer n/a · auto-decided 0 % · expired 100 % · "
        "answered within 2 s: 0"
    ]


async def test_the_filters_show_the_choices_made_and_offer_the_agents_seen(
    emu: SlackEmulator,
) -> None:
    async with running_bot(emu, store=await scripted(), clock=ManualClock(NOW)) as bot:
        home = await changed(bot, await opened_home(bot), "sq_filter_agent", "Deployer", 2)
    [filters] = [b for b in home.blocks if b.get("block_id") == "sq~team.filters"]
    agent, person, outcome, period = filters["elements"]
    assert [o["value"] for o in agent["options"]] == ["*", "Deployer", "Planner"]
    assert agent["initial_option"]["value"] == "Deployer"
    assert person["type"] == "users_select"
    assert "initial_user" not in person
    assert outcome["initial_option"]["value"] == "*"
    assert period["initial_option"]["value"] == "all"
    assert figures(home) == [DEPLOYER_ALL]


async def test_opening_the_home_tab_again_keeps_the_filters_chosen(emu: SlackEmulator) -> None:
    async with running_bot(emu, store=await scripted(), clock=ManualClock(NOW)) as bot:
        await changed(bot, await opened_home(bot), "sq_filter_agent", "Deployer", 2)
        await bot.emu.person(ALICE).open_home()
        await bot.emu.wait_for_call("views.publish", count=3)
        await bot.idle()
        home = bot.emu.home(ALICE)
        assert home is not None
    assert json.loads(home.private_metadata) == {"agent": "Deployer"}
    assert listed(home) == ["d2", "d1"]


DB = {"id": "db", "question": "Which database?", "options": [{"label": "A"}, {"label": "B"}]}


@pytest.mark.parametrize(("after", "quick"), [(1.0, 1), (3.0, 0)])
async def test_an_answer_within_two_seconds_of_posting_counts_as_a_rubber_stamp(
    emu: SlackEmulator, after: float, quick: int
) -> None:
    clock = ManualClock(NOW)
    async with running_bot(emu, clock=clock) as bot:
        asking = bot.ask(DB)
        message = await bot.posted()
        # Its `posted` event is stored: the thread's status line follows that save.
        await bot.emu.wait_for_call("assistant.threads.setStatus")
        clock.advance(after)
        await bot.emu.person(ALICE).click(message, text="B")
        await asking
        await bot.idle()
        home = await opened_home(bot)
    assert figures(home) == [
        f"*unnamed*: 1 ask · median answer {after:.0f} s · auto-decided 0 % · expired 0 % · "
        f"answered within 2 s: {quick}"
    ]
