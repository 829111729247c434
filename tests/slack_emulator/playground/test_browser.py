"""The playground in a real browser: a person clicks, ticks, types, submits and closes on the
page, and the agent gets exactly the answer Slack's path would give it — the page acts only
through the emulator's signed payloads to the real Bolt app."""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from provider import Agent, ErrorCode, UserQuestionError
from tests.bot.harness import ALICE, BOB, Bot

from .conftest import Screen

pytestmark = pytest.mark.asyncio(loop_scope="session")


DATABASE = {
    "id": "database",
    "header": "Storage",
    "question": "Which database should the billing service use?",
    "options": [
        {"label": "Postgres (Recommended)", "description": "what the team runs today"},
        {"label": "SQLite", "description": "one file, no server"},
    ],
}
REGIONS = {
    "id": "regions",
    "question": "Which regions should it deploy to first?",
    "multi_select": True,
    "options": [{"label": "eu-west-1"}, {"label": "us-east-1"}, {"label": "ap-south-1"}],
}
OWNER = {
    "id": "owner",
    "question": "Which team owns it?",
    "options": [{"label": "Payments"}, {"label": "Platform"}],
}
NAME = {"id": "name", "question": "What should the service be called?"}
PLAN = {
    "id": "plan",
    "question": "May I carry out this plan?",
    "detail": "## Plan: move sessions to Redis\n\n1. Add a `SessionStore` interface.\n"
    "2. Implement it on Redis with a 24 h TTL.\n3. Switch reads behind a flag.\n\n"
    "| Step | Risk | Owner |\n|:--|:-:|--:|\n| Dual-write sessions | low | payments |\n"
    "| Switch reads | high | platform |\n\n"
    "```python\nclass SessionStore(Protocol): ...\n```\n",
    "options": [{"label": "Revise it"}, {"label": "Approve"}],
    "intent": {"kind": "plan-review", "approve": "Approve"},
}


async def ask_error(asking: object) -> UserQuestionError:
    with pytest.raises(UserQuestionError) as raised:
        await asking  # type: ignore[misc]
    return raised.value


async def test_a_click_on_an_option_button_answers_a_single_select_question(
    bot: Bot, screen: Screen
) -> None:
    asking = bot.ask(DATABASE)
    await bot.posted()
    await screen.open()
    await screen.page.get_by_role("button", name="SQLite", exact=True).click()
    assert (await asking).to_wire() == {"answers": [{"id": "database", "selected": ["SQLite"]}]}
    await expect(screen.page.get_by_text("Answered by @alice")).to_be_visible()
    await screen.shot("single-select-answered")


async def test_an_agents_question_is_answered_in_its_thread(bot: Bot, screen: Screen) -> None:
    agent = Agent("planner-7", name="Release planner")
    bot.agents.enter(agent)
    asking = bot.ask(DATABASE, agent=agent)
    await bot.posted()
    await screen.open()
    page = screen.page
    await page.get_by_role("link", name="1 reply").click()
    thread = page.locator(".sk-thread")
    await expect(thread).to_contain_text("Release planner")
    await screen.shot("agent-thread")
    await thread.get_by_role("button", name="SQLite", exact=True).click()
    assert (await asking).to_wire() == {"answers": [{"id": "database", "selected": ["SQLite"]}]}
    await expect(thread.get_by_text("Answered by @alice")).to_be_visible()


async def test_a_reply_in_the_thread_answers_a_lone_text_question(bot: Bot, screen: Screen) -> None:
    agent = Agent("namer", name="Naming agent")
    bot.agents.enter(agent)
    asking = bot.ask(NAME, agent=agent)
    await bot.posted()
    await screen.open()
    page = screen.page
    await page.get_by_role("link", name="1 reply").click()
    reply = page.locator(".sk-thread .sk-composer textarea")
    await reply.fill("billing-core")
    await reply.press("Enter")
    assert (await asking).to_wire() == {
        "answers": [{"id": "name", "selected": [], "custom": "billing-core"}]
    }
    await expect(page.locator(".sk-thread")).to_contain_text("Answered by @alice")
    await screen.shot("thread-reply")


async def test_ticked_checkboxes_and_submit_answer_a_multi_select_question(
    bot: Bot, screen: Screen
) -> None:
    asking = bot.ask(REGIONS, OWNER)
    await bot.posted()
    await screen.open()
    page = screen.page
    await page.get_by_label("eu-west-1").check()
    await page.get_by_label("ap-south-1").check()
    await page.get_by_label("Platform").check()
    await screen.shot("multi-select")
    await page.get_by_role("button", name="Submit", exact=True).click()
    assert (await asking).to_wire() == {
        "answers": [
            {"id": "regions", "selected": ["eu-west-1", "ap-south-1"]},
            {"id": "owner", "selected": ["Platform"]},
        ]
    }
    await expect(page.get_by_text("Answered by @alice")).to_be_visible()


async def test_a_typed_answer_answers_a_question_without_options(bot: Bot, screen: Screen) -> None:
    asking = bot.ask(NAME, OWNER)
    await bot.posted()
    await screen.open()
    page = screen.page
    await page.get_by_placeholder("Type your answer").fill("billing-core\nv2")
    await page.get_by_label("Payments").check()
    await screen.shot("text-answer")
    await page.get_by_role("button", name="Submit", exact=True).click()
    assert (await asking).to_wire() == {
        "answers": [
            {"id": "name", "selected": [], "custom": "billing-core\nv2"},
            {"id": "owner", "selected": ["Payments"]},
        ]
    }


async def test_a_form_filled_in_a_modal_and_submitted_answers_the_batch(
    bot: Bot, screen: Screen
) -> None:
    asking = bot.ask(REGIONS, OWNER, NAME)
    await bot.posted()
    await screen.open()
    page = screen.page
    await page.get_by_role("button", name="Answer in a form").click()
    modal = page.locator(".sk-modal")
    await expect(modal).to_be_visible()
    await modal.get_by_label("us-east-1").check()
    await modal.get_by_label("Payments").check()
    await modal.get_by_placeholder("Type your answer").fill("ledger")
    await screen.shot("modal-form")
    await modal.get_by_role("button", name="Submit", exact=True).click()
    assert (await asking).to_wire() == {
        "answers": [
            {"id": "regions", "selected": ["us-east-1"]},
            {"id": "owner", "selected": ["Payments"]},
            {"id": "name", "selected": [], "custom": "ledger"},
        ]
    }
    await expect(modal).to_have_count(0)


async def test_closing_the_modal_form_is_ask_aborted(bot: Bot, screen: Screen) -> None:
    asking = bot.ask(REGIONS, OWNER)
    await bot.posted()
    await screen.open()
    page = screen.page
    await page.get_by_role("button", name="Answer in a form").click()
    modal = page.locator(".sk-modal")
    await expect(modal).to_be_visible()
    await modal.get_by_role("button", name="Cancel").click()
    error = await ask_error(asking)
    assert error.code is ErrorCode.ASK_ABORTED
    await expect(page.get_by_text("closed the form")).to_be_visible()
    await screen.shot("modal-closed")


async def test_a_plan_is_approved_after_its_confirmation(bot: Bot, screen: Screen) -> None:
    asking = bot.ask(PLAN)
    await bot.posted()
    await screen.open()
    page = screen.page
    await expect(page.get_by_role("heading", name="Plan: move sessions to Redis")).to_be_visible()
    await screen.shot("plan-review")
    await page.get_by_role("button", name="Approve", exact=True).click()
    dialog = page.locator("dialog.sk-confirm[open]")
    await expect(dialog).to_contain_text("Approve this plan?")
    await screen.shot("plan-confirm")
    assert not asking.done()  # the confirmation alone sends nothing
    await dialog.get_by_role("button", name="Approve").click()
    assert (await asking).to_wire() == {"answers": [{"id": "plan", "selected": ["Approve"]}]}
    await expect(page.get_by_text("Approved")).to_be_visible()


async def test_a_plan_with_changes_requested_returns_the_comment(bot: Bot, screen: Screen) -> None:
    asking = bot.ask(PLAN)
    await bot.posted()
    await screen.open()
    page = screen.page
    await page.get_by_role("button", name="Request changes").click()
    modal = page.locator(".sk-modal")
    await modal.locator("textarea").fill("Keep the old table for a week.\nThen drop it.")
    await screen.shot("plan-changes")
    await modal.locator("[data-view-submit]").click()
    assert (await asking).to_wire() == {
        "answers": [
            {
                "id": "plan",
                "selected": [],
                "custom": "Keep the old table for a week.\nThen drop it.",
            }
        ]
    }


async def test_the_home_tab_lists_the_decisions(bot: Bot, screen: Screen) -> None:
    asking = bot.ask(DATABASE)
    await bot.posted()
    await screen.open()
    await screen.page.get_by_role("button", name="Postgres (Recommended)").click()
    assert (await asking).to_wire() == {
        "answers": [{"id": "database", "selected": ["Postgres (Recommended)"]}]
    }
    waiting = bot.ask(PLAN)
    await bot.posted(2)
    await screen.open("?tab=home")
    home = screen.page.locator(".sk-home-body")
    await expect(home.get_by_text("Recent decisions")).to_be_visible()
    await expect(home).to_contain_text("Which database should the billing service use?")
    await expect(home).to_contain_text("Postgres (Recommended)")
    await expect(home).to_contain_text("May I carry out this plan?")
    await screen.shot("home-tab")
    waiting.cancel()
    with pytest.raises(BaseException):  # noqa: B017, PT011 - cancelled or aborted, either ends it
        await waiting


async def test_a_new_question_and_its_withdrawal_appear_without_a_reload(
    bot: Bot, screen: Screen
) -> None:
    await screen.open()
    page = screen.page
    await expect(page.get_by_text("No messages yet")).to_be_visible()
    asking = bot.ask(DATABASE)
    await expect(page.get_by_role("button", name="SQLite", exact=True)).to_be_visible()
    asking.cancel()
    with pytest.raises(BaseException):  # noqa: B017, PT011
        await asking
    await expect(page.get_by_text("Withdrawn")).to_be_visible()
    await expect(page.get_by_role("button", name="SQLite", exact=True)).to_have_count(0)
    await screen.shot("withdrawn")


async def test_a_person_can_act_as_any_seeded_user(bot: Bot, screen: Screen) -> None:
    asking = bot.ask(DATABASE)
    await bot.posted()
    await screen.open()
    page = screen.page
    await page.locator("#sk-as").select_option(BOB)
    await expect(page.locator("#sk-as")).to_have_value(BOB)
    await page.get_by_role("button", name="SQLite", exact=True).click()
    assert (await asking).to_wire() == {"answers": [{"id": "database", "selected": ["SQLite"]}]}
    await expect(page.get_by_text("Answered by @bob")).to_be_visible()


async def test_the_slash_command_shows_the_team_view_only_to_the_person(
    bot: Bot, screen: Screen
) -> None:
    asking = bot.ask(DATABASE)
    await bot.posted()
    await screen.open()
    page = screen.page
    composer = page.locator(".sk-main .sk-composer textarea")
    await composer.fill("/agent-questions")
    await composer.press("Enter")
    ephemeral = page.locator(".sk-ephemeral")
    await expect(ephemeral).to_contain_text("Only visible to you")
    await expect(ephemeral).to_contain_text("Waiting for an answer")
    await screen.shot("slash-command")
    assert [e.user for e in bot.emu.ephemerals(ALICE)] == [ALICE]
    assert bot.emu.ephemerals(BOB) == []
    asking.cancel()
    with pytest.raises(BaseException):  # noqa: B017, PT011
        await asking


async def test_hostile_agent_text_is_shown_as_text_and_runs_nothing(
    bot: Bot, screen: Screen
) -> None:
    hostile = {
        "id": "evil",
        "header": "<script>window.__pwned = 1</script>",
        "question": '"><img src=x onerror="window.__pwned = 2"> <!channel> please',
        "options": [
            {"label": "<script>alert(1)</script>", "description": '"><img src=x onerror=alert(2)>'},
            {"label": "<!channel>"},
        ],
    }
    asking = bot.ask(
        hostile, {**PLAN, "detail": "# <script>alert(3)</script>\n\n<img src=x onerror=alert(4)>"}
    )
    await bot.posted()
    await screen.open()
    page = screen.page
    message = page.locator(".sk-msg").first
    # The header's underscores, which could start italics, show as U+02CD (agent_text.py);
    # the question is a plain_text label, shown exactly.
    await expect(message).to_contain_text("<script>window.\u02cd\u02cdpwned = 1</script>")
    await expect(message).to_contain_text(
        '"><img src=x onerror="window.__pwned = 2"> <!channel> please'
    )
    await expect(page.get_by_text("<script>alert(1)</script>").first).to_be_visible()
    await expect(
        page.get_by_text("# <script>alert(3)</script>")
        .or_(page.get_by_text("<script>alert(3)</script>"))
        .first
    ).to_be_visible()
    assert await page.evaluate("window.__pwned") is None
    assert await page.locator("#app img").count() == 0
    assert await page.locator("#app script").count() == 0
    assert await page.locator("script").count() == 1  # the page's own
    await screen.shot("hostile-text")
    asking.cancel()
    with pytest.raises(BaseException):  # noqa: B017, PT011
        await asking


async def test_other_opens_a_modal_whose_typed_answer_comes_back_as_custom(
    bot: Bot, screen: Screen
) -> None:
    asking = bot.ask(DATABASE)
    await bot.posted()
    await screen.open()
    page = screen.page
    await page.get_by_role("button", name="Other…").click()
    modal = page.locator(".sk-modal")
    await modal.locator("textarea, input.sk-input").first.fill("CockroachDB")
    await screen.shot("other-modal")
    await modal.locator("[data-view-submit]").click()
    assert (await asking).to_wire() == {
        "answers": [{"id": "database", "selected": [], "custom": "CockroachDB"}]
    }


async def test_a_pick_in_a_long_menu_answers_a_single_select_question(
    bot: Bot, screen: Screen
) -> None:
    options = [{"label": f"region-{n:02d}"} for n in range(30)]
    asking = bot.ask({"id": "region", "question": "Which region?", "options": options})
    await bot.posted()
    await screen.open()
    menu = screen.page.locator('select[data-el="static_select"]')
    await menu.select_option(label="region-17")
    assert (await asking).to_wire() == {"answers": [{"id": "region", "selected": ["region-17"]}]}
