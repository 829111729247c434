"""`python -m slack_emulator`: run the emulator with a seeded workspace until SIGINT/SIGTERM."""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys

from slack_emulator.emulator import SlackEmulator
from slack_emulator.identity import DEFAULT_SIGNING_SECRET
from slack_emulator.seed import seed_workspace


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m slack_emulator", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=4000)
    parser.add_argument("--request-url", default=None, help="the app's /slack/events URL")
    parser.add_argument("--delivery", choices=("http", "socket"), default="http")
    parser.add_argument("--signing-secret", default=DEFAULT_SIGNING_SECRET)
    parser.add_argument("--bot-token", default="xoxb-emulator")
    parser.add_argument("--app-token", default="xapp-emulator")
    return parser.parse_args(argv)


async def serve(args: argparse.Namespace) -> None:
    emulator = SlackEmulator(
        signing_secret=args.signing_secret,
        bot_token=args.bot_token,
        app_token=args.app_token,
        request_url=args.request_url,
    )
    emulator.delivery = args.delivery
    seeded = seed_workspace(emulator.workspace, bot_user_id=emulator.bot_user_id)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    await emulator.start(host=args.host, port=args.port)
    try:
        print(f"Slack emulator Web API: {emulator.api_url}", flush=True)
        print(
            f"bot token {emulator.bot_token}, app token {emulator.app_token}, "
            f"signing secret {emulator.signing_secret}",
            flush=True,
        )
        print(
            f"channel {seeded.channel_id} (#agent-questions), usergroup {seeded.usergroup_id}, "
            f"people {', '.join(seeded.user_ids)}; deliveries to {args.request_url or '(none)'}",
            flush=True,
        )
        print(f"Start the bot against it: {bot_command(emulator, seeded.channel_id)}", flush=True)
        await stop.wait()
    finally:
        await emulator.stop()
        print("Slack emulator stopped", flush=True)


def bot_command(emulator: SlackEmulator, channel_id: str) -> str:
    """The command line that starts slack-questions against this emulator (HTTP delivery; the
    bot's --port must match --request-url)."""
    settings = {
        "SLACK_API_URL": emulator.api_url,
        "SLACK_BOT_TOKEN": emulator.bot_token,
        "SLACK_SIGNING_SECRET": emulator.signing_secret,
        "SLACK_QUESTIONS_CHANNEL": channel_id,
        # Anyone in the channel may answer (said on purpose, as the bot requires); no glob:
        # the shell does not expand `*` in an assignment.
        "SLACK_QUESTIONS_RESPONDERS": "*",
    }
    return " ".join(f"{name}={value}" for name, value in settings.items()) + " python -m bot"


def main(argv: list[str] | None = None) -> int:
    asyncio.run(serve(_arguments(argv)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
