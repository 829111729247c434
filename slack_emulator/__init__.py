"""A local Slack for tests and offline runs: Web API, Block Kit checks, people, Socket Mode.

It imports nothing from the rest of `bot` or from `provider`. See README.md beside this file.
"""

from slack_emulator.agent_sessions import AgentSession
from slack_emulator.block_checks import Issue, check_blocks, check_view
from slack_emulator.block_limits import LIMITS, Limit
from slack_emulator.emoji import EMOJI
from slack_emulator.emulator import SlackEmulator
from slack_emulator.faults import ApiError, Fault, RateLimited, ServerError, Slow, SlowReply
from slack_emulator.identity import DEFAULT_SIGNING_SECRET, AppIdentity
from slack_emulator.people import Person
from slack_emulator.posting_rate import PostingRate
from slack_emulator.records import ApiCall, BlockKitViolation, Delivery
from slack_emulator.seed import seed_workspace
from slack_emulator.slack_objects import (
    Channel,
    Edited,
    Ephemeral,
    Message,
    ThreadStatus,
    User,
    UserGroup,
    View,
)
from slack_emulator.socket_mode_server import SocketModeServer
from slack_emulator.timekeeping import Clock, ManualClock, WallClock
from slack_emulator.workspace import Workspace

__all__ = [
    "DEFAULT_SIGNING_SECRET",
    "EMOJI",
    "LIMITS",
    "AgentSession",
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
    "PostingRate",
    "RateLimited",
    "ServerError",
    "SlackEmulator",
    "Slow",
    "SlowReply",
    "SocketModeServer",
    "ThreadStatus",
    "User",
    "UserGroup",
    "View",
    "WallClock",
    "Workspace",
    "check_blocks",
    "check_view",
    "seed_workspace",
]
