"""The playground at Slack's window sizes (1280 and 800 px wide) and in the reader's time zone:
where a channel opens, how wide its columns are, how words and button labels fit, how plan
tables, required fields and dates show."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from playwright.async_api import Locator, Page, expect

from tests.bot.harness import ALICE, BOB, CHANNEL, Bot

from .conftest import NARROW, WIDE, Screen
from .test_browser import DATABASE, PLAN

pytestmark = pytest.mark.asyncio(loop_scope="session")

BOTH_WIDTHS = pytest.mark.parametrize("width", [WIDE, NARROW])
LONG_LABEL = "Keep the current PostgreSQL cluster and add a read replica for reporting"
LONG_LABELS = {
    "id": "storage",
    "question": "How should reporting reach the data?",
    "options": [{"label": LONG_LABEL}, {"label": "Nightly export to the warehouse"}],
}

# Every word (split where a browser may wrap: spaces, hyphens, slashes) drawn on more than one
# line is one broken inside itself.
_WORDS_BROKEN = """(root) => {
  const broken = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const word of node.textContent.matchAll(/[^\\s\\-\\/]+/g)) {
      range.setStart(node, word.index);
      range.setEnd(node, word.index + word[0].length);
      const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.bottom)));
      if (lines.size > 1) broken.push(word[0]);
    }
  }
  return broken;
}"""
# Every element inside the pane whose right edge passes the pane's: [what, its right, pane's].
_PAST_THE_PANE = """(pane) => {
  const edge = pane.getBoundingClientRect().right;
  return [...pane.querySelectorAll(".sk-msg *")]
    .map((el) => [el.className || el.tagName, el.getBoundingClientRect().right])
    .filter(([, right]) => right > edge + 0.5)
    .map(([what, right]) => [String(what), right, edge]);
}"""


async def scroll_gap(messages: Locator) -> float:
    """How far the message list is from its bottom, in px."""
    return float(await messages.evaluate("(m) => m.scrollHeight - m.scrollTop - m.clientHeight"))


async def chatter(bot: Bot, n: int) -> None:
    """`n` channel messages from Bob, enough to fill more than a window."""
    for i in range(n):
        await bot.emu.person(BOB).say(CHANNEL, f"Status update {i}: the migration is on track.")


async def drawn(screen: Screen, bot: Bot) -> None:
    """Wait until the page shows the emulator as it is now (no redraw still to come)."""
    await screen.page.wait_for_function(
        "(v) => document.getElementById('app').dataset.version === v", arg=str(bot.emu.version)
    )


async def bottom_settled(page: Page, messages: Locator) -> None:
    await page.wait_for_function(
        "(m) => m.scrollHeight - m.scrollTop - m.clientHeight < 2",
        arg=await messages.element_handle(),
    )


# 1: the newest message first ------------------------------------------------------------


@BOTH_WIDTHS
async def test_a_channel_opens_scrolled_to_its_newest_message(bot: Bot, screen: Screen) -> None:
    await chatter(bot, 25)
    await screen.open()
    messages = screen.page.locator(".sk-main .sk-messages")
    await expect(messages.get_by_text("Status update 24:")).to_be_in_viewport()
    await drawn(screen, bot)
    assert await scroll_gap(messages) < 2
    assert await messages.evaluate("(m) => m.scrollHeight > m.clientHeight * 1.5")


@BOTH_WIDTHS
async def test_a_thread_opens_scrolled_to_its_newest_reply(bot: Bot, screen: Screen) -> None:
    root = await bot.emu.person(ALICE).say(CHANNEL, "Where are we with the migration?")
    for i in range(25):
        await bot.emu.person(BOB).reply(CHANNEL, root.ts, f"Reply {i}: still copying tables.")
    await screen.open(f"?c={CHANNEL}&t={root.ts}")
    thread = screen.page.locator(".sk-thread .sk-messages")
    await expect(thread.get_by_text("Reply 24:")).to_be_in_viewport()
    await drawn(screen, bot)
    assert await scroll_gap(thread) < 2


async def test_a_channel_at_its_bottom_stays_there_as_messages_arrive(
    bot: Bot, screen: Screen
) -> None:
    await chatter(bot, 25)
    await screen.open()
    messages = screen.page.locator(".sk-main .sk-messages")
    asking = bot.ask(DATABASE)
    await bot.posted()
    await expect(messages.get_by_role("button", name="SQLite", exact=True)).to_be_in_viewport()
    await bottom_settled(screen.page, messages)
    asking.cancel()
    with pytest.raises(BaseException):  # noqa: B017, PT011 - cancelled or aborted, either ends it
        await asking


async def test_a_reader_who_scrolled_up_stays_where_they_were_as_messages_arrive(
    bot: Bot, screen: Screen
) -> None:
    await chatter(bot, 25)
    await screen.open()
    page = screen.page
    messages = page.locator(".sk-main .sk-messages")
    # The reader scrolls once the page is drawn: a first redraw still to come (its live
    # stream opening) is the page loading, not a message arriving.
    await drawn(screen, bot)
    await messages.evaluate("(m) => { m.scrollTop = 100; }")
    await bot.emu.person(BOB).say(CHANNEL, "One more thing: the replica is ready.")
    await expect(messages.get_by_text("One more thing")).to_have_count(1)
    await drawn(screen, bot)
    assert await messages.evaluate("(m) => m.scrollTop") == 100
    await expect(messages.get_by_text("One more thing")).not_to_be_in_viewport()


# 2: usable widths, whole words ------------------------------------------------------------


@BOTH_WIDTHS
async def test_with_a_thread_open_the_channel_and_the_thread_keep_usable_widths(
    bot: Bot, screen: Screen, width: int
) -> None:
    root = await bot.emu.person(ALICE).say(CHANNEL, "Which database should the billing use?")
    await bot.emu.person(BOB).reply(CHANNEL, root.ts, "Postgres, what the team runs today.")
    await screen.open(f"?c={CHANNEL}&t={root.ts}")
    page = screen.page
    channel = await page.locator(".sk-main").bounding_box()
    thread = await page.locator(".sk-thread").bounding_box()
    assert channel is not None
    assert thread is not None
    assert channel["width"] >= 400
    assert thread["width"] >= 320
    assert channel["width"] + thread["width"] <= width
    # The sidebar gives way at 800 px only; closing the thread brings it back.
    assert await page.locator(".sk-side").is_visible() is (width == WIDE)
    await page.get_by_role("link", name="Close thread").click()
    await expect(page.locator(".sk-side")).to_be_visible()


@BOTH_WIDTHS
async def test_no_word_is_broken_inside_itself_in_the_channel_or_its_thread(
    bot: Bot, screen: Screen, width: int
) -> None:
    asking = bot.ask(DATABASE)
    await bot.posted()
    root = await bot.emu.person(ALICE).say(CHANNEL, "Which database should the billing use?")
    await bot.emu.person(BOB).reply(CHANNEL, root.ts, "Postgres, what the team runs today.")
    await screen.open(f"?c={CHANNEL}&t={root.ts}")
    page = screen.page
    await expect(page.locator(".sk-thread")).to_contain_text("what the team runs today")
    await expect(page.locator(".sk-main")).to_contain_text("Which database should the billing")
    assert await page.locator("#app").evaluate(_WORDS_BROKEN) == []
    if width == NARROW:
        await screen.shot("narrow-thread")
    asking.cancel()
    with pytest.raises(BaseException):  # noqa: B017, PT011
        await asking


# 3: long button labels ----------------------------------------------------------------------


@BOTH_WIDTHS
async def test_a_long_button_label_ends_in_an_ellipsis_inside_its_pane(
    bot: Bot, screen: Screen
) -> None:
    asking = bot.ask(LONG_LABELS)
    message = await bot.posted()
    await screen.open(f"?c={CHANNEL}&t={message.ts}")
    page = screen.page
    for pane in (page.locator(".sk-main"), page.locator(".sk-thread")):
        button = pane.locator(f'button[title="{LONG_LABEL}"]')
        await expect(button).to_have_count(1)
        assert await pane.evaluate(_PAST_THE_PANE) == []
    label = page.locator(f'.sk-thread button[title="{LONG_LABEL}"] .sk-btn-label')
    assert await label.evaluate("(l) => getComputedStyle(l).textOverflow") == "ellipsis"
    assert await label.evaluate("(l) => l.scrollWidth > l.clientWidth")  # it is cut short
    asking.cancel()
    with pytest.raises(BaseException):  # noqa: B017, PT011
        await asking


# 4: tables in plans -------------------------------------------------------------------------


async def test_a_markdown_table_in_a_plan_shows_as_a_table(bot: Bot, screen: Screen) -> None:
    asking = bot.ask(PLAN)  # its plan holds a table
    await bot.posted()
    await screen.open()
    table = screen.page.get_by_role("table")
    await expect(table).to_be_visible()
    assert await table.locator("th").all_inner_texts() == ["Step", "Risk", "Owner"]
    assert await table.locator("tbody tr").first.locator("td").all_inner_texts() == [
        "Dual-write sessions",
        "low",
        "payments",
    ]
    await expect(screen.page.locator(".bk-markdown")).not_to_contain_text("|")
    asking.cancel()
    with pytest.raises(BaseException):  # noqa: B017, PT011
        await asking


# 5: a required field left empty -----------------------------------------------------------


async def test_submitting_an_empty_required_field_shows_slacks_error_under_it(
    bot: Bot, screen: Screen
) -> None:
    asking = bot.ask(DATABASE)
    await bot.posted()
    await screen.open()
    page = screen.page
    await page.get_by_role("button", name="Other…").click()
    modal = page.locator(".sk-modal")
    await modal.locator("[data-view-submit]").click()
    error = modal.locator(".bk-input.has-error .bk-error")
    await expect(error).to_have_text("Please complete this required field.")
    await expect(page.locator("#toast")).to_be_hidden()
    assert not asking.done()
    await screen.shot("modal-required")
    await modal.locator("textarea").fill("CockroachDB")
    await modal.locator("[data-view-submit]").click()
    assert (await asking).to_wire() == {
        "answers": [{"id": "database", "selected": [], "custom": "CockroachDB"}]
    }


# 6: dates in the reader's time zone -------------------------------------------------------


def slack_time(seconds: int, zone: str) -> str:
    """`{date_short_pretty} at {time}` as Slack's client shows it to a reader in `zone`."""
    at = datetime.fromtimestamp(seconds, ZoneInfo(zone))
    today = datetime.now(ZoneInfo(zone)).date()
    day = {
        today: "today",
        today - timedelta(days=1): "yesterday",
        today + timedelta(days=1): "tomorrow",
    }.get(at.date(), f"{at:%b} {at.day}, {at.year}")
    return f"{day} at {at.hour % 12 or 12}:{at:%M} {'AM' if at.hour < 12 else 'PM'}"


@pytest.mark.parametrize("timezone", ["Asia/Kolkata"])
async def test_a_decisions_date_shows_in_the_readers_time_zone(
    bot: Bot, screen: Screen, timezone: str
) -> None:
    asking = bot.ask(DATABASE)
    await bot.posted()
    await screen.open()
    page = screen.page
    await page.get_by_role("button", name="SQLite", exact=True).click()
    await asking
    stamp = page.locator(".bk-context time.sk-date")
    await expect(stamp).to_have_count(1)
    seconds = int(await stamp.get_attribute("data-ts") or "")
    await expect(stamp).to_have_text(slack_time(seconds, timezone))
    assert "UTC" not in await stamp.inner_text()
