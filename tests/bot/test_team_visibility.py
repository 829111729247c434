"""The team view shows each person only what they may see: the asks of the channels they are
in, and those they may answer or review (`bot/slack/audience.py`)."""

from __future__ import annotations

from collections.abc import Sequence

from bot.review import ReviewPolicies, ReviewPolicy
from bot.slack.memberships import PAGE_SIZE
from bot.slack.responders import ANYONE, AnyoneInChannel
from bot.store import AskRecord, AskState, MemoryStore
from provider import (
    AskUserQuestionAnswer,
    AskUserQuestionItem,
    AskUserQuestionOption,
    PlanReviewIntent,
)
from slack_emulator import ApiError, SlackEmulator

from .harness import ALICE, BOB, CAROL, CHANNEL, REVIEWERS, Bot, running_bot
from .test_team_commands import command, texts, without_grants

PRIVATE = "G0PRIVATE1"
DAVE = "U0DAVE0004"  # in the questions channel, not in the private one
NO_DECISIONS = "_No decisions yet._ When someone answers an agent's question, it shows up here."
HIDDEN_NOTE = (
    f":lock: Some asks in <#{PRIVATE}> are hidden: the bot could not read who is in that "
    "channel, so from there you see only the asks you may answer or review."
)


def answered(ask_id: str, question: str, channel: str | None, n: int = 0) -> AskRecord:
    """A stored ask, answered by alice (settled: nothing is posted on start)."""
    return AskRecord(
        id=ask_id,
        questions=[AskUserQuestionItem(id="q", question=question)],
        created_at=1_700_000_000 + 60 * n,
        agent_name="Planner",
        channel=channel,
        state=AskState.ANSWERED,
        answer=AskUserQuestionAnswer.model_validate({"answers": [{"id": "q", "custom": "yes"}]}),
        decided_by=ALICE,
        decided_at=1_700_000_030 + 60 * n,
    )


def with_private_channel(emu: SlackEmulator, members: Sequence[str] = (ALICE,)) -> None:
    emu.workspace.add_user(DAVE, name="dave", real_name="Dave Dunn", display_name="dave")
    emu.workspace.add_member(CHANNEL, DAVE)
    emu.workspace.add_channel(
        PRIVATE, name="secret", members=[*members, emu.bot_user_id], is_private=True
    )


async def two_channels() -> MemoryStore:
    store = MemoryStore()
    await store.add(answered("public", "Public question?", CHANNEL, 0))
    await store.add(answered("secret", "Secret question?", PRIVATE, 1))
    return store


async def shown_to(
    emu: SlackEmulator,
    user: str,
    *,
    store: MemoryStore,
    responders: Sequence[str] | AnyoneInChannel = ANYONE,
    review: ReviewPolicies | None = None,
) -> list[str]:
    """What `/agent-questions` lists for `user`, every line of it."""
    async with running_bot(emu, store=store, responders=responders, review=review) as bot:
        return texts((await command(bot, user)).blocks)


async def home_of(bot: Bot, user: str) -> list[str]:
    await bot.emu.person(user).open_home()
    await bot.emu.wait_for_call("views.publish")
    await bot.idle()
    home = bot.emu.home(user)
    assert home is not None
    return texts(without_grants(home.blocks))


async def test_the_command_of_a_non_member_omits_the_private_channels_asks(
    emu: SlackEmulator,
) -> None:
    with_private_channel(emu)
    listed = await shown_to(emu, DAVE, store=await two_channels())
    assert [line.split("\n")[0] for line in listed[4:]] == ["*Public question?* → “yes”"]


async def test_the_home_tab_of_a_non_member_omits_the_private_channels_asks(
    emu: SlackEmulator,
) -> None:
    with_private_channel(emu)
    async with running_bot(emu, store=await two_channels()) as bot:
        listed = await home_of(bot, DAVE)
    assert [line.split("\n")[0] for line in listed[9:]] == ["*Public question?* → “yes”"]


async def test_a_member_of_the_private_channel_sees_its_asks(emu: SlackEmulator) -> None:
    with_private_channel(emu)
    listed = await shown_to(emu, ALICE, store=await two_channels())
    assert [line.split("\n")[0] for line in listed[4:]] == [
        "*Secret question?* → “yes”",
        "*Public question?* → “yes”",
    ]


async def test_the_home_tab_of_a_member_shows_the_private_channels_asks(
    emu: SlackEmulator,
) -> None:
    with_private_channel(emu)
    async with running_bot(emu, store=await two_channels()) as bot:
        listed = await home_of(bot, ALICE)
    assert [line.split("\n")[0] for line in listed[9:]] == [
        "*Secret question?* → “yes”",
        "*Public question?* → “yes”",
    ]


async def test_a_listed_responder_outside_the_channel_sees_its_asks(emu: SlackEmulator) -> None:
    with_private_channel(emu)
    listed = await shown_to(emu, DAVE, store=await two_channels(), responders=[DAVE])
    assert [line.split("\n")[0] for line in listed[4:]] == [
        "*Secret question?* → “yes”",
        "*Public question?* → “yes”",
    ]


async def test_a_responder_listed_through_a_user_group_sees_its_asks(emu: SlackEmulator) -> None:
    with_private_channel(emu, members=[CAROL])
    listed = await shown_to(emu, BOB, store=await two_channels(), responders=[REVIEWERS])
    assert [line.split("\n")[0] for line in listed[4:]] == [
        "*Secret question?* → “yes”",
        "*Public question?* → “yes”",
    ]


async def test_a_reviewer_of_the_asks_policy_sees_its_plan_review(emu: SlackEmulator) -> None:
    with_private_channel(emu)
    plan = AskUserQuestionItem(
        id="plan",
        question="Ship the migration?",
        detail="1. migrate\n2. ship",
        options=[AskUserQuestionOption(label="Approve"), AskUserQuestionOption(label="Revise")],
        intent=PlanReviewIntent(approve="Approve"),
    )
    verdict = AskUserQuestionAnswer.model_validate(
        {"answers": [{"id": "plan", "selected": ["Approve"]}]}
    )
    store = MemoryStore()
    await store.add(
        answered("plan", "unused", PRIVATE).model_copy(
            update={"questions": [plan], "answer": verdict}
        )
    )
    review = ReviewPolicies(channels={PRIVATE: ReviewPolicy(reviewers=(DAVE,))})
    listed = await shown_to(emu, DAVE, store=store, responders=[CAROL], review=review)
    assert listed[4].startswith(":clipboard: Plan review: *Ship the migration?*")


async def test_an_ask_not_in_a_channel_yet_is_hidden_from_a_member_who_may_not_answer(
    emu: SlackEmulator,
) -> None:
    with_private_channel(emu)
    store = MemoryStore()
    await store.add(answered("early", "Withdrawn before it was posted?", None))
    listed = await shown_to(emu, ALICE, store=store, responders=[DAVE])
    assert listed[4] == NO_DECISIONS


async def test_an_ask_not_in_a_channel_yet_is_shown_to_who_may_answer(emu: SlackEmulator) -> None:
    with_private_channel(emu)
    store = MemoryStore()
    await store.add(answered("early", "Withdrawn before it was posted?", None))
    listed = await shown_to(emu, DAVE, store=store, responders=[DAVE])
    assert listed[4].startswith("*Withdrawn before it was posted?*")


async def test_when_members_cannot_be_read_only_asks_one_may_answer_show_with_a_note(
    emu: SlackEmulator,
) -> None:
    with_private_channel(emu)
    store = await two_channels()
    async with running_bot(emu, store=store, responders=[DAVE]) as bot:
        emu.inject("conversations.members", ApiError("missing_scope"), times=None)
        member = texts((await command(bot, ALICE)).blocks)
        listed = texts((await command(bot, DAVE)).blocks)
    # Alice is in both channels, but nobody could say so: she may answer neither.
    assert member[0] == f":lock: Some asks in <#{CHANNEL}>, <#{PRIVATE}> are hidden: the bot " + (
        "could not read who is in those channels, so from there you see only the asks you "
        "may answer or review."
    )
    assert member[1:] == [
        "Waiting for an answer",
        ":white_check_mark: Nothing is waiting for an answer right now.",
        "<divider>",
        "Recent decisions",
        NO_DECISIONS,
    ]
    # Dave may answer them all: nothing was hidden from him, so there is no note.
    assert [line.split("\n")[0] for line in listed[4:]] == [
        "*Secret question?* → “yes”",
        "*Public question?* → “yes”",
    ]


async def test_the_home_tab_says_asks_are_hidden_when_members_cannot_be_read(
    emu: SlackEmulator,
) -> None:
    with_private_channel(emu)
    store = MemoryStore()
    await store.add(answered("secret", "Secret question?", PRIVATE))
    async with running_bot(emu, store=store) as bot:
        emu.inject("conversations.members", ApiError("channel_not_found"), times=1)
        listed = await home_of(bot, ALICE)
    assert listed[2] == HIDDEN_NOTE
    assert listed[10] == NO_DECISIONS  # after the filters and figures


async def test_a_large_membership_is_read_page_by_page_with_its_cursor(
    emu: SlackEmulator,
) -> None:
    crowd = [f"U0CROWD{n:04}" for n in range(2 * PAGE_SIZE + 50)]
    for user in crowd:
        emu.workspace.add_user(user, name=user.lower(), real_name=user, display_name=user)
    with_private_channel(emu, members=crowd)  # dave is not among them; the last one is
    store = MemoryStore()
    await store.add(answered("secret", "Secret question?", PRIVATE))
    async with running_bot(emu, store=store) as bot:
        listed = texts((await command(bot, crowd[-1])).blocks)
    calls = [c for c in emu.calls_to("conversations.members") if c.params["channel"] == PRIVATE]
    assert [c.params.get("cursor") is None for c in calls] == [True, False, False]
    assert {c.params["limit"] for c in calls} == {str(PAGE_SIZE)}
    assert listed[4].startswith("*Secret question?*")


async def test_members_are_read_once_for_views_within_a_minute(emu: SlackEmulator) -> None:
    with_private_channel(emu)
    async with running_bot(emu, store=await two_channels()) as bot:
        await command(bot, ALICE)
        await command(bot, DAVE)
        await home_of(bot, ALICE)
    read = sorted(c.params["channel"] for c in emu.calls_to("conversations.members"))
    assert read == [CHANNEL, PRIVATE]
