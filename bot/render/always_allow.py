""" "Always allow" on a tool approval: the modal proposing a rule from this call, reading the
reviewer's rule back (the modal's inverse, with what is wrong as inline errors), and the rule
in words, as the modal and the decided card say what it covers.

The proposal matches only this call: one pattern per input field, `re:` and the field's exact
value with every regular-expression character escaped. The reviewer widens or narrows each
line (`command = re:git status( .*)?`), deletes a line to let that field hold anything, picks
whose calls it covers, an expiry and a name. The words below the form are worked out from
what it holds; a submission whose rule differs from the words shown is shown again, reworded,
before it can be saved (`digest`), so what is saved is what was read.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Collection
from dataclasses import dataclass, field

from pydantic import JsonValue, TypeAdapter, ValidationError
from slack_sdk.models.blocks import (
    Block,
    InputBlock,
    MarkdownTextObject,
    Option,
    PlainTextInputElement,
    PlainTextObject,
    RadioButtonsElement,
    SectionBlock,
)
from slack_sdk.models.views import View

from bot.block_ids import Action, Callback, ViewMeta
from bot.payloads import StateValues
from bot.render.decided import when
from bot.render.edit_input import EDIT_MAX
from bot.render.question import SECTION_TEXT_MAX
from bot.render.revealed import reveal
from bot.render.text import cut_escaped, escaped_within, truncate
from bot.review import (
    REGEX_PREFIX,
    RULE_NAME,
    Duration,
    agent_root,
    pattern_matches,
)
from bot.store import StoredRuleScope

ARGS_BLOCK = "sq~rule.args"
SCOPE_BLOCK = "sq~rule.scope"
TTL_BLOCK = "sq~rule.ttl"
NAME_BLOCK = "sq~rule.name"
SEPARATOR = " = "
# The characters a regular expression reads as more than themselves.
_SPECIAL = frozenset(".^$*+?{}[]\\|()")
_CONTROL = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_LITERAL = re.compile(r"(?:[^.^$*+?{}\[\]\\|()]|\\[.^$*+?{}\[\]\\|()]|\\[nrt])*")
_UNESCAPE = {"n": "\n", "r": "\r", "t": "\t"}
_DURATION: TypeAdapter[float] = TypeAdapter(Duration)


@dataclass(frozen=True)
class Proposal:
    """A rule as the modal holds it: the tool, a pattern per field kept (in the input's
    order), whose calls it covers, for how long (seconds; None: until revoked) and its name."""

    tool: str
    args: dict[str, str]
    scope: StoredRuleScope
    ttl: float | None
    name: str

    def digest(self) -> str:
        """What identifies this rule as shown: any change to it changes the digest."""
        text = json.dumps(
            [self.tool, list(self.args.items()), self.scope, self.ttl, self.name],
            ensure_ascii=False,
        )
        return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class ReadRule:
    """What a submitted "Always allow" modal holds: the rule, or the errors to show inline
    (block id → message) while it stays open."""

    proposal: Proposal | None = None
    errors: dict[str, str] = field(default_factory=dict)


def arg_text(value: JsonValue) -> str:
    """What a pattern is matched against (`bot.review._arg_text`): a string as it is, any
    other value as canonical JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def exact_pattern(text: str) -> str:
    """`re:` and `text` with every special character escaped (line breaks and tabs as
    `\\n`, `\\r`, `\\t`): it matches `text` and nothing else, and reads as `text` does."""
    escaped = "".join(_CONTROL.get(ch, "\\" + ch if ch in _SPECIAL else ch) for ch in text)
    return f"{REGEX_PREFIX}{escaped}"


def literal_of(pattern: str) -> str | None:
    """The one value a pattern matches when it is an escaped literal (`exact_pattern`'s
    inverse), else None."""
    if not pattern.startswith(REGEX_PREFIX):
        return None
    body = pattern[len(REGEX_PREFIX) :]
    if _LITERAL.fullmatch(body) is None:
        return None
    return re.sub(r"\\(.)", lambda m: _UNESCAPE.get(m.group(1), m.group(1)), body)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def proposed_name(tool: str, tool_input: dict[str, JsonValue]) -> str:
    """A name for the proposed rule: the tool, and the first words of its first field."""
    first = next(iter(tool_input.values()), "")
    words = "-".join(_slug(arg_text(first)).split("-")[:3])
    name = "-".join(part for part in (_slug(tool)[:30] or "tool", words[:30]) if part)
    return name if RULE_NAME.fullmatch(name) else "always-allow"


def propose(tool: str, tool_input: dict[str, JsonValue], agent_id: str | None) -> Proposal:
    """The rule "Always allow" proposes from this call: it matches only this call."""
    return Proposal(
        tool=tool,
        args={name: exact_pattern(arg_text(value)) for name, value in tool_input.items()},
        scope="agent" if agent_id is not None else "everyone",
        ttl=None,
        name=proposed_name(tool, tool_input),
    )


def patterns_text(args: dict[str, str]) -> str:
    """The form's box of patterns: one `field = pattern` line each."""
    return "\n".join(f"{name}{SEPARATOR}{pattern}" for name, pattern in args.items())


def proposable(tool: str | None, tool_input: dict[str, JsonValue] | None) -> bool:
    """Whether "Always allow" can propose a rule of this call in Slack: a named tool, and
    every field fits one line of the form's box (a name with no line break or ` = `)."""
    if tool is None or tool_input is None:
        return False
    if any("\n" in name or "\r" in name or SEPARATOR in name or not name for name in tool_input):
        return False
    return len(patterns_text(propose(tool, tool_input, None).args)) <= EDIT_MAX


def _code(text: str, limit: int = 300) -> str:
    """Text in inline code, revealed and escaped, on one line."""
    one = reveal(text).text.replace("`", "'").replace("\n", "\\n")
    return f"`{escaped_within(one, limit)}`"


def pattern_words(pattern: str) -> str:
    """What one pattern lets a field hold, in words."""
    literal = literal_of(pattern)
    if literal is not None:
        return f"is exactly {_code(literal)}"
    if pattern.startswith(REGEX_PREFIX):
        return f"matches the regular expression {_code(pattern[len(REGEX_PREFIX) :])} (whole value)"
    if pattern == "*":
        return "holds anything"
    return f"matches the glob {_code(pattern)} (whole value)"


def covers(
    proposal: Proposal,
    tool_input: dict[str, JsonValue],
    agent_id: str | None,
    expires_at: float | None = None,
) -> str:
    """What the rule allows, in words: the tool, each field's pattern, the fields left free,
    whose calls, until when (`expires_at` as a date once saved, else `ttl` as a duration)."""
    lines = [f"`{escaped_within(reveal(proposal.tool).text, 200)}`, whenever:"]
    lines += [f"• {_code(name, 100)} {pattern_words(p)}" for name, p in proposal.args.items()]
    free = [name for name in tool_input if name not in proposal.args]
    if free:
        lines.append("• and any value of " + ", ".join(_code(name, 100) for name in free))
    if not proposal.args:
        lines.append("• with any input at all")
    who = "calls by every agent"
    if proposal.scope == "agent" and agent_id is not None:
        root = agent_root(agent_id)
        sessions = " (any of its sessions)" if root != agent_id else ""
        who = f"calls by agent {_code(root, 200)}{sessions}"
    until = "until revoked"
    if expires_at is not None:
        until = f"until {when(expires_at)}"
    elif proposal.ttl is not None:
        until = f"for {_duration(proposal.ttl)}"
    lines.append(f"for {who}, {until}.")
    return "\n".join(lines)


def _duration(seconds: float) -> str:
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size and seconds % size == 0:
            n = int(seconds // size)
            return f"{n} {unit}{'s' if n > 1 else ''}"
    return f"{seconds:g} seconds"


def always_modal(
    ask_id: str,
    proposal: Proposal,
    tool_input: dict[str, JsonValue],
    agent_id: str | None,
    *,
    ttl_text: str = "",
    note: str | None = None,
) -> View:
    """The "Always allow" modal: the patterns, whose calls, expiry and name, prefilled with
    `proposal`, and what it covers in words (its digest in the metadata)."""
    lead = (
        f"Save a rule that allows {_code(proposal.tool, 200)} from now on, before anyone is "
        "asked, and allow this call. Each line is `field = pattern`: as proposed, `re:` and "
        "the exact value, so it covers only this call. Widen or narrow a pattern (a glob such "
        "as `git status*`, or `re:` and a regular expression matching the whole value), or "
        "delete a line to let that field hold anything. A deny rule of the policy file still "
        "wins."
    )
    blocks: list[Block] = [
        SectionBlock(block_id="sq~rule.lead", text=MarkdownTextObject(verbatim=True, text=lead))
    ]
    if note is not None:
        blocks.append(
            SectionBlock(block_id="sq~rule.note", text=MarkdownTextObject(verbatim=True, text=note))
        )
    scopes = [Option(value="everyone", text=PlainTextObject(text="Every agent"))]
    if agent_id is not None:
        agent = Option(
            value="agent",
            text=PlainTextObject(
                text=truncate(f"This agent: {agent_root(agent_id)}", 75), emoji=False
            ),
        )
        scopes.insert(0, agent)
    initial = next(o for o in scopes if o.value == proposal.scope)
    blocks += [
        InputBlock(
            block_id=ARGS_BLOCK,
            label=PlainTextObject(text="Patterns, one field per line"),
            hint=PlainTextObject(text="field = pattern. No line: any value of that field."),
            optional=True,  # no line at all: every call of the tool
            element=PlainTextInputElement(
                action_id=Action.INPUT,
                multiline=True,
                max_length=EDIT_MAX,
                initial_value=patterns_text(proposal.args) or None,
            ),
        ),
        InputBlock(
            block_id=SCOPE_BLOCK,
            label=PlainTextObject(text="Whose calls it allows"),
            element=RadioButtonsElement(
                action_id=Action.INPUT, options=scopes, initial_option=initial
            ),
        ),
        InputBlock(
            block_id=TTL_BLOCK,
            label=PlainTextObject(text="Expires after"),
            hint=PlainTextObject(text="A duration such as 12h, 7d or 30d. Empty: until revoked."),
            optional=True,
            element=PlainTextInputElement(
                action_id=Action.INPUT, max_length=20, initial_value=ttl_text or None
            ),
        ),
        InputBlock(
            block_id=NAME_BLOCK,
            label=PlainTextObject(text="Rule name"),
            hint=PlainTextObject(text="Shown where it decides; letters, digits, . _ -"),
            element=PlainTextInputElement(
                action_id=Action.INPUT, max_length=64, initial_value=proposal.name
            ),
        ),
        SectionBlock(
            block_id="sq~rule.covers",
            text=MarkdownTextObject(
                verbatim=True,
                text=cut_escaped(
                    "*This rule will allow* " + covers(proposal, tool_input, agent_id),
                    SECTION_TEXT_MAX,
                ),
            ),
        ),
    ]
    meta = ViewMeta(ask=ask_id, question=0, shown=proposal.digest())
    return View(
        type="modal",
        callback_id=Callback.ALWAYS,
        title=PlainTextObject(text="Always allow"),
        submit=PlainTextObject(text="Save rule and allow"),
        close=PlainTextObject(text="Back"),
        private_metadata=meta.model_dump_json(exclude_none=True),
        blocks=blocks,
    )


def _typed(values: StateValues, block_id: str) -> str:
    states = values.get(block_id, {})
    return next((s.value for s in states.values() if s.value is not None), "")


def _chosen(values: StateValues, block_id: str) -> str | None:
    states = values.get(block_id, {})
    return next(
        (s.selected_option.value for s in states.values() if s.selected_option is not None), None
    )


def ttl_of(text: str) -> float | None:
    """The expiry typed, in seconds (None: until revoked); `ValueError` saying what is wrong."""
    if not text.strip():
        return None
    try:
        seconds: float = _DURATION.validate_python(text)
    except ValidationError as error:
        message = error.errors()[0]["msg"].removeprefix("Value error, ")
        raise ValueError(message) from error
    return seconds


def read_rule(
    tool: str,
    tool_input: dict[str, JsonValue],
    agent_id: str | None,
    values: StateValues,
    taken: Collection[str],
) -> ReadRule:
    """The rule a submitted modal holds, or why it cannot be saved, each problem on its
    block: a line that is not `field = pattern`, a field the call has not, a field twice, a
    regular expression that does not compile, a rule that would not allow this very call,
    an expiry that is not a duration, whose calls missing, a name that is not one or is
    taken (`taken`: the file's rule names and the stored ones)."""
    errors: dict[str, str] = {}
    args: dict[str, str] = {}
    fields = ", ".join(f"`{name}`" for name in tool_input)
    for number, line in enumerate(_typed(values, ARGS_BLOCK).splitlines(), start=1):
        if not line.strip():
            continue
        name, sep, pattern = line.partition(SEPARATOR)
        name = name.strip()
        if not sep or not name:
            errors[ARGS_BLOCK] = f"Line {number} is not `field = pattern`: “{truncate(line, 80)}”."
            break
        if name not in tool_input:
            errors[ARGS_BLOCK] = (
                f"Line {number}: `{truncate(name, 80)}` is not a field of this call's input "
                f"(its fields: {truncate(fields, 300)})."
            )
            break
        if name in args:
            errors[ARGS_BLOCK] = f"Line {number}: `{truncate(name, 80)}` is given twice."
            break
        if pattern.startswith(REGEX_PREFIX):
            try:
                re.compile(pattern[len(REGEX_PREFIX) :])
            except re.error as error:
                errors[ARGS_BLOCK] = (
                    f"Line {number}: the pattern of `{truncate(name, 80)}` is not a regular "
                    f"expression: {error}."
                )
                break
        args[name] = pattern
    if ARGS_BLOCK not in errors:
        misses = [
            name for name, p in args.items() if not pattern_matches(p, arg_text(tool_input[name]))
        ]
        if misses:
            errors[ARGS_BLOCK] = (
                f"This rule would not allow the call it was made from: `{truncate(misses[0], 80)}` "
                "does not match its own value. A rule must cover what was asked."
            )
    ttl_text = _typed(values, TTL_BLOCK)
    ttl: float | None = None
    try:
        ttl = ttl_of(ttl_text)
    except ValueError as error:
        errors[TTL_BLOCK] = str(error)
    scope = _chosen(values, SCOPE_BLOCK)
    if scope not in ("agent", "everyone") or (scope == "agent" and agent_id is None):
        errors[SCOPE_BLOCK] = "Choose whose calls the rule allows."
    name = _typed(values, NAME_BLOCK).strip()
    if not RULE_NAME.fullmatch(name):
        errors[NAME_BLOCK] = (
            "A rule name is 1 to 64 letters, digits, `.`, `_` or `-`, starting with a letter "
            "or digit."
        )
    elif name in taken:
        errors[NAME_BLOCK] = f"A rule named `{name}` exists already: choose another name."
    if errors:
        return ReadRule(errors=errors)
    chosen: StoredRuleScope = "agent" if scope == "agent" else "everyone"
    return ReadRule(Proposal(tool, args, chosen, ttl, name))


def ttl_text_of(values: StateValues) -> str:
    """The expiry as typed (kept when the modal is shown again)."""
    return _typed(values, TTL_BLOCK)
