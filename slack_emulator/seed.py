"""A small workspace to start from: #agent-questions with the bot and three people."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from slack_emulator.workspace import Workspace

AGENT_QUESTIONS: Final = "C0AGENTQST"
REVIEWERS: Final = "S0REVIEWRS"


@dataclass(frozen=True)
class Seeded:
    channel_id: str
    usergroup_id: str
    user_ids: tuple[str, ...]


def seed_workspace(workspace: Workspace, *, bot_user_id: str) -> Seeded:
    people = (
        ("U0ALICE001", "alice", "Alice Archer"),
        ("U0BOB00002", "bob", "Bob Baker"),
        ("U0CAROL003", "carol", "Carol Chen"),
    )
    for user_id, name, real_name in people:
        workspace.add_user(user_id, name=name, real_name=real_name, display_name=name)
    user_ids = tuple(user_id for user_id, _, _ in people)
    workspace.add_channel(AGENT_QUESTIONS, name="agent-questions", members=(*user_ids, bot_user_id))
    workspace.add_usergroup(REVIEWERS, handle="reviewers", users=user_ids[:2], name="Reviewers")
    return Seeded(AGENT_QUESTIONS, REVIEWERS, user_ids)
