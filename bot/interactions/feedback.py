"""Review that teaches: 👍 / 👎 ("Was this the right call?") and a note on a decided ask,
from its message or the team view.

Who may give feedback is who may see the ask in the team view (`Audience`: the members of its
channel, and those who may answer or review it), so nobody reviews, or learns of, an ask
they could not see; when in doubt (members unreadable) only those who may decide it may.
Anyone else is told so, ephemerally, and nothing is stored. One row per ask and person: a
second click changes that person's verdict, a note replaces their earlier note.
"""

from __future__ import annotations

import logging
from typing import Final

from bot.block_ids import ViewMeta
from bot.clock import Clock
from bot.payloads import StateValues
from bot.render.feedback import NOTE_BLOCK, NOTE_MAX, note_modal
from bot.slack.audience import Audience
from bot.slack.messages import AskMessages
from bot.store import AskRecord, AskStore, Feedback, FeedbackVerdict, Verdict
from bot.team import TeamView

log = logging.getLogger(__name__)

BLANK_NOTE: Final = "Write a note, or press Cancel: a blank note is not saved."
NOT_DECIDED: Final = (
    "Feedback is for decided asks; this one is not decided yet. Nothing was recorded."
)
LONG_NOTE: Final = f"A note holds at most {NOTE_MAX} characters."


def not_yours(record: AskRecord) -> str:
    """Why a person who may not see `record` cannot review it, and who could."""
    where = f"members of <#{record.channel}>" if record.channel else "nobody else yet"
    return (
        "Only people who may see this ask can say whether it was the right call: "
        f"{where}, and those who may answer or review it. Nothing was recorded."
    )


def note_of(values: StateValues) -> str:
    """The note typed in the modal, trimmed ("" when blank)."""
    typed = next((s.value for s in values.get(NOTE_BLOCK, {}).values() if s.value), "")
    return typed.strip()


class FeedbackDesk:
    """The handlers of feedback clicks, the note modal and its submission."""

    def __init__(
        self,
        store: AskStore,
        audience: Audience,
        messages: AskMessages,
        team: TeamView,
        clock: Clock,
    ) -> None:
        self._store = store
        self._audience = audience
        self._messages = messages
        self._team = team
        self._clock = clock

    async def give(self, user: str, ask_id: str, verdict: FeedbackVerdict, *, home: bool) -> None:
        """Store `user`'s verdict on the ask, or tell them why not; from the Home tab, draw
        it again with the new tally."""
        record = await self._admitted(user, ask_id)
        if record is not None:
            await self._store.give_feedback(
                Feedback(ask_id=ask_id, person=user, verdict=verdict, at=self._clock.now())
            )
        if home:
            await self._team.publish_home(user)

    async def open_note(self, user: str, ask_id: str, trigger_id: str) -> None:
        """Open the note modal, with `user`'s earlier note, or tell them why not."""
        record = await self._admitted(user, ask_id)
        if record is None:
            return
        mine = [f for f in await self._store.feedback([ask_id]) if f.person == user]
        earlier = mine[0].note if mine else None
        view = note_modal(ask_id, record.questions[0].question, earlier)
        await self._messages.open_modal(record, user, trigger_id, view, push=False)

    def check_note(self, values: StateValues) -> dict[str, str]:
        """What the modal must show before it may close (empty: accept it)."""
        note = note_of(values)
        if not note:
            return {NOTE_BLOCK: BLANK_NOTE}
        if len(note) > NOTE_MAX:
            return {NOTE_BLOCK: LONG_NOTE}
        return {}

    async def submit_note(self, user: str, meta: ViewMeta, values: StateValues) -> None:
        """Store `user`'s note (their verdict, if any, is kept), or tell them why not."""
        note = note_of(values)
        if not note or len(note) > NOTE_MAX:
            return  # refused in the modal itself; a replayed body is no different
        record = await self._admitted(user, meta.ask)
        if record is not None:
            await self._store.give_feedback(
                Feedback(ask_id=meta.ask, person=user, note=note, at=self._clock.now())
            )
            await self._team.publish_home(user)

    async def _admitted(self, user: str, ask_id: str) -> AskRecord | None:
        """The ask, if `user` may review it now; else None, and they were told why."""
        record = await self._store.get(ask_id)
        if record is None:
            log.info("feedback by %s on ask %s, which is no longer kept", user, ask_id)
            return None
        if not record.settled or record.ended_as is not Verdict.ANSWERED:
            await self._messages.ephemeral(record, user, NOT_DECIDED)
            return None
        seen = await self._audience.visible(user, [record])
        if not any(r.id == ask_id for r in seen.records):
            await self._messages.ephemeral(record, user, not_yours(record))
            return None
        return record
