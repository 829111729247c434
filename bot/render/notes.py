"""Ephemeral notes to one person: this surface's wording of each way an ask can end."""

from __future__ import annotations

from bot.outcomes import Verdict


def settled_note(verdict: Verdict | None, decided_by: str | None) -> str:
    """Why acting on an ask is too late: how it ended (None: it is being decided right now)."""
    by = f"<@{decided_by}>" if decided_by else None
    match verdict:
        case Verdict.ANSWERED:
            return f"This question was already answered by {by or 'someone else'}."
        case Verdict.CLOSED:
            return f"This question was dismissed when {by or 'someone'} closed its form."
        case Verdict.CANCELLED:
            return f"{by or 'Someone'} chose to discuss this question instead."
        case Verdict.EXPIRED:
            return "This question expired before anyone answered."
        case Verdict.FAILED:
            return "This question could not be collected."
        case Verdict.STOPPED:
            return f"{by or 'Someone'} stopped the agent's session in Slack; no answer is needed."
        case Verdict.WITHDRAWN | None:
            return "The agent withdrew this question; no answer is needed."
