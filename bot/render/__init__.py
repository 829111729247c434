"""Pure rendering: a request (and its outcome) to Block Kit. No I/O here."""

from bot.render.decided import Settlement, settled_message
from bot.render.layout import AskLayout, Element, Part, QuestionLayout, Unshowable, lay_out
from bot.render.message import MessageContent, ask_message, thread_root
from bot.render.modal import details_modal, form_modal, other_modal

__all__ = [
    "AskLayout",
    "Element",
    "MessageContent",
    "Part",
    "QuestionLayout",
    "Settlement",
    "Unshowable",
    "ask_message",
    "details_modal",
    "form_modal",
    "lay_out",
    "other_modal",
    "settled_message",
    "thread_root",
]
