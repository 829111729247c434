"""Out-of-office delegation on the emulator: `/agent-questions delegate …` sets, shows and ends
it; an ask naming someone away goes to their delegate, who may answer as they could and no
more; chains, loops and expiry (ManualClock)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.review import ReviewPolicies, ReviewPolicy, ToolRule
from bot.store import AskRecord, Delegation, EventKind
from bot.store.sqlite import SqliteStore
from slack_emulator import ManualClock, Message, SlackEmulator

from ..harness import ALICE, BOB, CAROL, CHANNEL, Bot, request, running_bot

COMMAND = "/agent-questions"
DAVE = "U0DAVE0004"  # Slack knows no time zone of his
ROBOT = "U0ROBOT005"
START = datetime(2026, 12, 3, 12, tzinfo=UTC).timestamp()  # a Thursday, noon UTC
END_OF_DEC_24_BERLIN = datetime(2026, 12, 25, tzinfo=ZoneInfo("Europe/Berlin")).timestamp()
QUESTION = {
    "id": "db",
    "question": "Which database?",
    "options": [{"label": "Postgres"}, {"label": "SQLite"}],
}
PUSH = {
    "id": "tool",
    "question": "May I run this command?",
    "options": [{"label": "Allow"}, {"label": "Deny"}],
    "intent": {
        "kind": "tool-approval",
        "allow": "Allow",
        "tool": "Bash",
        "input": {"command": "git push origin main"},
    },
}
PLAN = {
    "id": "plan",
    "question": "May I carry out this plan?",
    "detail": "# Plan\n\nDo it.",
    "options": [{"label": "Revise it"}, {"label": "Approve"}],
    "intent": {"kind": "plan-review", "approve": "Approve"},
}
ONLY_ALICE = "Only <@U0ALICE001> may answer this question, so nothing changed."


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


@pytest.fixture
async def bot(emu: SlackEmulator, clock: ManualClock) -> AsyncIterator[Bot]:
    add_people(emu)
    async with running_bot(emu, responders=[ALICE], clock=clock) as running:
        yield running


def add_people(emu: SlackEmulator) -> None:
    emu.workspace.add_user(DAVE, name="dave", tz="")
    emu.workspace.add_member(CHANNEL, DAVE)
    emu.workspace.add_user(ROBOT, name="robot", is_bot=True)


async def delegate(bot: Bot, user: str, text: str) -> str:
    """Run `/agent-questions delegate <text>` as `user`; the ephemeral it answers with."""
    before = len(bot.emu.ephemerals(user))
    await bot.emu.person(user).command(COMMAND, f"delegate {text}".strip())
    await bot.emu.wait_for(lambda: len(bot.emu.ephemerals(user)) > before, what="the reply")
    return bot.emu.ephemerals(user)[-1].text


def away_line(message: Message) -> str | None:
    found = [b for b in message.blocks if b.get("block_id") == "away"]
    return str(found[0]["elements"][0]["text"]) if found else None


def last_ephemeral(bot: Bot, user: str) -> str:
    return bot.emu.ephemerals(user)[-1].text


async def stored(bot: Bot) -> AskRecord:
    [record] = await bot.provider.store.recent()
    return record


# --- the command -----------------------------------------------------------------------------


async def test_a_date_ends_at_the_end_of_that_day_in_the_persons_time_zone(bot: Bot) -> None:
    said = await delegate(bot, ALICE, f"<@{BOB}|bob> until 2026-12-24")
    assert said == (
        f"Until the end of Thu Dec 24 (Europe/Berlin, your time zone in Slack), asks that "
        f"name you also go to <@{BOB}>, who may answer them as you could. "
        "`/agent-questions delegate off` ends it."
    )
    assert await bot.provider.store.delegations() == [
        Delegation(
            delegator=ALICE,
            delegate=BOB,
            starts_at=START,
            until=END_OF_DEC_24_BERLIN,
            time_zone="Europe/Berlin",
            set_by=ALICE,
        )
    ]
    assert [c.params["user"] for c in bot.emu.calls_to("users.info")] == [BOB, ALICE]


async def test_a_date_is_read_in_utc_when_slack_knows_no_time_zone(bot: Bot) -> None:
    said = await delegate(bot, DAVE, f"<@{BOB}|bob> until 2026-12-24")
    assert said.startswith(
        "Until the end of Thu Dec 24 (UTC: Slack did not tell me your time zone), "
    )
    [stored_one] = await bot.provider.store.delegations()
    assert stored_one.until == datetime(2026, 12, 25, tzinfo=UTC).timestamp()


async def test_a_length_of_time_lasts_that_long_from_now(bot: Bot) -> None:
    said = await delegate(bot, ALICE, f"<@{BOB}|bob> for 3d")
    assert said == (
        "For 3 days, until <!date^1796558400^{date_short} {time}|2026-12-06 12:00 UTC>, asks "
        f"that name you also go to <@{BOB}>, who may answer them as you could. "
        "`/agent-questions delegate off` ends it."
    )


async def test_a_typed_at_name_reaches_the_bot_as_the_person_it_names(bot: Bot) -> None:
    said = await delegate(bot, ALICE, "@bob until 2026-12-24")
    [delivered] = [d for d in bot.emu.deliveries if d.kind == "slash_command"]
    assert delivered.payload["text"] == f"delegate <@{BOB}|bob> until 2026-12-24"
    assert said.startswith("Until the end of Thu Dec 24 ")
    assert [d.delegate for d in await bot.provider.store.delegations()] == [BOB]


async def test_delegate_alone_shows_the_delegation_in_force(bot: Bot) -> None:
    assert await delegate(bot, ALICE, "") == (
        "You have no delegate now: asks that name you go to you alone. Set one with "
        "`/agent-questions delegate @deputy until 2026-12-24`."
    )
    await delegate(bot, ALICE, f"<@{BOB}|bob> until 2026-12-24")
    assert await delegate(bot, ALICE, "") == (
        f"Until Dec 24, asks that name you also go to <@{BOB}>. "
        "`/agent-questions delegate off` ends it."
    )


async def test_delegate_off_ends_it_and_keeps_the_record(bot: Bot) -> None:
    await delegate(bot, ALICE, f"<@{BOB}|bob> until 2026-12-24")
    assert await delegate(bot, ALICE, "off") == (
        f"Your delegation to <@{BOB}> is off: asks that name you go to you alone again."
    )
    [ended] = await bot.provider.store.delegations()
    assert ended.ended_at == START
    assert await delegate(bot, ALICE, "off") == (
        "You have no delegate to turn off: asks that name you go to you alone."
    )


EXAMPLE = "`/agent-questions delegate @deputy until 2026-12-24`"


@pytest.mark.parametrize(
    ("text", "said"),
    [
        pytest.param(
            "bob until 2026-12-24",
            "Name your delegate with an @-mention first (pick them from Slack's list), "
            f"e.g. {EXAMPLE}; `bob` is not one.",
            id="no user mention",
        ),
        pytest.param(
            f"<@{BOB}|bob> until 2026-12-02",
            "2026-12-02 is already over (Europe/Berlin, your time zone in Slack): pick today "
            f"or a later day, e.g. {EXAMPLE}.",
            id="a past date",
        ),
        pytest.param(
            f"<@{ALICE}|alice> until 2026-12-24",
            f"You cannot be your own delegate: name someone else, e.g. {EXAMPLE}.",
            id="yourself",
        ),
        pytest.param(
            f"<@{ROBOT}|robot> until 2026-12-24",
            f"<@{ROBOT}> is a bot: a delegate must be a person who can answer, e.g. {EXAMPLE}.",
            id="a bot",
        ),
        pytest.param(
            f"<@{BOB}|bob> until 24/12",
            f"`24/12` is not a date I can read: write it as YYYY-MM-DD, e.g. {EXAMPLE}.",
            id="an unparsable date",
        ),
        pytest.param(
            f"<@{BOB}|bob> until 2026-02-30",
            f"`2026-02-30` is not a date I can read: write it as YYYY-MM-DD, e.g. {EXAMPLE}.",
            id="a day no month has",
        ),
        pytest.param(
            f"<@{BOB}|bob> for a while",
            "`a while` is not a length of time I can read: write it like 12h, 3d or 2w, e.g. "
            "`/agent-questions delegate @deputy for 3d`.",
            id="an unparsable length",
        ),
        pytest.param(
            f"<@{BOB}|bob>",
            f"Say until when after the person: {EXAMPLE} or "
            "`/agent-questions delegate @deputy for 3d`.",
            id="no end",
        ),
        pytest.param(
            "<@U0NOBODY9|nobody> until 2026-12-24",
            f"<@U0NOBODY9> is not in this workspace: name someone who is, e.g. {EXAMPLE}.",
            id="someone unknown",
        ),
        pytest.param(
            f"<@{BOB}|bob> until 2028-01-01",
            f"2028-01-01 is more than a year away: a delegation lasts a year at most, e.g. "
            f"{EXAMPLE}.",
            id="too far ahead",
        ),
    ],
)
async def test_bad_input_is_refused_saying_what_was_wrong_and_nothing_is_stored(
    bot: Bot, text: str, said: str
) -> None:
    assert await delegate(bot, ALICE, text) == said
    assert await bot.provider.store.delegations() == []


# --- routing ---------------------------------------------------------------------------------


async def test_an_ask_naming_someone_away_mentions_their_delegate_who_may_answer(
    bot: Bot,
) -> None:
    await delegate(bot, ALICE, f"<@{BOB}|bob> until 2026-12-24")
    asking = bot.ask(QUESTION)
    message = await bot.posted()
    assert away_line(message) == (f":palm_tree: <@{ALICE}> is away until Dec 24 — asking <@{BOB}>")
    await bot.emu.person(BOB).click(message, text="SQLite")
    assert (await asking).answers[0].selected == ["SQLite"]
    assert (await stored(bot)).decided_by == BOB


async def test_a_delegation_set_while_an_ask_waits_is_said_in_its_thread(bot: Bot) -> None:
    asking = bot.ask(QUESTION)
    message = await bot.posted()
    said = await delegate(bot, ALICE, f"<@{BOB}|bob> until 2026-12-24")
    assert said.endswith("\nSaid so in the thread of 1 ask waiting for you.")
    root = message.thread_ts or message.ts
    lines = [m.text for m in bot.emu.thread(CHANNEL, root) if m.ts not in (message.ts, root)]
    assert lines == [f"<@{ALICE}> is away until Dec 24 — asking <@{BOB}>."]
    await bot.emu.person(BOB).click(message, text="SQLite")
    assert (await asking).answers[0].selected == ["SQLite"]


async def test_someone_else_is_refused_and_told_who_answers_for_whom(bot: Bot) -> None:
    await delegate(bot, ALICE, f"<@{BOB}|bob> until 2026-12-24")
    asking = bot.ask(QUESTION)
    message = await bot.posted()
    await bot.emu.person(CAROL).click(message, text="SQLite")
    await bot.idle()
    assert last_ephemeral(bot, CAROL) == (
        f"{ONLY_ALICE} <@{ALICE}> is away until Dec 24 — asking <@{BOB}>."
    )
    assert not (await stored(bot)).settled
    asking.cancel()


async def test_a_chain_asks_its_last_delegate_and_not_the_one_between(bot: Bot) -> None:
    await delegate(bot, ALICE, f"<@{BOB}|bob> until 2026-12-24")
    await delegate(bot, BOB, f"<@{CAROL}|carol> until 2026-12-20")
    asking = bot.ask(QUESTION)
    message = await bot.posted()
    assert away_line(message) == (
        f":palm_tree: <@{ALICE}> is away until Dec 24 — asking <@{CAROL}> "
        f"(<@{BOB}> until Dec 20 away too)"
    )
    await bot.emu.person(BOB).click(message, text="Postgres")
    await bot.idle()
    assert last_ephemeral(bot, BOB).startswith(ONLY_ALICE)
    await bot.emu.person(CAROL).click(message, text="SQLite")
    assert (await asking).answers[0].selected == ["SQLite"]
    assert (await stored(bot)).decided_by == CAROL


async def test_a_loop_is_reported_when_set_and_stops_at_the_first_repeat(bot: Bot) -> None:
    await delegate(bot, ALICE, f"<@{BOB}|bob> until 2026-12-24")
    said = await delegate(bot, BOB, f"<@{ALICE}|alice> until 2026-12-24")
    assert said.endswith(
        f"\nThis makes a loop: <@{BOB}> → <@{ALICE}> → <@{BOB}>. Asks stop at the first "
        "repeat, so each of you is still asked."
    )
    asking = bot.ask(QUESTION)
    message = await bot.posted()
    assert away_line(message) == (f":palm_tree: <@{ALICE}> is away until Dec 24 — asking <@{BOB}>")
    await bot.emu.person(BOB).click(message, text="SQLite")
    assert (await asking).answers[0].selected == ["SQLite"]


async def test_the_people_in_a_loop_stay_askable_themselves(bot: Bot) -> None:
    await delegate(bot, ALICE, f"<@{BOB}|bob> until 2026-12-24")
    await delegate(bot, BOB, f"<@{ALICE}|alice> until 2026-12-24")
    asking = bot.ask(QUESTION)
    await bot.emu.person(ALICE).click(await bot.posted(), text="Postgres")
    assert (await asking).answers[0].selected == ["Postgres"]


async def test_an_expired_delegation_does_nothing(bot: Bot, clock: ManualClock) -> None:
    await delegate(bot, ALICE, f"<@{BOB}|bob> for 1d")
    clock.advance(86400)
    asking = bot.ask(QUESTION)
    message = await bot.posted()
    assert away_line(message) is None
    await bot.emu.person(BOB).click(message, text="SQLite")
    await bot.idle()
    assert last_ephemeral(bot, BOB) == ONLY_ALICE
    assert not (await stored(bot)).settled
    asking.cancel()


async def test_a_delegation_turned_off_lets_the_delegate_answer_no_more(bot: Bot) -> None:
    await delegate(bot, ALICE, f"<@{BOB}|bob> until 2026-12-24")
    asking = bot.ask(QUESTION)
    message = await bot.posted()
    await delegate(bot, ALICE, "off")
    await bot.emu.person(BOB).click(message, text="SQLite")
    await bot.idle()
    assert last_ephemeral(bot, BOB) == ONLY_ALICE
    asking.cancel()


# --- fail closed -----------------------------------------------------------------------------


async def relay_ask(
    bot: Bot, requester: str, question: Mapping[str, object] = PUSH
) -> tuple[AskRecord, Message]:
    """A review made as the relay makes it for an agent acting for `requester`."""
    record, _ = await bot.provider.asks.create(
        request(question), agent_id="dev/session-1", requester=requester
    )
    posted = await bot.provider.posting.post(record.id)
    return posted, await bot.posted(len(bot.ask_posts()))


@pytest.fixture
async def reviewed_by_alice(emu: SlackEmulator, clock: ManualClock) -> AsyncIterator[Bot]:
    policy = ReviewPolicies(tools=(ToolRule(tool="Bash", reviewers=(ALICE, CAROL)),))
    async with running_bot(emu, responders=[ALICE], clock=clock, review=policy) as running:
        yield running


async def test_the_delegate_of_a_requester_may_not_approve_for_them(
    emu: SlackEmulator, reviewed_by_alice: Bot
) -> None:
    bot = reviewed_by_alice
    await delegate(bot, ALICE, f"<@{BOB}|bob> until 2026-12-24")
    before, message = await relay_ask(bot, requester=ALICE)
    await emu.person(BOB).click(message, text="Allow")
    await bot.idle()
    assert last_ephemeral(bot, BOB) == (
        f"You answer here for <@{ALICE}>, whose own agent asked for this, so you may not "
        f"approve it either; ask <@{CAROL}> to approve it. Nothing changed; you may still "
        "deny it."
    )
    assert await bot.provider.store.get(before.id) == before
    [refused] = [
        e for e in await bot.provider.store.events(before.id) if e.kind is EventKind.REFUSED
    ]
    assert (refused.actor, refused.detail) == (BOB, "the requester's delegate may not approve")
    await emu.person(BOB).click(message, text="Deny")
    settled = await bot.provider.asks.wait(before.id)
    assert (settled.decided_by, settled.answer and settled.answer.answers[0].selected) == (
        BOB,
        ["Deny"],
    )


async def test_a_delegate_who_is_the_requester_may_not_approve(
    emu: SlackEmulator, reviewed_by_alice: Bot
) -> None:
    bot = reviewed_by_alice
    await delegate(bot, ALICE, f"<@{BOB}|bob> until 2026-12-24")
    before, message = await relay_ask(bot, requester=BOB)
    await emu.person(BOB).click(message, text="Allow")
    await bot.idle()
    assert last_ephemeral(bot, BOB) == (
        f"You may not allow a tool your own agent asked to run; ask <@{ALICE}>, <@{CAROL}> "
        "to approve it. Nothing changed; you may still deny it."
    )
    assert await bot.provider.store.get(before.id) == before


async def test_the_delegate_of_a_reviewer_who_is_not_the_requester_may_approve(
    emu: SlackEmulator, reviewed_by_alice: Bot
) -> None:
    bot = reviewed_by_alice
    await delegate(bot, ALICE, f"<@{BOB}|bob> until 2026-12-24")
    before, message = await relay_ask(bot, requester=CAROL)
    await emu.person(BOB).click(message, text="Allow")
    settled = await bot.provider.asks.wait(before.id)
    assert (settled.decided_by, settled.answer and settled.answer.answers[0].selected) == (
        BOB,
        ["Allow"],
    )


async def test_an_escalation_target_who_is_away_is_answered_for_by_their_delegate(
    emu: SlackEmulator, clock: ManualClock
) -> None:
    add_people(emu)
    ladder = ReviewPolicy(reviewers=(ALICE,), escalate_after=3600, escalate_to=(CAROL,))
    async with running_bot(
        emu, responders=[ALICE], clock=clock, review=ReviewPolicies(default=ladder)
    ) as bot:
        await delegate(bot, CAROL, f"<@{DAVE}|dave> until 2026-12-24")
        asking = bot.ask(QUESTION)
        message = await bot.posted()
        assert away_line(message) is None  # Carol is not asked yet
        await clock.sleeping()
        await emu.person(DAVE).click(message, text="SQLite")
        await bot.idle()
        assert last_ephemeral(bot, DAVE) == ONLY_ALICE
        clock.advance(3600)
        await emu.wait_for(
            lambda: away_line(bot.now(message)) is not None, what="the escalation shown"
        )
        root = message.thread_ts or message.ts
        lines = [m.text for m in emu.thread(CHANNEL, root) if m.ts not in (message.ts, root)]
        assert lines == [
            f"<@{CAROL}>: nobody answered this question in 1 h, so you are asked too now "
            f"(with <@{ALICE}>). Answer it above. <@{CAROL}> is away until Dec 24 — asking "
            f"<@{DAVE}>."
        ]
        await emu.person(DAVE).click(bot.now(message), text="SQLite")
        assert (await asking).answers[0].selected == ["SQLite"]


async def test_a_reviewer_approved_for_by_their_delegate_counts_once(
    emu: SlackEmulator, clock: ManualClock
) -> None:
    add_people(emu)
    rule = ToolRule(tool="Bash", reviewers=(ALICE, BOB, CAROL), approvals=2)
    async with running_bot(
        emu, responders=[ALICE], clock=clock, review=ReviewPolicies(tools=(rule,))
    ) as bot:
        await delegate(bot, ALICE, f"<@{DAVE}|dave> until 2026-12-24")
        asking = bot.ask(PUSH)
        message = await bot.posted()
        await emu.person(DAVE).click(message, text="Allow")
        await bot.idle()
        await emu.person(ALICE).click(bot.now(message), text="Allow")
        await bot.idle()
        assert last_ephemeral(bot, ALICE) == (
            f"<@{DAVE}> already approved this tool for you, as your delegate; it needs "
            "another reviewer."
        )
        [approval] = (await stored(bot)).approvals
        assert (approval.by, approval.acting_for) == (DAVE, (ALICE,))
        await emu.person(BOB).click(bot.now(message), text="Allow")
        assert (await asking).answers[0].selected == ["Allow"]


async def test_a_delegate_cannot_add_an_approval_to_their_delegators_own(
    emu: SlackEmulator, clock: ManualClock
) -> None:
    add_people(emu)
    rule = ToolRule(tool="Bash", reviewers=(ALICE, BOB, CAROL), approvals=2)
    async with running_bot(
        emu, responders=[ALICE], clock=clock, review=ReviewPolicies(tools=(rule,))
    ) as bot:
        await delegate(bot, ALICE, f"<@{DAVE}|dave> until 2026-12-24")
        asking = bot.ask(PUSH)
        message = await bot.posted()
        await emu.person(ALICE).click(message, text="Allow")
        await bot.idle()
        await emu.person(DAVE).click(bot.now(message), text="Allow")
        await bot.idle()
        assert last_ephemeral(bot, DAVE) == (
            f"This tool already has an approval for <@{ALICE}>, whom you answer for; it needs "
            "another reviewer."
        )
        assert [a.by for a in (await stored(bot)).approvals] == [ALICE]
        asking.cancel()


async def test_a_delegation_another_replica_stored_counts_at_once(
    emu: SlackEmulator, clock: ManualClock, tmp_path: Path
) -> None:
    async with (
        SqliteStore(tmp_path / "asks.db") as store,
        SqliteStore(tmp_path / "asks.db") as other_replicas,
        running_bot(emu, responders=[ALICE], clock=clock, store=store) as bot,
    ):
        asking = bot.ask(QUESTION)
        message = await bot.posted()
        await other_replicas.set_delegation(
            Delegation(
                delegator=ALICE,
                delegate=BOB,
                starts_at=START,
                until=END_OF_DEC_24_BERLIN,
                time_zone="Europe/Berlin",
                set_by=ALICE,
            )
        )
        await emu.person(BOB).click(message, text="SQLite")
        assert (await asking).answers[0].selected == ["SQLite"]


async def test_the_delegate_of_a_requester_may_not_approve_their_plan(bot: Bot) -> None:
    await delegate(bot, ALICE, f"<@{BOB}|bob> until 2026-12-24")
    before, message = await relay_ask(bot, requester=ALICE, question=PLAN)
    await bot.emu.person(BOB).click(message, text="Approve")
    await bot.idle()
    assert last_ephemeral(bot, BOB) == (
        f"You answer here for <@{ALICE}>, whose own agent asked for this, so you may not "
        "approve it either; ask whoever keeps the review policy: nobody else may approve it. "
        "Nothing changed; you may still decline it."
    )
    assert await bot.provider.store.get(before.id) == before


async def test_help_names_the_delegate_subcommand(bot: Bot) -> None:
    await bot.emu.person(ALICE).command(COMMAND, "help")
    await bot.emu.wait_for(lambda: bool(bot.emu.ephemerals(ALICE)), what="the help")
    assert (
        "`/agent-questions delegate @deputy until 2026-12-24 — while you are away, asks that "
        "name you also go to @deputy (or for 3d; delegate off ends it; delegate alone shows "
        "it)`"
    ) in last_ephemeral(bot, ALICE).splitlines()


async def test_setting_and_ending_a_delegation_are_in_the_decision_log(bot: Bot) -> None:
    await delegate(bot, ALICE, f"<@{BOB}|bob> until 2026-12-24")
    await delegate(bot, ALICE, "off")
    rows = [(row.kind, row.actor, row.payload) for row in await bot.provider.store.audit_rows()]
    assert rows == [
        ("delegated", ALICE, f'{{"detail":"to {BOB} until {END_OF_DEC_24_BERLIN:.0f}"}}'),
        ("delegation_ended", ALICE, f'{{"detail":"to {BOB}"}}'),
    ]
