"""Ack latency with the durable inbox beside the bare Bolt ack, on one emulator, interleaved.

Two app processes run at once: the bare Bolt app (one listener that acks) and the full
provider on a SQLite store, whose click listener commits before it acks: the click's inbox
row (bot/interactions/intake.py), or, for a one-click answer it can decide on the spot (this bench's
click, since issue 13), the ask's settlement itself, which keeps the click as durably. Each round clicks both, in alternating order, so drift on this noisy
machine hits both alike. The ack round trip is measured where Slack measures it: from the
emulator sending the signed request to its reading the ack.

    python -m bench.inbox_latency [--rounds 300]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from slack_sdk.web.async_client import AsyncWebClient

from bot.store import InboxItem, InboxKind
from bot.store.sqlite import SqliteStore
from slack_emulator import SlackEmulator

from .click_latency import MESSAGE, PERSON, WARM_UP, AppProcess, free_port
from .latency_app import CHANNEL, SECRET, TOKEN
from .stats import summarise


async def measure(rounds: int, workdir: Path) -> tuple[list[float], list[float]]:
    """(bare ack seconds, inbox ack seconds), warm-up rounds dropped."""
    emu = SlackEmulator(signing_secret=SECRET, bot_token=TOKEN)
    emu.workspace.add_user(PERSON, name="bencher")
    emu.workspace.add_channel(CHANNEL, name="bench", members=[PERSON, emu.bot_user_id])
    total = rounds + WARM_UP
    bare_acks: list[float] = []
    inbox_acks: list[float] = []
    async with emu:
        bare_port, inbox_port = free_port(), free_port()
        bare = await AppProcess.start("bare", "--api-url", emu.api_url, "--port", str(bare_port))
        inbox = await AppProcess.start(
            "provider",
            "--api-url",
            emu.api_url,
            "--port",
            str(inbox_port),
            "--db",
            str(workdir / "asks.db"),
        )
        for app in (bare, inbox):
            await app.expect("ready")
        client = AsyncWebClient(token=TOKEN, base_url=emu.api_url)
        person = emu.person(PERSON)

        def asks_posted() -> list[str]:
            return [
                str(c.response["ts"])
                for c in emu.calls_to("chat.postMessage")
                if c.ok and (c.params.get("metadata") or {}).get("event_type")
            ]

        async def click_bare() -> float:
            bare.send("go")
            await bare.expect("posted")
            response = await client.chat_postMessage(channel=CHANNEL, text="Go?", blocks=MESSAGE)
            emu.request_url = f"http://127.0.0.1:{bare_port}/slack/events"
            delivery = await person.click(emu.message(CHANNEL, str(response["ts"])), text="Yes")
            await bare.answered_at()
            bare.send("idle")
            await bare.expect("idle")
            assert delivery.ack_seconds is not None
            return delivery.ack_seconds

        async def click_inbox(n: int) -> float:
            # The provider asks when told, says when it has saved its post, and when its
            # work after the answer is done, so none of it lands in a timed round.
            inbox.send("go")
            await inbox.expect("posted")
            emu.request_url = f"http://127.0.0.1:{inbox_port}/slack/events"
            delivery = await person.click(emu.message(CHANNEL, asks_posted()[n]), text="Yes")
            await inbox.answered_at()
            inbox.send("idle")
            await inbox.expect("idle")
            assert delivery.ack_seconds is not None
            return delivery.ack_seconds

        for n in range(total):
            if n % 2:
                first, second = await click_bare(), await click_inbox(n)
                pair = (first, second)
            else:
                second, first = await click_inbox(n), await click_bare()
                pair = (first, second)
            if n >= WARM_UP:
                bare_acks.append(pair[0])
                inbox_acks.append(pair[1])
        for app in (bare, inbox):
            await app.stop()
        assert emu.violations == [], emu.violations
    return bare_acks, inbox_acks


async def inbox_writes(rounds: int, workdir: Path) -> list[float]:
    """Seconds each `inbox_add` takes on its own: what the inbox adds to an ack."""
    body = "payload=" + "x" * 3000  # about a click's size
    took = []
    async with SqliteStore(workdir / "writes.db") as store:
        for n in range(rounds + WARM_UP):
            item = InboxItem(
                id=f"i{n}", received_at=time.time(), kind=InboxKind.BLOCK_ACTIONS, body=body
            )
            started = time.perf_counter()
            await store.inbox_add(item)
            if n >= WARM_UP:
                took.append(time.perf_counter() - started)
    return took


async def main(rounds: int) -> None:
    """Measure both acks, interleaved, and print them side by side."""
    started = time.time()
    with tempfile.TemporaryDirectory() as workdir:
        bare, inbox = await measure(rounds, Path(workdir))
        writes = summarise(await inbox_writes(rounds, Path(workdir)))
    b, i = summarise(bare), summarise(inbox)
    print(f"{rounds} interleaved rounds (after {WARM_UP} warm-up), {time.time() - started:.0f} s")
    print(f"ack round trip, bare Bolt:              {b}")
    print(f"ack round trip, provider + SQLite write: {i}")
    print(
        f"durable write over bare: median {i.median_ms - b.median_ms:+.2f} ms, "
        f"p95 {i.p95_ms - b.p95_ms:+.2f} ms"
    )
    print(f"the inbox write alone (SQLite commit):   {writes}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=300)
    asyncio.run(main(parser.parse_args().rounds))
