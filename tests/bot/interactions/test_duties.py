"""Separation of duties on clicks: the requester may not approve their own agent, a quorum of
tool approvals needs different reviewers, and a tool that must not be approved from Slack is
not, whatever click arrives."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Mapping
from urllib.parse import urlencode

import aiohttp
import pytest

from bot.block_ids import Action, OptionRef, Ref
from bot.review import ReviewPolicies, ReviewPolicy, ToolRule
from bot.store import AskRecord, EventKind, InboxItem, MemoryStore
from provider import Agent, ErrorCode, UserQuestionError
from slack_emulator import Message, SlackEmulator
from slack_emulator.request_signing import signed_headers

from ..harness import ALICE, BOB, CAROL, SECRET, Bot, request, running_bot

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


class SpyStore(MemoryStore):
    """A memory store that records which clicks reach its inbox (kept before their ack)."""

    def __init__(self) -> None:
        super().__init__()
        self.kept: list[InboxItem] = []

    async def inbox_add(self, item: InboxItem) -> None:
        self.kept.append(item)
        await super().inbox_add(item)


def alices_agent(bot: Bot) -> Agent:
    """An agent session acting for Alice (as SLACK_QUESTIONS_REQUESTER names her)."""
    agent = Agent("dev/session-1", name="Alice's agent", requester=ALICE)
    bot.agents.enter(agent)
    return agent


async def relay_ask(
    bot: Bot, question: Mapping[str, object], *, requester: str | None = ALICE
) -> tuple[AskRecord, Message]:
    """An ask made as the relay makes it for an agent acting for `requester`, once posted
    and its post recorded; and its message."""
    record, _ = await bot.provider.asks.create(
        request(question), agent_id="dev/session-1", requester=requester
    )
    posted = await bot.provider.posting.post(record.id)
    return posted, await bot.posted(len(bot.ask_posts()))  # the newest: this one


async def answer_of(bot: Bot, record: AskRecord) -> list[str]:
    """What the ask was answered with, once settled."""
    settled = await bot.provider.asks.wait(record.id)
    assert settled.answer is not None
    return settled.answer.answers[0].selected


async def stored(bot: Bot) -> AskRecord:
    [record] = await bot.provider.store.recent()
    return record


def ephemeral_texts(emu: SlackEmulator, user: str) -> list[str]:
    return [e.text for e in emu.ephemerals(user)]


@pytest.fixture
async def bot(emu: SlackEmulator) -> AsyncIterator[Bot]:
    # The default policy: nobody's requester may approve their own agent's review.
    async with running_bot(emu) as running:
        yield running


# --- the requester -------------------------------------------------------------------------


async def test_the_requesters_allow_is_refused_and_changes_nothing(
    emu: SlackEmulator, bot: Bot
) -> None:
    before, message = await relay_ask(bot, PUSH)
    updates = len(emu.calls_to("chat.update"))
    await emu.person(ALICE).click(message, text="Allow")
    await bot.idle()
    assert ephemeral_texts(emu, ALICE) == [
        "You may not allow a tool your own agent asked to run; ask someone else in this "
        "channel. Nothing changed; you may still deny it."
    ]
    assert await bot.provider.store.get(before.id) == before
    assert len(emu.calls_to("chat.update")) == updates
    assert bot.now(message).blocks == message.blocks
    [refused] = [
        e for e in await bot.provider.store.events(before.id) if e.kind is EventKind.REFUSED
    ]
    assert (refused.actor, refused.detail) == (ALICE, "the requester may not approve")
    await emu.person(BOB).click(message, text="Allow")
    assert await answer_of(bot, before) == ["Allow"]


async def test_the_requesters_deny_is_accepted(emu: SlackEmulator, bot: Bot) -> None:
    asking = bot.ask(PUSH, agent=alices_agent(bot))
    await emu.person(ALICE).click(await bot.posted(), text="Deny")
    assert (await asking).to_wire() == {"answers": [{"id": "tool", "selected": ["Deny"]}]}
    assert (await stored(bot)).decided_by == ALICE


async def test_the_refusal_names_the_other_reviewers(emu: SlackEmulator) -> None:
    policy = ReviewPolicies(tools=(ToolRule(tool="Bash", reviewers=(ALICE, BOB, "S0REVIEWER")),))
    async with running_bot(emu, review=policy) as bot:
        record, message = await relay_ask(bot, PUSH)
        await emu.person(ALICE).click(message, text="Allow")
        await bot.idle()
        assert ephemeral_texts(emu, ALICE) == [
            f"You may not allow a tool your own agent asked to run; ask <@{BOB}>, "
            "<!subteam^S0REVIEWER> to approve it. Nothing changed; you may still deny it."
        ]
        assert await bot.provider.store.get(record.id) == record


async def test_a_policy_may_let_the_requester_allow(emu: SlackEmulator) -> None:
    policy = ReviewPolicies(tools=(ToolRule(tool="Ba*", requester_may_approve=True),))
    async with running_bot(emu, review=policy) as bot:
        asking = bot.ask(PUSH, agent=alices_agent(bot))
        await emu.person(ALICE).click(await bot.posted(), text="Allow")
        assert (await asking).answers[0].selected == ["Allow"]
        assert (await stored(bot)).policy == "tools.0"


async def test_the_requesters_plan_approval_is_refused_and_their_decline_accepted(
    emu: SlackEmulator, bot: Bot
) -> None:
    before, message = await relay_ask(bot, PLAN)
    updates = len(emu.calls_to("chat.update"))
    await emu.person(ALICE).click(message, text="Approve")
    await bot.idle()
    assert ephemeral_texts(emu, ALICE) == [
        "You may not approve a plan your own agent asked for; ask someone else in this "
        "channel. Nothing changed; you may still decline it."
    ]
    assert await bot.provider.store.get(before.id) == before
    assert len(emu.calls_to("chat.update")) == updates
    await emu.person(ALICE).click(message, text="Revise it")
    assert await answer_of(bot, before) == ["Revise it"]


async def test_someone_elses_allow_of_a_requesters_tool_waits_for_its_ack_to_be_decided(
    emu: SlackEmulator,
) -> None:
    # Deciding before the ack skips what this policy asks of the click: it is kept instead.
    store = SpyStore()
    async with running_bot(emu, store=store) as bot:
        asking = bot.ask(PUSH, agent=alices_agent(bot))
        await emu.person(BOB).click(await bot.posted(), text="Allow")
        assert (await asking).answers[0].selected == ["Allow"]
        await bot.idle()
    assert len(store.kept) == 1


# --- quorum --------------------------------------------------------------------------------


@pytest.fixture
async def two_to_push(emu: SlackEmulator) -> AsyncIterator[Bot]:
    rule = ToolRule(tool="Bash", args={"command": "git push*"}, approvals=2)
    policy = ReviewPolicies(tools=(rule,), default=ReviewPolicy(reviewers=(ALICE, BOB, CAROL)))
    async with running_bot(emu, review=policy) as bot:
        yield bot


async def test_a_tool_rule_with_two_approvals_needs_a_second_reviewer(
    emu: SlackEmulator, two_to_push: Bot
) -> None:
    bot = two_to_push
    asking = bot.ask(PUSH)
    message = await bot.posted()
    await emu.person(ALICE).click(message, text="Allow")
    await bot.idle()
    assert not asking.done()
    record = await stored(bot)
    assert (record.policy, [a.by for a in record.approvals]) == ("tools.0", [ALICE])
    status = await bot.provider.parts.messages.review_status(record)
    assert (status.needed, [by for by, _ in status.approvals]) == (2, [ALICE])
    [approved] = [
        e for e in await bot.provider.store.events(record.id) if e.kind is EventKind.APPROVED
    ]
    assert (approved.actor, approved.detail) == (ALICE, "1/2")
    assert f"1 of 2 approvals: <@{ALICE}>" in json.dumps(bot.now(message).blocks)
    await emu.person(BOB).click(bot.now(message), text="Allow")
    assert (await asking).answers[0].selected == ["Allow"]
    decided = await stored(bot)
    assert ([a.by for a in decided.approvals], decided.decided_by) == ([ALICE, BOB], BOB)


async def test_the_same_reviewer_cannot_allow_twice(emu: SlackEmulator, two_to_push: Bot) -> None:
    bot = two_to_push
    _, message = await relay_ask(bot, PUSH, requester=None)
    await emu.person(ALICE).click(message, text="Allow")
    await bot.idle()
    await emu.person(ALICE).click(bot.now(message), text="Allow")
    await bot.idle()
    assert ephemeral_texts(emu, ALICE) == [
        "You already approved this tool; it needs another reviewer."
    ]
    assert [a.by for a in (await stored(bot)).approvals] == [ALICE]
    assert not (await stored(bot)).settled


async def test_a_deny_after_one_allow_ends_it_denied(emu: SlackEmulator, two_to_push: Bot) -> None:
    bot = two_to_push
    asking = bot.ask(PUSH)
    message = await bot.posted()
    await emu.person(ALICE).click(message, text="Allow")
    await bot.idle()
    await emu.person(BOB).click(bot.now(message), text="Deny")
    assert (await asking).answers[0].selected == ["Deny"]


async def test_a_tool_the_rule_does_not_match_needs_one_allow(
    emu: SlackEmulator, two_to_push: Bot
) -> None:
    bot = two_to_push
    asking = bot.ask({**PUSH, "intent": {**PUSH["intent"], "input": {"command": "ls"}}})  # type: ignore[dict-item]
    await emu.person(ALICE).click(await bot.posted(), text="Allow")
    assert (await asking).answers[0].selected == ["Allow"]
    assert (await stored(bot)).policy == "default"


async def test_a_quorum_tool_approval_in_a_form_is_refused_when_asked(
    two_to_push: Bot,
) -> None:
    other = {"id": "why", "question": "Anything else?"}
    with pytest.raises(UserQuestionError) as refused:
        await two_to_push.ask(PUSH, other)
    assert (refused.value.code, refused.value.message) == (
        ErrorCode.BAD_INTENT,
        "policy tools.0 needs 2 approvals, which only a lone single-select tool-approval "
        "question can enforce",
    )


# --- never from Slack ----------------------------------------------------------------------


async def forged_click(emu: SlackEmulator, message: Message, user: str, option: int) -> int:
    """Send what Slack would sign for `user` clicking option `option` of the ask in
    `message`, whether or not the message shows that button (a forged or stale click);
    the HTTP status of our answer."""
    url, emu.request_url = emu.request_url, None
    delivery = await emu.person(user).click(message, text="Deny")
    emu.request_url = url
    assert url is not None
    payload = dict(delivery.payload)
    actions = payload["actions"]
    assert isinstance(actions, list)
    [action] = actions
    assert isinstance(action, dict)
    ask_id = Ref.decode(str(action["value"])).ask_id
    forged = {
        **action,
        "action_id": f"{Action.PICK}.{option}",
        "value": OptionRef(ask_id, option).encode(),
        "text": {"type": "plain_text", "text": "Allow"},
    }
    payload["actions"] = [forged]
    body = urlencode({"payload": json.dumps(payload)})
    headers = signed_headers(
        secret=SECRET,
        timestamp=int(time.time()),
        body=body,
        content_type="application/x-www-form-urlencoded",
    )
    async with (
        aiohttp.ClientSession() as session,
        session.post(url, data=body, headers=headers) as answer,
    ):
        return answer.status


@pytest.fixture
async def never_in_slack(emu: SlackEmulator) -> AsyncIterator[Bot]:
    rule = ToolRule(tool="Bash", approve_in_slack=False, where="in the change board")
    async with running_bot(emu, review=ReviewPolicies(tools=(rule,))) as bot:
        yield bot


async def test_an_allow_of_a_tool_never_approved_from_slack_is_refused(
    emu: SlackEmulator, never_in_slack: Bot
) -> None:
    bot = never_in_slack
    before, message = await relay_ask(bot, PUSH, requester=None)
    updates = len(emu.calls_to("chat.update"))
    assert await forged_click(emu, message, BOB, 0) == 200
    await bot.idle()
    assert ephemeral_texts(emu, BOB) == [
        "This tool may not be allowed from Slack. Approve it in the change board. Nothing "
        "changed; you may still deny it."
    ]
    assert await bot.provider.store.get(before.id) == before
    assert len(emu.calls_to("chat.update")) == updates
    await emu.person(BOB).click(message, text="Deny")
    assert await answer_of(bot, before) == ["Deny"]


async def test_a_tool_never_approved_from_slack_has_no_allow_and_says_where(
    never_in_slack: Bot,
) -> None:
    _, message = await relay_ask(never_in_slack, PUSH, requester=None)
    buttons = [
        e["text"]["text"] for b in message.blocks if b["type"] == "actions" for e in b["elements"]
    ]
    assert "Allow" not in buttons
    assert "Deny" in buttons
    assert "Approve it in the change board; you may deny it here." in json.dumps(
        message.blocks, ensure_ascii=False
    )


async def test_a_tool_never_approved_from_slack_says_so_in_its_status(
    never_in_slack: Bot,
) -> None:
    bot = never_in_slack
    record, _ = await relay_ask(bot, PUSH)
    status = await bot.provider.parts.messages.review_status(record)
    assert (status.policy, status.in_slack, status.where, status.confirm) == (
        "tools.0",
        False,
        "in the change board",
        True,
    )
    assert (status.requester, status.requester_may_approve) == (ALICE, False)


async def test_a_requesters_review_in_a_form_is_refused_when_asked(bot: Bot) -> None:
    # A form's Submit could carry the requester's own approval: fail closed at the ask.
    other = {"id": "why", "question": "Anything else?"}
    with pytest.raises(UserQuestionError) as refused:
        await bot.ask(PLAN, other, agent=alices_agent(bot))
    assert (refused.value.code, refused.value.message) == (
        ErrorCode.BAD_INTENT,
        "policy default needs no approval by its requester, which only a lone single-select "
        "plan-review question can enforce",
    )


async def test_a_plan_reviews_approve_asks_for_confirmation_only_where_the_policy_says(
    emu: SlackEmulator,
) -> None:
    policy = ReviewPolicies(kinds={"plan-review": ReviewPolicy(confirm=False)})
    async with running_bot(emu, review=policy) as bot:
        _, message = await relay_ask(bot, PLAN, requester=None)
        [approve] = [
            e
            for b in message.blocks
            if b["type"] == "actions"
            for e in b["elements"]
            if e["text"]["text"] == "Approve"
        ]
        assert "confirm" not in approve


def allow_button(message: Message) -> dict[str, object]:
    [allow] = [
        e
        for b in message.blocks
        if b["type"] == "actions"
        for e in b["elements"]
        if e["text"]["text"] == "Allow"
    ]
    return dict(allow)


async def test_allow_asks_for_confirmation_unless_the_tool_rule_says_not_to(
    emu: SlackEmulator,
) -> None:
    policy = ReviewPolicies(tools=(ToolRule(tool="Bash", args={"command": "ls*"}, confirm=False),))
    async with running_bot(emu, review=policy) as bot:
        _, pushing = await relay_ask(bot, PUSH, requester=None)
        listing = {**PUSH, "id": "ls", "intent": {**PUSH["intent"], "input": {"command": "ls"}}}  # type: ignore[dict-item]
        record, listed = await relay_ask(bot, listing, requester=None)
        assert record.policy == "tools.0"
        assert "confirm" in allow_button(pushing)
        assert "confirm" not in allow_button(listed)
