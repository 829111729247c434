"""The ids our Block Kit carries: action ids, block ids, button values, callback ids, metadata.

Each is named here once and both its writer (render/) and its reader (answers, listeners)
use the name. The interactive block of question `q` has `block_id == q`; helper blocks are
`<prefix><BlockKind>.<index>`. The ask and a number travel in values as `ask_id/number`, where
the action id says what the number is (an option, a part, a question, a page: one typed ref
each); labels are looked up in the stored request, so any label round-trips exactly.
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
    EDIT = "sq_edit"  # tool approval / plan review: open "Edit and allow" / "Edit and approve"
    SESSION = "sq_session"  # tool approval: allow, and grant the same call for the session
    REVOKE = "sq_revoke"  # a grant listed by `/agent-questions grants` or the Home tab: revoke it
    CLAIM = "sq_claim"  # an ask sent to a pool: the clicker holds it (bot/claims.py)
    RELEASE = "sq_release"  # its holder gives a claimed ask back to the pool
    REASSIGN = "sq_reassign"  # open "Reassign…": hand the ask to a named person
    FEEDBACK = "sq_feedback"  # a decided message: 👍 / 👎 "Was this the right call?"
    NOTE = "sq_note"  # a decided message: open the "Add a note" modal
    FEEDBACK_MENU = "sq_feedback_menu"  # the team view: 👍, 👎 or a note, from a menu
    FILTER_AGENT = "sq_filter_agent"  # the Home tab: only this agent's asks
    FILTER_PERSON = "sq_filter_person"  # the Home tab: only asks this person decided
    FILTER_OUTCOME = "sq_filter_outcome"  # the Home tab: only asks that ended this way
    FILTER_PERIOD = "sq_filter_period"  # the Home tab: only asks of the last day, week…
    ALWAYS = "sq_always"  # tool approval: open "Always allow", which proposes a rule


class Callback(StrEnum):
    """callback_id of our modals."""

    FORM = "sq_form"
    OTHER = "sq_other"
    DETAILS = "sq_details"
    CHANGES = "sq_changes"
    PLAN = "sq_plan"
    EDIT = "sq_edit"  # the edited input or plan, approved on submit
    REASSIGN = "sq_reassign"  # "Reassign…": the person chosen holds the ask on submit
    NOTE = "sq_note"  # a reviewer's note on a decided ask
    ALWAYS = "sq_always"  # "Always allow": the rule proposed, saved (and the call allowed)


class BlockKind(StrEnum):
    """Kinds of helper blocks; the index after the kind is the one named in the comment."""

    HEADING = "h"  # a question's heading section (question)
    OTHER = "o"  # a question's free-text "Other" input (question)
    SKIP = "s"  # a question's Skip checkbox (question)
    OPTION_NOTES = "n"  # the descriptions buttons and menus cannot show (question)
    REPLY_HINT = "r"  # a lone question: a thread reply answers it too (question)
    PART_HEADING = "p"  # the heading of a form part in the message (part)
    SUBMIT = "submit"  # the Submit button of a form part in the message (part)
    MODAL_CONTEXT = "m"  # the context line atop a form modal (part)
    ANSWERS = "a"  # a decided message: questions with their answers (section)
    VERDICT = "v"  # a decided message: the footer saying how it ended (part)
    PLAN_TITLE = "ph"  # plan review: the header (0)
    PLAN_QUESTION = "pq"  # plan review: who asks what (0)
    PLAN_CUT = "pc"  # plan review: the preview was cut, "View the whole plan" (0)
    PLAN_DIFF = "pd"  # plan review: changes since the declined revision (0)
    PLAN_STATUS = "ps"  # plan review: approvals so far and who may review (0)
    PLAN_VERDICT = "pv"  # plan review: how it was decided (0)
    TOOL_TITLE = "th"  # tool approval: the header (0)
    TOOL_ASKS = "tq"  # tool approval: who asks to run which tool (0)
    TOOL_WARNINGS = "tw"  # tool approval: guards weakened, characters that lie (0)
    TOOL_FIELDS = "tf"  # tool approval: the input's fields (section)
    TOOL_STATUS = "ts"  # tool approval: approvals so far, who may allow (0)
    TOOL_CUT = "tc"  # tool approval: how much is shown, where Allow is (note)
    TOOL_VERDICT = "tv"  # tool approval: how it was decided (0)
    EDITED = "ed"  # a decided review: what the reviewer edited, original → edited (section)
    FEEDBACK = "fb"  # a decided message: the feedback buttons (0)
    NOTE = "fn"  # a decided message: "Add a note" (0)


PICK_PATTERN: Final = re.compile(rf"^{Action.PICK}(\.\d+)?$")
SKIP_VALUE: Final = "skip"
# The numbers we write: ASCII digits, no leading zero ("٣" and "03" are not ours).
NUMBER: Final = re.compile(r"0|[1-9][0-9]*")


def parse_number(text: str) -> int | None:
    """The number `text` spells the way we write numbers, else None."""
    return int(text) if NUMBER.fullmatch(text) else None


@dataclass(frozen=True)
class Ref:
    """The value a button or option carries: an ask and a number, whose meaning the action id
    gives. Interactions read it through one of the typed refs below."""

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


@dataclass(frozen=True)
class AskRef:
    """A control that names only its ask (it carries 0 as its number)."""

    ask_id: str

    def encode(self) -> str:
        """The value string Slack carries back to us."""
        return Ref(self.ask_id, 0).encode()

    @classmethod
    def of(cls, ref: Ref) -> AskRef:
        """The ask a value names."""
        return cls(ref.ask_id)


@dataclass(frozen=True)
class OptionRef:
    """An option (by index) of an ask's lone question: a pick."""

    ask_id: str
    option: int

    def encode(self) -> str:
        """The value string Slack carries back to us."""
        return Ref(self.ask_id, self.option).encode()

    @classmethod
    def of(cls, ref: Ref) -> OptionRef:
        """The option a value names."""
        return cls(ref.ask_id, ref.number)


@dataclass(frozen=True)
class PartRef:
    """A part of a split ask: its form, its Submit button."""

    ask_id: str
    part: int

    def encode(self) -> str:
        """The value string Slack carries back to us."""
        return Ref(self.ask_id, self.part).encode()

    @classmethod
    def of(cls, ref: Ref) -> PartRef:
        """The part a value names."""
        return cls(ref.ask_id, ref.number)


@dataclass(frozen=True)
class QuestionRef:
    """A question (by index) of an ask: "View all" shows it in full."""

    ask_id: str
    question: int

    def encode(self) -> str:
        """The value string Slack carries back to us."""
        return Ref(self.ask_id, self.question).encode()

    @classmethod
    def of(cls, ref: Ref) -> QuestionRef:
        """The question a value names."""
        return cls(ref.ask_id, ref.number)


@dataclass(frozen=True)
class PageRef:
    """A page of a plan shown in a modal."""

    ask_id: str
    page: int

    def encode(self) -> str:
        """The value string Slack carries back to us."""
        return Ref(self.ask_id, self.page).encode()

    @classmethod
    def of(cls, ref: Ref) -> PageRef:
        """The page a value names."""
        return cls(ref.ask_id, ref.number)


@dataclass(frozen=True)
class FeedbackRef:
    """What a feedback control carries: the ask, and `choice` — `FEEDBACK_RIGHT` (👍),
    `FEEDBACK_WRONG` (👎) or `FEEDBACK_NOTE` (write a note)."""

    ask_id: str
    choice: int

    def encode(self) -> str:
        """The value string Slack carries back to us."""
        return Ref(self.ask_id, self.choice).encode()

    @classmethod
    def of(cls, ref: Ref) -> FeedbackRef:
        """The feedback a value names."""
        return cls(ref.ask_id, ref.number)


# The Home tab's filters: they change what one person's tab shows, never an ask.
HOME_FILTERS: Final = frozenset(
    {Action.FILTER_AGENT, Action.FILTER_PERSON, Action.FILTER_OUTCOME, Action.FILTER_PERIOD}
)

FEEDBACK_NOTE: Final = 0
FEEDBACK_RIGHT: Final = 1
FEEDBACK_WRONG: Final = 2


class ViewMeta(BaseModel):
    """private_metadata of our modals: which ask, and which part or question."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    ask: str
    part: int | None = None
    question: int | None = None
    # Where the ask's message lives, so closing a form can be reported there.
    channel: str | None = None
    # "Always allow": a digest of the rule the modal shows in words, so the rule saved is
    # the one the reviewer read (`bot.render.always_allow`).
    shown: str | None = None


# A Revoke (`Action.REVOKE`) whose value starts so names a rule saved with "Always allow"
# (`rule:<name>`); any other value is a grant's id, and grant ids never start so.
RULE_REVOKE_PREFIX: Final = "rule:"
