"""A local Slack for tests and offline runs: Web API, Block Kit checks, people, Socket Mode.

It imports nothing from the rest of `bot` or from `provider`. See README.md beside this file.
"""

from bot.emulator.blockkit import Issue, check_blocks, check_view
from bot.emulator.clock import Clock, ManualClock
from bot.emulator.emulator import SlackEmulator
from bot.emulator.faults import ApiError, Fault, RateLimited, ServerError, Slow
from bot.emulator.identity import AppIdentity
from bot.emulator.limits import LIMITS, Limit
from bot.emulator.models import Channel, Edited, Ephemeral, Message, User, UserGroup, View
from bot.emulator.people import Person
from bot.emulator.records import ApiCall, BlockKitViolation, Delivery
from bot.emulator.seed import seed_workspace
from bot.emulator.socket_mode import SocketModeServer
from bot.emulator.workspace import Workspace

__all__ = [
    "LIMITS",
    "ApiCall",
    "ApiError",
    "AppIdentity",
    "BlockKitViolation",
    "Channel",
    "Clock",
    "Delivery",
    "Edited",
    "Ephemeral",
    "Fault",
    "Issue",
    "Limit",
    "ManualClock",
    "Message",
    "Person",
    "RateLimited",
    "ServerError",
    "SlackEmulator",
    "Slow",
    "SocketModeServer",
    "User",
    "UserGroup",
    "View",
    "Workspace",
    "check_blocks",
    "check_view",
    "seed_workspace",
]
