"""The ids our Block Kit carries: action ids, button values, view callback ids and metadata.

Block ids are question ids (the interactive block of question `q` has `block_id == q`); the ask
and the option travel in values as `ask_id/number`, and labels are looked up in the stored
request, so any label round-trips exactly whatever Slack does to display text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from pydantic import BaseModel, ConfigDict


class Action(StrEnum):
    """Action ids of our interactive elements (option buttons add `.<index>`)."""

    PICK = "sq_pick"  # lone single-select: a button or menu pick answers at once
    OTHER = "sq_other"  # lone single-select: open the free-text "Other" modal
    SUBMIT = "sq_submit"  # submit one form part from the message
    FORM = "sq_form"  # answer one part in a modal
    DETAILS = "sq_details"  # show everything the preview cut
    INPUT = "sq_input"  # inputs read from state on submit; they send nothing themselves
    APPROVE = "sq_approve"  # plan review: one approval (confirmed first)
    CHANGES = "sq_changes"  # plan review: open the "Request changes" modal
    DISCUSS = "sq_discuss"  # plan review: end the ask as ASK_CANCELLED, talk in the thread
    PLAN = "sq_plan"  # plan review: the whole plan in a modal, page by page
    DIFF = "sq_diff"  # plan review: what changed since the declined revision


class Callback(StrEnum):
    """callback_id of our modals."""

    FORM = "sq_form"
    OTHER = "sq_other"
    DETAILS = "sq_details"
    CHANGES = "sq_changes"
    PLAN = "sq_plan"


PICK_PATTERN: Final = re.compile(rf"^{Action.PICK}(\.\d+)?$")
SKIP_VALUE: Final = "skip"
# The numbers we write: ASCII digits, no leading zero ("٣" and "03" are not ours).
NUMBER: Final = re.compile(r"0|[1-9][0-9]*")


def parse_number(text: str) -> int | None:
    """The number `text` spells the way we write numbers, else None."""
    return int(text) if NUMBER.fullmatch(text) else None


@dataclass(frozen=True)
class Ref:
    """An ask and a number (option index or part number), as carried in a value."""

    ask_id: str
    number: int

    def encode(self) -> str:
        """The value string Slack carries back to us."""
        return f"{self.ask_id}/{self.number}"

    @classmethod
    def decode(cls, value: str) -> Ref:
        """Parse a value we wrote; `ValueError` for anything else."""
        ask_id, sep, text = value.rpartition("/")
        number = parse_number(text)
        if not sep or not ask_id or number is None:
            raise ValueError(f"not a slack-questions value: {value!r}")
        return cls(ask_id, number)


class ViewMeta(BaseModel):
    """private_metadata of our modals: which ask, and which part or question."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    ask: str
    part: int | None = None
    question: int | None = None
    # Where the ask's message lives, so closing a form can be reported there.
    channel: str | None = None
