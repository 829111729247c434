"""Stop in Slack: a person pressed the Stop button of an agent's session (`agent_session_stopped`),
so every ask still pending in that thread ends as stopped — `ASK_ABORTED` to the agent with the
reason "stopped in Slack", told apart from "nobody answered" (expired, withdrawn) by its own
verdict and event, and never an approval. The messages say who stopped it.

Any replica may receive the event: the pending asks are read from the store and taken in hand
here (as a relay withdrawal does), so waiters on any replica wake. Who may stop an ask is who
may answer it (fail closed): anyone else is told, ephemerally, who could, and that ask waits on.
"""

from __future__ import annotations

import logging
from typing import Final

from bot.asks.lifecycle import Asks
from bot.asks.observers import thread_of
from bot.interactions.admission import Admission
from bot.slack.messages import AskMessages
from bot.slack.session_states import SessionStates
from bot.store import AskRecord, AskStore, EventKind, ThreadRef, Verdict

log = logging.getLogger(__name__)

STOPPED_DETAIL: Final = "stopped in Slack"
"""What the agent's `ASK_ABORTED` message ends with (after the seam's stable words)."""


class SessionStops:
    """Ends a stopped session's pending asks and moves the session off `processing`."""

    def __init__(
        self,
        asks: Asks,
        admission: Admission,
        messages: AskMessages,
        store: AskStore,
        states: SessionStates | None,
    ) -> None:
        self._asks = asks
        self._admission = admission
        self._messages = messages
        self._store = store
        self._states = states

    async def stop(self, user: str, channel: str, thread_ts: str) -> int:
        """`user` pressed Stop on the session of `channel`/`thread_ts`: end each pending ask
        there they may answer; how many ended."""
        stopped = 0
        for record in await self._in_thread(channel, thread_ts):
            live = await self._asks.held(record.id)
            if live is None:
                continue  # it ended meanwhile
            allowed = self._admission.who_may_answer(live)
            if not await allowed.allows(user):
                await self._asks.note(record.id, EventKind.REFUSED, user, "not allowed to stop it")
                await self._messages.ephemeral(
                    live.record,
                    user,
                    "Stop did not end this question: "
                    + allowed.refusal().replace(
                        "may answer this question", "may answer or stop it"
                    ),
                )
                continue
            if await self._asks.settle(
                record.id,
                Verdict.STOPPED,
                actor=user,
                reason=f"{STOPPED_DETAIL} by <@{user}>",
                detail=STOPPED_DETAIL,
            ):
                stopped += 1
        log.info(
            "agent session %s/%s stopped in Slack by %s: %d ask(s) ended",
            channel,
            thread_ts,
            user,
            stopped,
        )
        if self._states is not None:
            self._states.stopped(channel, thread_ts)
        return stopped

    async def _in_thread(self, channel: str, thread_ts: str) -> list[AskRecord]:
        """The pending asks of the thread: posted there, or not posted yet (waiting their
        turn) by the agent session whose thread it is."""
        sessions: dict[str, ThreadRef | None] = {}
        found = []
        for record in await self._store.pending():
            posted_in = thread_of(record)
            if record.channel is not None and posted_in is not None:
                if (record.channel, posted_in) == (channel, thread_ts):
                    found.append(record)
                continue
            if record.agent_id is None:
                continue
            if record.agent_id not in sessions:
                sessions[record.agent_id] = await self._store.thread(record.agent_id)
            if sessions[record.agent_id] == ThreadRef(channel=channel, thread_ts=thread_ts):
                found.append(record)
        return found
