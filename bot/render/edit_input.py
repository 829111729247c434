"""Editing before approving: the "Edit and allow" modal of a tool approval, the "Edit and
approve" modal of a plan review, reading what the reviewer submitted back (the modal's
inverse), and the edit shown as original → edited once the review is decided.

What an edit may change is the values, never the shape: every field keeps its name and its
JSON type (`provider.contract` checks the answer again). A string field is a text input
holding exactly its value; any other field is a text input holding its JSON, which must
parse to the same type. Slack's text inputs hold at most 3,000 characters, so a longer value
cannot be edited in Slack: the modal says so and leaves it as the agent sent it.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, field

from pydantic import JsonValue
from slack_sdk.models.blocks import (
    Block,
    ContextBlock,
    InputBlock,
    MarkdownTextObject,
    PlainTextInputElement,
    PlainTextObject,
    SectionBlock,
)
from slack_sdk.models.views import View

from bot.block_ids import Action, Callback, ViewMeta
from bot.payloads import StateValues
from bot.render.question import SECTION_TEXT_MAX
from bot.render.revealed import reveal
from bot.render.text import cut_escaped, escape, escaped_within, truncate
from provider.contract import json_kind

# Slack's limit on a plain_text_input's value (`max_length` and `initial_value`).
EDIT_MAX = 3000
# Input blocks a modal may hold beside its note (a modal holds 100 blocks).
EDIT_FIELDS_MAX = 95
EDIT_BLOCK = "sq~edit.{}"  # one input block per editable field, by its number on the card
PLAN_BLOCK = "sq~edit.plan"
# Fields edited in a box of several lines whatever their length: commands and file contents.
MULTILINE_FIELDS = frozenset({"command", "content", "new_string", "old_string", "prompt"})
MULTILINE_FROM = 80  # characters: a longer value gets a multi-line box too
ZWSP = "\u200b"
FENCE = "```"
DIFF_LINES_MAX = 60
# What each JSON type must stay, in the modal's words.
KIND_WORDS = {
    "text": "text",
    "number": "a number",
    "true/false": "true or false",
    "null": "null",
    "object": "a JSON object",
    "list": "a JSON list",
}


@dataclass(frozen=True)
class Editable:
    """One field of a tool's input as the modal offers it for editing."""

    number: int  # its number on the card, from 1
    name: str
    value: JsonValue

    @property
    def kind(self) -> str:
        """Its JSON type, in the card's words."""
        return json_kind(self.value)

    @property
    def text(self) -> str:
        """What its input holds: a string as itself, anything else as JSON."""
        return as_text(self.value)

    @property
    def block_id(self) -> str:
        """Its input block's id (a modal error names it)."""
        return EDIT_BLOCK.format(self.number)

    @property
    def multiline(self) -> bool:
        """Whether its input is a box of several lines."""
        text = self.text
        return self.name in MULTILINE_FIELDS or "\n" in text or len(text) > MULTILINE_FROM


@dataclass(frozen=True)
class Editables:
    """A tool input split into what the modal can edit and what stays as sent."""

    editable: list[Editable] = field(default_factory=list)
    fixed: list[Editable] = field(default_factory=list)  # too long for a text input


@dataclass(frozen=True)
class Edited:
    """What a submitted edit modal holds: the edited input, or the errors to show inline
    (block id → message) while it stays open."""

    value: dict[str, JsonValue] | None = None
    errors: dict[str, str] = field(default_factory=dict)


def as_text(value: JsonValue) -> str:
    """A string as itself, anything else as JSON (sorted keys, characters as they are)."""
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, ensure_ascii=False, indent=2)


def editables(tool_input: dict[str, JsonValue]) -> Editables:
    """Which of the input's fields fit a text input (and the modal), in the card's order."""
    out = Editables()
    for number, (name, value) in enumerate(tool_input.items(), start=1):
        one = Editable(number, name, value)
        fits = len(one.text) <= EDIT_MAX and len(out.editable) < EDIT_FIELDS_MAX
        (out.editable if fits else out.fixed).append(one)
    return out


def tool_editable(tool_input: dict[str, JsonValue] | None) -> bool:
    """Whether "Edit and allow" has a field to offer."""
    return bool(tool_input) and bool(editables(tool_input or {}).editable)


def plan_editable(plan: str | None) -> bool:
    """Whether the plan fits Slack's text input, so "Edit and approve" may be offered."""
    return bool(plan) and len(plan or "") <= EDIT_MAX


def _label(one: Editable) -> PlainTextObject:
    return PlainTextObject(
        text=truncate(f"{one.number}. {reveal(one.name).text}", 150), emoji=False
    )


def _hint(one: Editable) -> PlainTextObject:
    if one.kind == "text":
        return PlainTextObject(text="Text, sent exactly as written here.", emoji=False)
    return PlainTextObject(text=f"Must stay {KIND_WORDS[one.kind]}, written as JSON.", emoji=False)


def tool_edit_modal(
    ask_id: str, tool: str | None, tool_input: dict[str, JsonValue], allow: str
) -> View:
    """The "Edit and allow" modal: one text input per field that fits one, prefilled with
    its exact value; the fields too long for Slack named, unchanged."""
    split = editables(tool_input)
    name = escaped_within(reveal(tool).text, 200) if tool else "the tool"
    lead = (
        f"Edit the input `{name}` will run with, then *{escape(truncate(allow, 75))}*: the "
        "agent runs the edited input instead of what it asked. Each field keeps its name and "
        "its type; the decided message shows what you changed."
    )
    blocks: list[Block] = [
        SectionBlock(block_id="sq~edit.lead", text=MarkdownTextObject(verbatim=True, text=lead))
    ]
    if split.fixed:
        listed = ", ".join(
            f"{one.number}. `{escaped_within(reveal(one.name).text, 100)}` "
            f"({len(one.text):,} characters)"
            for one in split.fixed
        )
        note = (
            f"Not editable in Slack (over {EDIT_MAX:,} characters, or too many fields for one "
            f"form), so it runs as the agent sent it: {listed}"
        )
        blocks.append(
            ContextBlock(
                block_id="sq~edit.fixed",
                elements=[MarkdownTextObject(verbatim=True, text=note[:SECTION_TEXT_MAX])],
            )
        )
    for one in split.editable:
        blocks.append(
            InputBlock(
                block_id=one.block_id,
                label=_label(one),
                hint=_hint(one),
                optional=True,  # an empty string is a value; a JSON field says why if left empty
                element=PlainTextInputElement(
                    action_id=Action.INPUT,
                    multiline=one.multiline,
                    max_length=EDIT_MAX,
                    initial_value=one.text or None,
                ),
            )
        )
    return View(
        type="modal",
        callback_id=Callback.EDIT,
        title=PlainTextObject(text="Edit and allow"),
        submit=PlainTextObject(text=truncate(f"{allow} edited", 24), emoji=False),
        close=PlainTextObject(text="Back"),
        private_metadata=ViewMeta(ask=ask_id, question=0).model_dump_json(exclude_none=True),
        blocks=blocks,
    )


def plan_edit_modal(ask_id: str, plan: str, approve: str) -> View:
    """The "Edit and approve" modal: the plan in one box, to amend before approving."""
    lead = (
        f"Amend the plan, then *{escape(truncate(approve, 75))}*: the agent carries out the "
        "plan as you leave it here, told that a person edited it."
    )
    return View(
        type="modal",
        callback_id=Callback.EDIT,
        title=PlainTextObject(text="Edit and approve"),
        submit=PlainTextObject(text=truncate(f"{approve} edited", 24), emoji=False),
        close=PlainTextObject(text="Back"),
        private_metadata=ViewMeta(ask=ask_id).model_dump_json(exclude_none=True),
        blocks=[
            SectionBlock(
                block_id="sq~edit.lead", text=MarkdownTextObject(verbatim=True, text=lead)
            ),
            InputBlock(
                block_id=PLAN_BLOCK,
                label=PlainTextObject(text="The plan"),
                element=PlainTextInputElement(
                    action_id=Action.INPUT,
                    multiline=True,
                    max_length=EDIT_MAX,
                    initial_value=plan,
                ),
            ),
        ],
    )


def _typed(values: StateValues, block_id: str) -> str | None:
    """The text in an input block; None when the submission does not have the block."""
    states = values.get(block_id)
    if states is None:
        return None
    return next((s.value for s in states.values() if s.value is not None), "")


def read_tool_edit(tool_input: dict[str, JsonValue], values: StateValues) -> Edited:
    """The edited input from a submitted "Edit and allow" modal, or why it cannot be allowed:
    a field whose type changed (or whose JSON does not parse), named in its own block."""
    split = editables(tool_input)
    edited = dict(tool_input)
    errors: dict[str, str] = {}
    for one in split.editable:
        typed = _typed(values, one.block_id)
        if typed is None:
            errors[one.block_id] = "This field is missing from the form; open it again."
            continue
        if one.kind == "text":
            edited[one.name] = typed
            continue
        expected = KIND_WORDS[one.kind]
        try:
            parsed: JsonValue = json.loads(typed)
        except ValueError:
            errors[one.block_id] = (
                f"“{truncate(one.name, 100)}” must stay {expected}, written as JSON: "
                f"this is not valid JSON."
            )
            continue
        if json_kind(parsed) != one.kind:
            errors[one.block_id] = (
                f"“{truncate(one.name, 100)}” must stay {expected}, as the agent sent it: "
                f"this is {KIND_WORDS[json_kind(parsed)]}."
            )
            continue
        edited[one.name] = parsed
    if not errors and edited == tool_input and split.editable:
        errors[split.editable[0].block_id] = (
            "Nothing was edited: change a field, or go back and allow it as asked."
        )
    return Edited(None if errors else edited, errors)


def read_plan_edit(plan: str, values: StateValues) -> Edited:
    """The amended plan (`{"plan": …}`) from a submitted "Edit and approve" modal, or why not."""
    typed = _typed(values, PLAN_BLOCK)
    if typed is None or not typed.strip():
        return Edited(errors={PLAN_BLOCK: "The plan cannot be empty."})
    if typed == plan:
        return Edited(
            errors={PLAN_BLOCK: "The plan is unchanged: amend it, or go back and approve it."}
        )
    return Edited({"plan": typed})


# --- the edit, once decided ------------------------------------------------------------------


def _unbreakable(text: str) -> str:
    # A zero-width space between two backticks: agent text cannot close our box.
    return text.replace("``", f"`{ZWSP}`").replace("``", f"`{ZWSP}`")


def _box(text: str, room: int) -> str:
    """Agent text revealed, escaped and boxed, cut to fit `room` characters."""
    inner = cut_escaped(escape(_unbreakable(reveal(text).text)), max(1, room - len(FENCE) * 2 - 2))
    return f"{FENCE}\n{inner}\n{FENCE}"


def unified(before: str, after: str) -> str:
    """The lines that changed, as a unified diff without its file lines (at most 60 lines)."""
    lines = list(difflib.unified_diff(before.splitlines(), after.splitlines(), n=1, lineterm=""))
    body = lines[2:]
    if len(body) > DIFF_LINES_MAX:
        body = [*body[:DIFF_LINES_MAX], f"… {len(body) - DIFF_LINES_MAX} more lines"]
    return "\n".join(body)


def edit_sections(original: dict[str, JsonValue], edited: dict[str, JsonValue]) -> list[str]:
    """Each changed field as original → edited (mrkdwn, one section each): a value of several
    lines as a unified diff in a box, a one-line value as its two boxes."""
    sections: list[str] = []
    for number, (name, before) in enumerate(original.items(), start=1):
        after = edited.get(name, before)
        if after == before:
            continue
        label = f"*{number}.* `{escaped_within(_unbreakable(reveal(name).text), 200)}`"
        old, new = as_text(before), as_text(after)
        if "\n" in old or "\n" in new:
            head = f"✏️ {label} edited (unified diff, - original + edited):\n"
            sections.append(head + _box(unified(old, new), SECTION_TEXT_MAX - len(head)))
        else:
            room = (SECTION_TEXT_MAX - len(label) - 40) // 2
            sections.append(
                f"✏️ {label} edited: original\n{_box(old, room)}\nedited\n{_box(new, room)}"
            )
    return sections


def edit_diff(original: dict[str, JsonValue], edited: dict[str, JsonValue]) -> str:
    """Each changed field as plain text for the decision log: `name:` then a unified diff
    of its value (- original + edited), unescaped and uncut (the log keeps it whole)."""
    changed = []
    for name, before in original.items():
        after = edited.get(name, before)
        if after != before:
            lines = difflib.unified_diff(
                as_text(before).splitlines(), as_text(after).splitlines(), n=1, lineterm=""
            )
            changed.append(f"{name}:\n" + "\n".join(list(lines)[2:]))
    return "\n".join(changed)


def plan_edit_section(plan: str, edited: str) -> str:
    """The reviewer's amendment of a plan, as a revision: a unified diff in a box."""
    head = "✏️ *Amended by the reviewer before approving* (unified diff, - original + edited):\n"
    return head + _box(unified(plan, edited), SECTION_TEXT_MAX - len(head))
