"""Plan reviews: the plan in full, approval by label, declines, changes, discussion, revisions."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Collection

import pytest

from bot.review import ReviewPolicies, ReviewPolicy
from bot.store import AskRecord, AskState, MemoryStore
from provider import Agent, ErrorCode, UserQuestionError
from slack_emulator import ManualClock, Message, SlackEmulator, Slow

from ..harness import ALICE, BOB, CAROL, CHANNEL, Bot, running_bot


def plan_of(size: int) -> str:
    """A realistic plan of about `size` characters: headings, lists, code and links."""
    sections: list[str] = []
    n = 0
    while sum(len(s) for s in sections) < size:
        n += 1
        sections.append(
            f"## Step {n}: migrate shard {n}\n\n"
            f"1. Drain writes on shard {n} (see [runbook {n}](https://wiki.example/rb/{n})).\n"
            f"2. Copy rows in batches of 10,000 & verify checksums.\n"
            f"   - retry failed batch {n} up to 3 times\n"
            f"```sql\nUPDATE shard_{n} SET moved = true WHERE id < {n}000;\n```\n"
        )
    return "# Plan: move every shard\n\n" + "\n".join(sections)


def review(
    plan: str, *, approve: str = "Approve", options: tuple[str, ...] = ("Revise it", "Approve")
) -> dict[str, object]:
    return {
        "id": "plan",
        "question": "May I carry out this plan?",
        "detail": plan,
        "options": [{"label": label} for label in options],
        "intent": {"kind": "plan-review", "approve": approve},
    }


def shown_text(blocks: list[dict[str, object]]) -> str:
    return json.dumps(blocks, ensure_ascii=False)


async def ask_error(task: object) -> UserQuestionError:
    with pytest.raises(UserQuestionError) as caught:
        await task  # type: ignore[misc]
    return caught.value


async def test_a_plan_review_is_shown_as_one_with_approve_first_and_primary(bot: Bot) -> None:
    bot.ask(review("# Plan\n\n- step one\n- step two"))
    message = await bot.posted()
    assert message.blocks[0]["type"] == "header"
    assert "Plan review" in message.blocks[0]["text"]["text"]
    [actions] = [b for b in message.blocks if b["type"] == "actions"]
    assert actions["block_id"] == "plan"
    first = actions["elements"][0]
    assert (first["text"]["text"], first["style"], "confirm" in first) == (
        "Approve",
        "primary",
        True,
    )
    labels = [e["text"]["text"] for e in actions["elements"]]
    assert labels == [
        "Approve",
        "Edit and approve",
        "Revise it",
        "Request changes",
        "Discuss in thread",
    ]


async def test_approve_returns_the_approve_label_even_when_it_is_not_first(bot: Bot) -> None:
    asking = bot.ask(review("# Plan\n\nDo it.", options=("Revise it", "Not now", "Approve")))
    message = await bot.posted()
    await bot.emu.person(ALICE).click(message, text="Approve")
    assert (await asking).to_wire() == {"answers": [{"id": "plan", "selected": ["Approve"]}]}
    await bot.idle()
    updated = bot.now(message)
    assert f"*Approved* by <@{ALICE}>" in shown_text(updated.blocks)
    assert not [b for b in updated.blocks if b["type"] == "actions"]


async def test_a_decline_returns_its_label(bot: Bot) -> None:
    asking = bot.ask(review("# Plan\n\nDo it."))
    await bot.emu.person(ALICE).click(await bot.posted(), text="Revise it")
    assert (await asking).to_wire() == {"answers": [{"id": "plan", "selected": ["Revise it"]}]}


async def test_request_changes_returns_the_comment_as_custom(bot: Bot) -> None:
    asking = bot.ask(review("# Plan\n\nDo it."))
    alice = bot.emu.person(ALICE)
    await alice.click(await bot.posted(), text="Request changes")
    await bot.idle()
    [modal] = bot.emu.views(ALICE)
    await alice.type(modal, block_id="plan", text="Keep the old table for a week.\nThen drop it.")
    await alice.submit(bot.emu.views(ALICE)[0])
    assert (await asking).to_wire() == {
        "answers": [
            {
                "id": "plan",
                "selected": [],
                "custom": "Keep the old table for a week.\nThen drop it.",
            }
        ]
    }


async def test_discuss_in_thread_is_ask_cancelled(bot: Bot) -> None:
    asking = bot.ask(review("# Plan\n\nDo it."))
    message = await bot.posted()
    await bot.emu.person(ALICE).click(message, text="Discuss in thread")
    error = await ask_error(asking)
    assert error.code is ErrorCode.ASK_CANCELLED
    await bot.idle()
    assert "moved this plan to a discussion" in shown_text(bot.now(message).blocks)


async def test_a_30000_character_plan_is_fully_reachable(bot: Bot) -> None:
    plan = plan_of(30_000)
    assert len(plan) >= 30_000
    bot.ask(review(plan))
    message = await bot.posted()
    markdown = "".join(b["text"] for b in message.blocks if b["type"] == "markdown")
    assert "# Plan: move every shard" in markdown
    assert "```sql" in markdown
    assert len(markdown) < 12_000
    alice = bot.emu.person(ALICE)
    await alice.click(message, text="View the whole plan")
    await bot.idle()
    pages = []
    while True:
        [modal] = bot.emu.views(ALICE)
        pages.append("\n".join(b["text"]["text"] for b in modal.blocks if b["type"] == "section"))
        nav = [e for b in modal.blocks if b["type"] == "actions" for e in b["elements"]]
        if not any(e["text"]["text"] == "Next page" for e in nav):
            break
        await alice.click(modal, text="Next page")
        await bot.idle()
    everything = "\n".join(pages)
    for n in range(1, plan.count("## Step ") + 1):
        assert f"Step {n}: migrate shard {n}" in everything
        assert f"UPDATE shard_{n} SET moved = true WHERE id &lt; {n}000;" in everything
        assert f"https://wiki.example/rb/{n}" in everything
    assert "•" in everything  # lists survive as lists


@pytest.fixture
async def two_approvals(emu: SlackEmulator) -> AsyncIterator[Bot]:
    policy = ReviewPolicies(default=ReviewPolicy(approvals=2))
    async with running_bot(emu, review=policy) as bot:
        yield bot
    assert emu.violations == []


async def test_with_two_approvals_required_one_keeps_it_pending_and_shows_1_of_2(
    two_approvals: Bot,
) -> None:
    asking = two_approvals.ask(review("# Plan\n\nDo it."))
    message = await two_approvals.posted()
    await two_approvals.emu.person(ALICE).click(message, text="Approve")
    await two_approvals.idle()
    assert not asking.done()
    assert f"approved 1/2: <@{ALICE}>" in shown_text(two_approvals.now(message).blocks)
    asking.cancel()


async def test_the_same_reviewer_cannot_count_twice(two_approvals: Bot) -> None:
    asking = two_approvals.ask(review("# Plan\n\nDo it."))
    message = await two_approvals.posted()
    alice = two_approvals.emu.person(ALICE)
    await alice.click(message, text="Approve")
    await two_approvals.idle()
    await alice.click(two_approvals.now(message), text="Approve")
    await two_approvals.idle()
    assert [e.text for e in two_approvals.emu.ephemerals(ALICE)] == [
        "You already approved this plan; it needs another reviewer."
    ]
    assert not asking.done()
    asking.cancel()


async def test_a_second_reviewer_completes_the_approval(two_approvals: Bot) -> None:
    asking = two_approvals.ask(review("# Plan\n\nDo it."))
    message = await two_approvals.posted()
    await two_approvals.emu.person(ALICE).click(message, text="Approve")
    await two_approvals.idle()
    await two_approvals.emu.person(BOB).click(two_approvals.now(message), text="Approve")
    assert (await asking).answers[0].selected == ["Approve"]
    await two_approvals.idle()
    assert f"*Approved* by <@{ALICE}>, <@{BOB}>" in shown_text(two_approvals.now(message).blocks)


async def test_a_decline_after_an_approval_ends_the_review_declined(two_approvals: Bot) -> None:
    asking = two_approvals.ask(review("# Plan\n\nDo it."))
    message = await two_approvals.posted()
    await two_approvals.emu.person(ALICE).click(message, text="Approve")
    await two_approvals.idle()
    await two_approvals.emu.person(BOB).click(two_approvals.now(message), text="Revise it")
    assert (await asking).answers[0].selected == ["Revise it"]


async def test_only_the_policys_reviewers_may_approve(emu: SlackEmulator) -> None:
    policy = ReviewPolicies(channels={CHANNEL: ReviewPolicy(reviewers=(BOB,))})
    async with running_bot(emu, review=policy) as bot:
        asking = bot.ask(review("# Plan\n\nDo it."))
        message = await bot.posted()
        await emu.person(ALICE).click(message, text="Approve")
        await bot.idle()
        assert [e.text for e in emu.ephemerals(ALICE)] == [
            f"Only <@{BOB}> may answer this question, so nothing changed."
        ]
        await emu.person(BOB).click(message, text="Approve")
        assert (await asking).answers[0].selected == ["Approve"]


async def test_a_reminder_mentions_the_reviewers_and_expiry_never_approves(
    emu: SlackEmulator,
) -> None:
    clock = ManualClock()
    policy = ReviewPolicies(
        default=ReviewPolicy(reviewers=(BOB, CAROL), remind_after=2 * 3600, expire_after=24 * 3600)
    )
    async with running_bot(emu, review=policy, clock=clock) as bot:
        asking = bot.ask(review("# Plan\n\nDo it."))
        message = await bot.posted()
        await clock.sleeping()
        clock.advance(2 * 3600)
        reminder = await emu.wait_for_call("chat.postMessage", count=2)
        assert (
            reminder.params["text"] == f"<@{BOB}>, <@{CAROL}>: this plan has waited 2 h for review."
        )
        assert reminder.params["thread_ts"] == message.ts
        await clock.sleeping()
        # The decided message is held back a moment, so Bob's click lands on the buttons he
        # still sees: a late click, not a missing button.
        emu.inject("chat.update", Slow(1.0))
        clock.advance(22 * 3600)
        error = await ask_error(asking)
        assert error.code is ErrorCode.ASK_ABORTED
        assert error.message.endswith("the review expired after 1 d without approval")
        await emu.person(BOB).click(message, text="Approve")
        await bot.idle()
        assert [e.text for e in emu.ephemerals(BOB)] == [
            "This question expired before anyone answered."
        ]
        [record] = await bot.provider.store.recent()
        assert record.answer is None
        await emu.wait_for(
            lambda: "Expired unapproved" in shown_text(bot.now(message).blocks),
            what="the message showing the expiry",
        )


async def test_a_resubmitted_plan_shows_what_changed_since_the_declined_one(bot: Bot) -> None:
    agent = Agent("planner", name="Planner")
    bot.agents.enter(agent)
    first = bot.ask(review("# Plan\n\n1. Copy the table\n2. Drop the old one\n"), agent=agent)
    await bot.emu.person(ALICE).click(await bot.posted(1), text="Revise it")
    await first
    bot.ask(review("# Plan\n\n1. Copy the table\n2. Keep the old one for a week\n"), agent=agent)
    second = await bot.posted(2)
    text = shown_text(second.blocks)
    assert "revision 2" in text
    assert "*Changes since revision 1* (+1 -1 lines)" in text
    assert "-2. Drop the old one" in text
    assert "+2. Keep the old one for a week" in text
    assert second.thread_ts == (await bot.posted(1)).thread_ts


async def test_a_plan_review_in_a_batch_falls_back_to_the_generic_form(bot: Bot) -> None:
    asking = bot.ask(review("# Plan\n\nDo it."), {"id": "why", "question": "Anything else?"})
    message: Message = await bot.posted()
    assert message.blocks[0]["type"] != "header"
    alice = bot.emu.person(ALICE)
    await alice.choose(message, block_id="plan", value="1")
    await alice.check(message, block_id="sq~s.1", values=["skip"])
    await alice.click(message, text="Submit")
    assert (await asking).to_wire() == {
        "answers": [{"id": "plan", "selected": ["Approve"]}, {"id": "why", "selected": []}]
    }


async def test_a_multi_select_plan_review_falls_back_to_the_generic_form(bot: Bot) -> None:
    question = {**review("# Plan"), "multi_select": True}
    asking = bot.ask(question)
    message = await bot.posted()
    assert message.blocks[0]["type"] != "header"
    alice = bot.emu.person(ALICE)
    await alice.check(message, block_id="plan", values=["1"])
    await alice.click(message, text="Submit")
    assert (await asking).answers[0].selected == ["Approve"]


class _CountingStore(MemoryStore):
    """The memory store, counting how often the recent asks are read."""

    def __init__(self) -> None:
        super().__init__()
        self.recent_reads = 0

    async def recent(
        self,
        *,
        state: AskState | None = None,
        limit: int = 50,
        agents: Collection[str] | None = None,
    ) -> list[AskRecord]:
        self.recent_reads += 1
        return await super().recent(state=state, limit=limit, agents=agents)


async def test_a_revision_finds_its_declined_plan_without_reading_the_recent_asks(
    emu: SlackEmulator,
) -> None:
    store = _CountingStore()
    async with running_bot(emu, store=store) as bot:
        agent = Agent("planner", name="Planner")
        bot.agents.enter(agent)
        first = bot.ask(review("# Plan\n\n1. Copy\n"), agent=agent)
        await bot.emu.person(ALICE).click(await bot.posted(1), text="Revise it")
        await first
        reads_before = store.recent_reads
        bot.ask(review("# Plan\n\n1. Copy twice\n"), agent=agent)
        assert "revision 2" in shown_text((await bot.posted(2)).blocks)
        assert store.recent_reads == reads_before
