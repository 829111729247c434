"""trigger_ids: single-use grants to open a view for the person who just interacted.

"Pass a valid trigger_id within 3 seconds of receiving it"; later, views.open answers
`expired_trigger_id`, a second use `exchanged_trigger_id`, an unknown one `invalid_trigger_id`
(the error names views.open and views.push document).
https://docs.slack.dev/tools/bolt-python/concepts/opening-modals
https://docs.slack.dev/reference/methods/views.open
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from slack_emulator.ids import Ids
from slack_emulator.slack_error import SlackError
from slack_emulator.timekeeping import Clock

TRIGGER_LIFETIME_SECONDS: Final = 3.0


@dataclass
class _Trigger:
    user_id: str
    issued_at: float
    exchanged: bool = False


class Triggers:
    def __init__(self, ids: Ids, clock: Clock) -> None:
        self._ids = ids
        self._clock = clock
        self._issued: dict[str, _Trigger] = {}

    def issue(self, user_id: str) -> str:
        trigger_id = self._ids.trigger_id()
        self._issued[trigger_id] = _Trigger(user_id, self._clock.now())
        return trigger_id

    def exchange(self, trigger_id: str) -> str:
        """Use a trigger once; returns the id of the person it was issued for."""
        trigger = self._issued.get(trigger_id)
        if trigger is None:
            raise SlackError("invalid_trigger_id")
        if trigger.exchanged:
            raise SlackError("exchanged_trigger_id")
        if self._clock.now() - trigger.issued_at > TRIGGER_LIFETIME_SECONDS:
            raise SlackError("expired_trigger_id")
        trigger.exchanged = True
        return trigger.user_id
