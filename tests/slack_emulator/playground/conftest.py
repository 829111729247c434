"""Fixtures for the playground's browser tests: Debian's Chromium driven by Playwright, the
playground served over the emulator, and the real Slack provider answering.

The network is closed here, so Playwright's own browser download is never used: tests launch
the system Chromium by path. Without one they skip — unless `CI` is set, where a missing
browser is a failure.

Chromium starts once per session (it takes seconds on a loaded machine); each test gets its
own browser context, emulator, bot and playground. Playwright's objects belong to the event
loop that made them, so these fixtures, and the tests using them, run in the session's loop
(`pytestmark = pytest.mark.asyncio(loop_scope="session")` in each test module).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page, ViewportSize, async_playwright

from slack_emulator import SlackEmulator
from slack_emulator.playground import Playground
from tests.bot.harness import ALICE, Bot, new_emulator, running_bot

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# Each run writes its screenshots here (ignored by git); docs/screenshots holds the copies the
# README shows, refreshed by hand: cp artifacts/screenshots/*.png docs/screenshots/
SCREENSHOTS = Path(__file__).resolve().parents[3] / "artifacts" / "screenshots"
WIDE = 1280
NARROW = 800
HEIGHT = 800


def chromium() -> str:
    """The browser to drive, or a skip saying why there is none."""
    if CHROMIUM.exists():
        return str(CHROMIUM)
    if os.environ.get("CI"):
        pytest.fail(f"CI is set but there is no Chromium at {CHROMIUM} (apt-get install chromium)")
    pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium) and CI is not set")


@dataclass
class Screen:
    """One person's browser tab on the playground."""

    page: Page
    playground: Playground
    dialogs: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    async def open(self, query: str = "") -> None:
        """Load the page (`query` like `?tab=home`) and wait until its live stream is open."""
        await self.page.goto(self.playground.url + query)
        await self.page.wait_for_function("document.readyState === 'complete'")

    async def shot(self, name: str) -> None:
        """Keep what the person sees as docs/screenshots/<name>.png."""
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        await self.page.screenshot(path=SCREENSHOTS / f"{name}.png")


@pytest_asyncio.fixture(loop_scope="session")
async def emu() -> AsyncIterator[SlackEmulator]:
    async with new_emulator() as emulator:
        yield emulator
    assert emulator.violations == []


@pytest_asyncio.fixture(loop_scope="session")
async def bot(emu: SlackEmulator) -> AsyncIterator[Bot]:
    async with running_bot(emu) as running:
        yield running


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def browser() -> AsyncIterator[Browser]:
    path = chromium()
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            await launched.close()


@pytest_asyncio.fixture(loop_scope="session")
async def playground(bot: Bot) -> AsyncIterator[Playground]:
    served = Playground(bot.emu, person=ALICE)
    await served.start()
    try:
        yield served
    finally:
        await served.close()


@pytest.fixture
def width() -> int:
    """The browser window's width; a test runs at others with
    `@pytest.mark.parametrize("width", [WIDE, NARROW])`."""
    return WIDE


@pytest.fixture
def timezone() -> str:
    """The reader's time zone (the browser's); a test may parametrize it like `width`."""
    return "UTC"


@pytest_asyncio.fixture(loop_scope="session")
async def screen(
    browser: Browser, playground: Playground, width: int, timezone: str
) -> AsyncIterator[Screen]:
    viewport: ViewportSize = {"width": width, "height": HEIGHT}
    context = await browser.new_context(viewport=viewport, locale="en-US", timezone_id=timezone)
    page = await context.new_page()
    seen = Screen(page, playground)
    page.on("dialog", lambda dialog: seen.dialogs.append(dialog.message))
    page.on("pageerror", lambda error: seen.errors.append(str(error)))
    try:
        yield seen
    finally:
        await context.close()
    # No script error on the page, and nothing ever opened a browser dialog.
    assert seen.errors == []
    assert seen.dialogs == []
