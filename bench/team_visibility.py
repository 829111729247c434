"""What showing each person only their asks costs the team view: `Audience.visible` over
the view's 75 asks, with the channel's members cached (every view within a minute of the
last) and cold (the first view: `conversations.members`, every page of 200, over loopback),
for channels of a few sizes. Today's code filtered nothing, so its cost was zero.

    python -m bench.team_visibility [--rounds 200]
"""

from __future__ import annotations

import argparse
import asyncio
import time

from bot.review import ReviewPolicies
from bot.slack.api import client_session, web_client
from bot.slack.audience import Audience
from bot.slack.memberships import ChannelMembers
from bot.slack.responders import Responders
from bot.store import AskRecord, AskState
from provider import AskUserQuestionItem
from slack_emulator import SlackEmulator

from .latency_app import SECRET, TOKEN
from .stats import summarise

SIZES = (10, 1_000, 10_000)
ASKS = 75  # the team view's 50 newest and 25 waiting


def records(channel: str) -> list[AskRecord]:
    return [
        AskRecord(
            id=f"ask{n}",
            questions=[AskUserQuestionItem(id="q", question="Deploy?")],
            created_at=float(n),
            channel=channel,
            state=AskState.ANSWERED,
        )
        for n in range(ASKS)
    ]


async def main(rounds: int) -> None:
    emu = SlackEmulator(signing_secret=SECRET, bot_token=TOKEN)
    async with emu:
        for size in SIZES:
            people = [f"U0B{n:07}" for n in range(size)]
            for user in people:
                emu.workspace.add_user(user, name=user.lower())
            channel = f"G0SIZE{size:05}"
            emu.workspace.add_channel(
                channel, name=f"size{size}", members=[*people, emu.bot_user_id], is_private=True
            )
            asks = records(channel)
            async with client_session() as session:
                client = web_client(TOKEN, base_url=emu.api_url, session=session)
                cold: list[float] = []
                warm: list[float] = []
                for _ in range(rounds):
                    members = ChannelMembers(client)
                    audience = Audience(client, Responders(client, ()), ReviewPolicies(), members)
                    # Interleaved: a cold view, then a warm one on the same cache.
                    for samples in (cold, warm):
                        started = time.perf_counter()
                        seen = await audience.visible(people[-1], asks)
                        samples.append(time.perf_counter() - started)
                        assert len(seen.records) == ASKS
            c, w = summarise(cold), summarise(warm)
            print(
                f"{size:>6} members: cold {c.median_ms:.2f} ms (p95 {c.p95_ms:.2f}), "
                f"cached {w.median_ms:.3f} ms (p95 {w.p95_ms:.3f})",
                flush=True,
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=200)
    asyncio.run(main(parser.parse_args().rounds))
