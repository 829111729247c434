"""A tool approval in Slack: the card showing every field of the tool's input, its "View all"
modal, and the card once settled.

What a reviewer allows is the tool's whole input (`ToolApprovalIntent.input`), so the card
shows all of it and nothing else the agent wrote: not the hook's question, header or detail,
which an agent could word to look like the bot's. Every field is named, numbered and boxed;
each value is revealed (`revealed.py`: characters that lie are escaped and flagged), fence
backticks are broken apart so a value cannot close its box, and mrkdwn's `& < >` are escaped.
Allow is offered only where the whole input is on screen: in the message when it fits, else
only in the modal that holds all of it, else nowhere in Slack (the card says so).

How a value is shown (an inverse exists; the property tests read the card back with it):
- a field is `*<n>.* <name> · <kind>[ · <marks>]` then a box: "```\\n<value>\\n```";
- the name is `inline code`, or, when it holds a backtick or a line break, boxed right below
  the heading (marked "name boxed below");
- <kind> is `text` for a string (the box holds the string), else `number`, `true/false`,
  `null`, `object` or `list` (the box holds canonical JSON: sorted keys, ensure_ascii off);
- "shown escaped" marks a name or value that `reveal` escaped (the warning line says what);
- inside boxes a zero-width space separates each pair of backticks: a literal one in the
  input is itself escaped by `reveal`, so every zero-width space shown is ours;
- a value too long for one section goes on in the next, headed "↳ <n> continued".
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

from pydantic import JsonValue
from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    ConfirmObject,
    ContextBlock,
    HeaderBlock,
    MarkdownTextObject,
    PlainTextObject,
    SectionBlock,
)
from slack_sdk.models.views import View

from bot.block_ids import Action, AskRef, BlockKind, Callback, OptionRef, QuestionRef, ViewMeta
from bot.outcomes import Verdict
from bot.render.agent_text import literal_within, one_line
from bot.render.always_allow import proposable
from bot.render.decided import Settlement, verdict_line, when
from bot.render.edit_input import edit_sections, tool_editable
from bot.render.grants import duration_words
from bot.render.layout import MESSAGE_BLOCKS_MAX, MODAL_BLOCKS_MAX, AskLayout
from bot.render.message import MessageContent, agent_label
from bot.render.plan_review import ReviewStatus
from bot.render.question import BUTTON_TEXT_MAX, OTHER_BUTTON, SECTION_TEXT_MAX
from bot.render.revealed import Revealed, reveal
from bot.render.text import cut_escaped, escape, escaped_within, truncate
from provider import AskUserQuestionItem, ToolApprovalIntent

# The reason an "Always allow" stores with its answer; the decided card words it (`ending`).
ALWAYS_REASON = "— rule `{name}` covers: {covers}"
ALWAYS_LEAD = "— rule `"
# A box's fences and the line break after its lead.
BOX_OVERHEAD = len("\n```\n\n```") + 2
# How much of the input the message itself shows: more is read in the modal.
MESSAGE_INPUT_BUDGET = 4000
# Blocks besides the fields: header, who asks, warnings, status, policy note, cut note, row.
MESSAGE_OVERHEAD_BLOCKS = 8
MODAL_OVERHEAD_BLOCKS = 6
MODAL_TITLE = "Tool approval"
TITLE = "🔐 Tool approval"
ZWSP = "\u200b"
FENCE = "```"
DESCRIPTION = "description"
VIEW_ALL = "View all to allow"
ALLOW_THERE = " Open *View all to allow* to read all of it: Allow is there."
REVIEW_MAX = 200  # characters of a field name or tool name shown inline

# Fields that weaken a guard when set, by their name folded (lower case, no `_` or `-`):
# each set one is called out on a warning line of its own.
WEAKENING = {
    "dangerouslydisablesandbox": "it runs outside the sandbox",
    "runinbackground": "it keeps running in the background once allowed",
    "user": "it runs as another user",
    "asuser": "it runs as another user",
    "runas": "it runs as another user",
    "become": "it runs as another user",
    "becomeuser": "it runs as another user",
    "impersonate": "it runs as another user",
    "sudo": "it runs with elevated privileges",
    "privileged": "it runs with elevated privileges",
    "elevated": "it runs with elevated privileges",
}


# --- the input, field by field --------------------------------------------------------------


@dataclass(frozen=True)
class Field:
    """One field of the input as shown: its number, name and value revealed, and its kind."""

    number: int
    name: Revealed
    kind: str
    value: Revealed

    @property
    def boxed_name(self) -> bool:
        """Whether the name is boxed rather than in inline code: it holds a backtick or a line
        break, is empty, or is too long to read inline."""
        name = self.name.text
        return "`" in name or "\n" in name or not name or len(name) > REVIEW_MAX


@dataclass(frozen=True)
class Piece:
    """A field (or part of a long one) as one piece of mrkdwn, and how many of the input's
    shown characters it holds."""

    text: str
    chars: int


def kind_of(value: JsonValue) -> str:
    """The word the card uses for a value's JSON type."""
    if isinstance(value, str):
        return "text"
    if isinstance(value, bool):
        return "true/false"
    if value is None:
        return "null"
    if isinstance(value, int | float):
        return "number"
    return "object" if isinstance(value, dict) else "list"


def canonical(value: JsonValue) -> str:
    """A string as itself, anything else as canonical JSON (sorted keys, characters as is)."""
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, ensure_ascii=False, indent=2)


def fields_of(tool_input: dict[str, JsonValue]) -> list[Field]:
    """Every field of the input, in the order the tool sent them."""
    return [
        Field(n, reveal(name), kind_of(value), reveal(canonical(value)))
        for n, (name, value) in enumerate(tool_input.items(), start=1)
    ]


def unbreakable(text: str) -> str:
    """`text` with a zero-width space between every two backticks: it cannot close a box."""
    return text.replace("``", f"`{ZWSP}`").replace("``", f"`{ZWSP}`")


def boxed(text: str) -> str:
    """Revealed text in a code box, on lines of its own (no quote markers, no fences)."""
    return f"{FENCE}\n{escape(unbreakable(text))}\n{FENCE}"


def inline(revealed: Revealed) -> str:
    """A short revealed name in inline code (callers box the names `Field.boxed_name` says)."""
    return f"`{escape(revealed.text)}`"


def _heading(field: Field) -> str:
    name = "(name boxed below)" if field.boxed_name else inline(field.name)
    marks = []
    if field.name.escaped:
        marks.append("name shown escaped")
    if field.value.escaped:
        marks.append("shown escaped")
    if field.name.text == DESCRIPTION and field.kind == "text":
        marks.append("_the agent's description (not checked)_")
    tail = "".join(f" · {m}" for m in marks)
    return f"*{field.number}.* {name} · {field.kind}{tail}"


def pieces_of(fields: Iterable[Field]) -> list[Piece]:
    """Each field as pieces that fit a section, a long name or value split across several:
    the heading leads the first box; "↳ <n> name continued", "↳ <n> value" and "↳ <n>
    continued" lead the others."""
    pieces: list[Piece] = []
    for field in fields:
        n = field.number
        heading = _heading(field)
        if field.boxed_name:
            names = _split(field.name.text, heading, f"↳ *{n}.* name continued")
            values = _split(field.value.text, f"↳ *{n}.* value", f"↳ *{n}.* continued")
        else:
            names = []
            values = _split(field.value.text, heading, f"↳ *{n}.* continued")
        pieces += [Piece(f"{lead}\n{boxed(part)}", len(part)) for lead, part in names + values]
    return pieces


def _split(text: str, first: str, rest: str) -> list[tuple[str, str]]:
    """`text` in parts, each led by a line (`first`, then `rest`), whose piece fits a section."""
    parts: list[tuple[str, str]] = []
    current: list[str] = []
    lead = first
    size = 0
    for ch in text:
        # Escaped, with room for the zero-width space a backtick may be given.
        cost = len(escape(ch)) + (1 if ch == "`" else 0)
        if current and size + cost > SECTION_TEXT_MAX - len(lead) - BOX_OVERHEAD:
            parts.append((lead, "".join(current)))
            current, size, lead = [], 0, rest
        current.append(ch)
        size += cost
    parts.append((lead, "".join(current)))
    return parts


def warning_lines(intent: ToolApprovalIntent, fields: list[Field]) -> list[str]:
    """The lines calling out what weakens a guard and what characters lie, in field order."""
    lines: list[str] = []
    assert intent.input is not None
    values = list(intent.input.values())
    for field, value in zip(fields, values, strict=True):
        for path, weakens, setting in _guards(field.name.text, value):
            shown = f" to `{escaped_within(_short(setting), 80)}`" if setting is not True else ""
            inside = f" sets `{escaped_within(_short(path), 80)}`" if path else " is set"
            lines.append(f"⚠️ {_where(field)}{inside}{shown}: {weakens}.")
    if intent.tool is not None:
        tool = reveal(intent.tool)
        lines += [f"⚠️ The tool's name: {escape(w)}" for w in tool.warnings]
    for field in fields:
        where = _where(field)
        lines += [f"⚠️ {where}, its name: {escape(w)}" for w in field.name.warnings]
        lines += [f"⚠️ {where}: {escape(w)}" for w in field.value.warnings]
    return lines


def _guards(name: str, value: JsonValue, path: str = "") -> Iterable[tuple[str, str, JsonValue]]:
    """Each guard-weakening setting in a field, at any depth: where inside the field (empty for
    the field itself), what it weakens, and its value."""
    weakens = WEAKENING.get(name.lower().replace("_", "").replace("-", ""))
    if weakens and _is_set(value):
        yield path, weakens, value
    items = value.items() if isinstance(value, dict) else []
    for key, inner in items:
        yield from _guards(key, inner, f"{path}.{key}" if path else key)


def _is_set(value: JsonValue) -> bool:
    if isinstance(value, str):
        return value.strip() not in ("", "false", "0", "no")
    return bool(value)


def _short(value: JsonValue) -> str:
    text = canonical(value).replace("`", "'").replace("\n", " ")
    return reveal(text).text


def _where(field: Field) -> str:
    return f"Field {field.number}" + ("" if field.boxed_name else f" {inline(field.name)}")


# --- what fits where ------------------------------------------------------------------------


@dataclass(frozen=True)
class Fit:
    """How much of the input a surface shows, and so whether Allow may be offered there."""

    sections: list[str]
    shown: int
    total: int
    pieces_shown: int
    pieces: int

    @property
    def whole(self) -> bool:
        """Whether every field and character of the input is on this surface."""
        return self.pieces_shown == self.pieces


def fit(pieces: list[Piece], *, blocks: int, chars: int | None) -> Fit:
    """The pieces packed into at most `blocks` sections (and `chars` characters, when given)."""
    total = sum(p.chars for p in pieces)
    sections: list[str] = []
    shown = used = count = 0
    for piece in pieces:
        if chars is not None and used + len(piece.text) > chars:
            break
        if sections and len(sections[-1]) + 1 + len(piece.text) <= SECTION_TEXT_MAX:
            sections[-1] += "\n" + piece.text
        elif len(sections) < blocks:
            sections.append(piece.text)
        else:
            break
        used += len(piece.text)
        shown += piece.chars
        count += 1
    return Fit(sections, shown, total, count, len(pieces))


@dataclass(frozen=True)
class Card:
    """Everything the surfaces of one tool approval are made from."""

    ask_id: str
    layout: AskLayout
    agent: str
    status: ReviewStatus

    @property
    def question(self) -> AskUserQuestionItem:
        """The lone question."""
        return self.layout.questions[0].question

    @property
    def intent(self) -> ToolApprovalIntent:
        """The question's tool-approval intent (its input is set: see `layout._element`)."""
        intent = self.question.intent
        assert isinstance(intent, ToolApprovalIntent)
        assert intent.input is not None
        return intent

    @property
    def tool(self) -> str:
        """The tool's name, revealed, for plain text (a confirm dialog)."""
        return reveal(self.intent.tool).text if self.intent.tool else "The tool"

    @cached_property
    def fields(self) -> list[Field]:
        """The input's fields as shown."""
        assert self.intent.input is not None
        return fields_of(self.intent.input)

    @cached_property
    def pieces(self) -> list[Piece]:
        """The input's fields as pieces of mrkdwn."""
        return pieces_of(self.fields)

    @cached_property
    def message_fit(self) -> Fit:
        """What the message holds."""
        blocks = MESSAGE_BLOCKS_MAX - MESSAGE_OVERHEAD_BLOCKS
        return fit(self.pieces, blocks=blocks, chars=MESSAGE_INPUT_BUDGET)

    @cached_property
    def modal_fit(self) -> Fit:
        """What the "View all" modal holds."""
        blocks = MODAL_BLOCKS_MAX - MODAL_OVERHEAD_BLOCKS
        return fit(self.pieces, blocks=blocks, chars=None)

    def aux(self, kind: BlockKind, index: int = 0) -> str:
        """A helper block's id."""
        return self.layout.aux_block_id(kind, index)

    def top(self) -> list[Block]:
        """Header, who asks to run what, and the warning lines."""
        intent = self.intent
        tool = f"`{escaped_within(reveal(intent.tool).text, REVIEW_MAX)}`" if intent.tool else ""
        if intent.tool and ("`" in intent.tool or "\n" in intent.tool):
            tool = "\n" + boxed(reveal(intent.tool).text)
        count = len(intent.input or {})
        noun = "field" if count == 1 else "fields"
        asks = (
            f"{self.agent} asks to run the tool {tool or '(unnamed)'} "
            f"with this input ({count} {noun}); Allow lets it run with exactly this input."
        )
        blocks: list[Block] = [
            HeaderBlock(block_id=self.aux(BlockKind.TOOL_TITLE), text=PlainTextObject(text=TITLE)),
            SectionBlock(
                block_id=self.aux(BlockKind.TOOL_ASKS),
                text=MarkdownTextObject(verbatim=True, text=cut_escaped(asks, SECTION_TEXT_MAX)),
            ),
        ]
        warnings = warning_lines(intent, self.fields)
        if warnings:
            blocks.append(
                SectionBlock(
                    block_id=self.aux(BlockKind.TOOL_WARNINGS),
                    text=MarkdownTextObject(verbatim=True, text=_lines_within(warnings)),
                )
            )
        return blocks

    def field_blocks(self, sections: list[str]) -> list[Block]:
        """The fields' sections."""
        return [
            SectionBlock(
                block_id=self.aux(BlockKind.TOOL_FIELDS, i),
                text=MarkdownTextObject(verbatim=True, text=text),
            )
            for i, text in enumerate(sections)
        ]

    def status_block(self) -> Block:
        """Why it asks (the rule that matched, or the default), approvals needed and given,
        and whether the requester may approve."""
        status = self.status
        lines = [why_asked(status)]
        if status.needed > 1 or status.reviewers or status.approvals:
            lines.append(_status_line(status))
        if status.requester and not status.requester_may_approve:
            lines.append(f"Requested for <@{status.requester}>, who may not allow it themselves.")
        return ContextBlock(
            block_id=self.aux(BlockKind.TOOL_STATUS),
            elements=[MarkdownTextObject(verbatim=True, text="\n".join(lines))],
        )

    def note_block(self, text: str, index: int = 0) -> Block:
        """A bot-authored note: what is cut, where Allow is."""
        return SectionBlock(
            block_id=self.aux(BlockKind.TOOL_CUT, index),
            text=MarkdownTextObject(verbatim=True, text=text),
        )

    def allow_index(self) -> int:
        """The option index of the allow label."""
        return self.question.labels.index(self.intent.allow)

    def allow_button(self) -> ButtonElement:
        """Allow: a pick of the allow label, confirmed first when the policy says so."""
        confirm = (
            ConfirmObject(
                title="Allow this tool to run?",
                text=PlainTextObject(
                    text=truncate(f"{self.tool} will run with the input shown in this card.", 300),
                    emoji=False,
                ),
                confirm="Allow",
                deny="Not yet",
            )
            if self.status.confirm
            else None
        )
        index = self.allow_index()
        return ButtonElement(
            action_id=f"{Action.PICK}.{index}",
            text=PlainTextObject(text=truncate(self.intent.allow, BUTTON_TEXT_MAX), emoji=False),
            value=OptionRef(self.ask_id, index).encode(),
            style="primary",
            confirm=confirm,
        )

    def refusals(self) -> list[ButtonElement]:
        """Every option but the allow label (Deny and the like), as picks."""
        return [
            ButtonElement(
                action_id=f"{Action.PICK}.{i}",
                text=PlainTextObject(text=truncate(label, BUTTON_TEXT_MAX), emoji=False),
                value=OptionRef(self.ask_id, i).encode(),
                style="danger",
            )
            for i, label in enumerate(self.question.labels)
            if label != self.intent.allow
        ]

    def edit_button(self) -> ButtonElement | None:
        """ "Edit and allow", beside Allow, when a field fits Slack's text input."""
        if not tool_editable(self.intent.input):
            return None
        return ButtonElement(
            action_id=Action.EDIT,
            text=PlainTextObject(text="Edit and allow"),
            value=AskRef(self.ask_id).encode(),
        )

    def session_button(self) -> ButtonElement | None:
        """ "Allow for this session", beside Allow, when the call names its agent session and
        one approval decides it: allows it and stores a grant of exactly this call."""
        if self.intent.session is None or self.intent.tool is None:
            return None
        if self.status.needed > 1 or self.status.approvals:
            return None
        return ButtonElement(
            action_id=Action.SESSION,
            text=PlainTextObject(text="Allow for this session"),
            value=AskRef(self.ask_id).encode(),
            confirm=ConfirmObject(
                title="Allow for this session?",
                text=PlainTextObject(
                    text=truncate(
                        f"{self.tool} runs now, and this agent session's calls of it with "
                        "exactly this input are allowed without asking for "
                        f"{duration_words(self.status.grant_ttl)}.",
                        300,
                    ),
                    emoji=False,
                ),
                confirm="Allow for this session",
                deny="Not yet",
            ),
        )

    def always_button(self) -> ButtonElement | None:
        """ "Always allow", beside Allow for this session, where one approval decides, the
        call can be put as a rule in the modal, and no rule matching it says
        `always_allow = false`: opens the modal proposing a rule from this call."""
        if self.status.forbids_always is not None or not proposable(
            self.intent.tool, self.intent.input
        ):
            return None
        if self.status.needed > 1 or self.status.approvals:
            return None
        return ButtonElement(
            action_id=Action.ALWAYS,
            text=PlainTextObject(text="Always allow"),
            value=AskRef(self.ask_id).encode(),
        )

    def reason_button(self) -> ButtonElement:
        """A typed answer, which never allows: a refusal with a reason."""
        return ButtonElement(
            action_id=Action.OTHER,
            text=PlainTextObject(text=OTHER_BUTTON),
            value=AskRef(self.ask_id).encode(),
        )

    def view_all_button(self) -> ButtonElement:
        """Opens the modal holding the whole input (and Allow, when it may be offered)."""
        return ButtonElement(
            action_id=Action.DETAILS,
            text=PlainTextObject(text=VIEW_ALL if self.allowable_in_modal() else "View all"),
            value=QuestionRef(self.ask_id, 0).encode(),
        )

    def allowable_in_modal(self) -> bool:
        """Whether the modal may offer Allow: the policy lets Slack, and it holds it all."""
        return self.status.in_slack and self.modal_fit.whole

    def not_here(self) -> str | None:
        """Why Allow is offered nowhere in Slack, or None when it is offered somewhere."""
        if not self.status.in_slack:
            where = (
                escaped_within(self.status.where, 500)
                if self.status.where
                else "where your team approves such tools, outside Slack"
            )
            return f"⛔ *The review policy says this tool is not allowed from Slack.* Approve it {where}; you may deny it here."
        if not self.modal_fit.whole:
            fit_ = self.modal_fit
            return (
                f"⛔ *The input is too large to review in Slack* ({fit_.total:,} characters; "
                f"Slack shows {fit_.shown:,}), so Allow is not offered here. You may deny it."
            )
        return None


def why_asked(status: ReviewStatus) -> str:
    """The card's line saying why people are asked: the `[[tools]]` rule that asks, or none
    matched and the default asks."""
    if status.rule is not None:
        return f"Rule `{escaped_within(status.rule, REVIEW_MAX)}` asks."
    return "No rule matched: the default asks."


def _lines_within(lines: list[str]) -> str:
    out: list[str] = []
    size = 0
    for n, line in enumerate(lines):
        line = cut_escaped(line, 500)
        more = f"…and {len(lines) - n} more warnings (see View all)"
        if size + len(line) + 1 > SECTION_TEXT_MAX - len(more) - 1:
            out.append(more)
            break
        out.append(line)
        size += len(line) + 1
    return "\n".join(out)


def _status_line(status: ReviewStatus) -> str:
    who = f" from {status.reviewers}" if status.reviewers else ""
    need = f"Needs {status.needed} approval{'s' if status.needed > 1 else ''}{who}"
    if not status.approvals:
        return need
    by = ", ".join(f"<@{user}>" for user, _ in status.approvals)
    return f"{need} · {len(status.approvals)} of {status.needed} approvals: {by}"


def _cut_note(fit_: Fit) -> str:
    return f"_Showing {fit_.shown:,} of {fit_.total:,} characters of the input._"


# --- the surfaces ---------------------------------------------------------------------------


def card(
    ask_id: str,
    layout: AskLayout,
    agent_name: str | None,
    agent_id: str | None,
    status: ReviewStatus,
) -> Card:
    """The makings of a tool approval's message and modal."""
    return Card(ask_id, layout, agent_label(agent_name, agent_id), status)


def tool_approval_message(
    ask_id: str,
    layout: AskLayout,
    agent_name: str | None,
    agent_id: str | None,
    status: ReviewStatus,
) -> MessageContent:
    """The card: the whole input when it fits (with Allow), else what fits, how much is hidden,
    and "View all to allow" (Allow only in the modal); Deny and a reason always."""
    made = card(ask_id, layout, agent_name, agent_id, status)
    shown = made.message_fit
    blocks = made.top() + made.field_blocks(shown.sections)
    blocks.append(made.status_block())
    elements: list[ButtonElement] = []
    not_here = made.not_here()
    if not shown.whole:
        cut = _cut_note(shown)
        note = f"{not_here}\n{cut} *View all* shows more of it." if not_here else cut + ALLOW_THERE
        blocks.append(made.note_block(note))
    elif not_here is not None:
        blocks.append(made.note_block(not_here))
    else:
        extra = [made.session_button(), made.always_button(), made.edit_button()]
        elements += [made.allow_button(), *filter(None, extra)]
    elements += made.refusals()
    if not shown.whole:
        elements.append(made.view_all_button())
    elements.append(made.reason_button())
    blocks.append(ActionsBlock(block_id=made.question.id, elements=elements))
    return MessageContent(_fallback(made), blocks)


def tool_approval_modal(
    ask_id: str,
    layout: AskLayout,
    agent_name: str | None,
    agent_id: str | None,
    status: ReviewStatus,
    *,
    settled: bool = False,
) -> View:
    """The whole input (as much as a modal holds), with Allow when all of it is there and the
    policy lets Slack allow it, and the refusals; no controls once `settled`."""
    made = card(ask_id, layout, agent_name, agent_id, status)
    shown = made.modal_fit
    blocks = made.top()[1:] + made.field_blocks(shown.sections)  # the title says what it is
    not_here = made.not_here()
    if not shown.whole:
        blocks.append(made.note_block(_cut_note(shown)))
    if not settled:
        if not_here is not None:
            blocks.append(made.note_block(not_here, 1))
        elements = [] if not_here is not None else [made.allow_button()]
        session = made.session_button() if not_here is None else None
        elements += [session] if session is not None else []
        always = made.always_button() if not_here is None else None
        elements += [always] if always is not None else []
        edit = made.edit_button() if not_here is None else None
        elements += [edit] if edit is not None else []
        elements += made.refusals()
        blocks.append(ActionsBlock(block_id=made.question.id, elements=elements))
    return View(
        type="modal",
        callback_id=Callback.DETAILS,
        title=PlainTextObject(text=MODAL_TITLE),
        close=PlainTextObject(text="Close"),
        private_metadata=ViewMeta(ask=ask_id, question=0).model_dump_json(exclude_none=True),
        blocks=blocks,
    )


def settled_tool_approval(
    ask_id: str,
    layout: AskLayout,
    agent_name: str | None,
    agent_id: str | None,
    status: ReviewStatus,
    settlement: Settlement,
) -> MessageContent:
    """The card once decided: the input stays, the controls give way to the decision."""
    made = card(ask_id, layout, agent_name, agent_id, status)
    shown = made.message_fit
    blocks = made.top() + made.field_blocks(shown.sections)
    if not shown.whole:
        # Read-only from here on: the modal of a settled ask has no controls.
        note = SectionBlock(
            block_id=made.aux(BlockKind.TOOL_CUT),
            text=MarkdownTextObject(verbatim=True, text=_cut_note(shown)),
            accessory=ButtonElement(
                action_id=Action.DETAILS,
                text=PlainTextObject(text="View all"),
                value=QuestionRef(ask_id, 0).encode(),
            ),
        )
        blocks.append(note)
    blocks += edited_blocks(made, settlement, MESSAGE_BLOCKS_MAX - len(blocks) - 1)
    blocks.append(
        SectionBlock(
            block_id=made.aux(BlockKind.TOOL_VERDICT),
            text=MarkdownTextObject(
                verbatim=True, text=cut_escaped(ending(made, settlement), SECTION_TEXT_MAX)
            ),
        )
    )
    return MessageContent(_fallback(made), blocks)


def ending(made: Card, settlement: Settlement) -> str:
    """How the approval ended, in the bot's words: allowed, denied (with the reason), or the
    verdict line every ask uses."""
    item = settlement.answers.get(made.question.id)
    if settlement.verdict is not Verdict.ANSWERED or settlement.waiting or item is None:
        return verdict_line(settlement)
    stamp = when(settlement.at)
    who = f"<@{settlement.actor}>" if settlement.actor else "someone"
    if item.selected == [made.intent.allow] and item.custom is None:
        by = ", ".join(f"<@{user}>" for user, _ in made.status.approvals) or who
        edited = " with the input edited (above)" if item.updated_input is not None else ""
        if settlement.reason and settlement.reason.startswith(ALWAYS_LEAD):
            return f"✅ Always allowed by {by} {settlement.reason} · {stamp}"
        # A person's allow carries a reason only when it did more: "for this session (…)".
        more = f" {settlement.reason}" if settlement.reason else ""
        return f"✅ Allowed by {by}{edited}{more} · {stamp}"
    line = f"❌ Denied by {who} · {stamp}"
    chosen = [label for label in item.selected if label not in ("Deny", made.intent.allow)]
    if chosen:
        line += " · chose " + ", ".join(f"*{one_line(c, 200)}*" for c in chosen)
    if item.custom:
        reason = literal_within(item.custom, 1500).replace("\n", "\n> ")
        line += f"\nTheir reason:\n> {reason}"
    return line


def edited_blocks(made: Card, settlement: Settlement, room: int) -> list[Block]:
    """What the reviewer edited before allowing, field by field (at most `room` blocks)."""
    item = settlement.answers.get(made.question.id)
    if settlement.verdict is not Verdict.ANSWERED or item is None or item.updated_input is None:
        return []
    assert made.intent.input is not None
    sections = edit_sections(made.intent.input, item.updated_input)
    return [
        SectionBlock(
            block_id=made.aux(BlockKind.EDITED, i), text=MarkdownTextObject(verbatim=True, text=t)
        )
        for i, t in enumerate(sections[: max(0, room)])
    ]


def _fallback(made: Card) -> str:
    tool = escaped_within(reveal(made.intent.tool).text, 100) if made.intent.tool else "a tool"
    return cut_escaped(f"Tool approval: {made.agent} asks to run {tool}", 300)
