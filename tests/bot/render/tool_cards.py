"""Reading a tool-approval card back: the fields a reviewer sees, and the buttons offered.

`shown_fields` inverts the card's documented way of showing values (bot/render/tool_approval.py)
from the Slack JSON alone, so a test can say "what the reviewer sees is the input, exactly".
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import JsonValue

from bot.render import lay_out
from bot.render.layout import AskLayout
from bot.render.revealed import Revealed, unreveal
from bot.render.text import unescape
from provider import AskUserQuestionRequest

HEAD = re.compile(
    r"\*(?P<n>\d+)\.\* (?:`(?P<name>[^`\n]*)`|\(name boxed below\)) · "
    r"(?P<kind>text|number|true/false|null|object|list)(?P<marks>(?: · [^\n]*)?)"
)
CONTINUED = re.compile(r"↳ \*(?P<n>\d+)\.\* (?P<what>name continued|value|continued)")
FENCE = "```"
ZWSP = "\u200b"


def tool_request(
    tool_input: Mapping[str, object],
    *,
    tool: str | None = "Bash",
    options: Sequence[str] = ("Allow", "Deny"),
    session: str | None = None,
) -> AskUserQuestionRequest:
    """A lone tool approval of `tool_input`, as the Claude Code hook asks it."""
    return AskUserQuestionRequest.model_validate(
        {
            "questions": [
                {
                    "id": "approve",
                    "question": f"Allow {tool}: `ls`?",
                    "header": "Agent header",
                    "detail": "The hook's own rendering of the input",
                    "options": [{"label": label} for label in options],
                    "intent": {
                        "kind": "tool-approval",
                        "allow": "Allow",
                        "tool": tool,
                        "input": dict(tool_input),
                        **({"session": session} if session is not None else {}),
                    },
                }
            ]
        }
    )


def tool_layout(tool_input: Mapping[str, object], **kwargs: Any) -> AskLayout:
    """The layout of `tool_request(tool_input)`."""
    return lay_out(tool_request(tool_input, **kwargs))


@dataclass
class _Shown:
    kind: str
    name_escaped: bool
    value_escaped: bool
    inline_name: str | None
    names: list[str] = field(default_factory=list)
    values: list[str] = field(default_factory=list)


def field_text(blocks: Sequence[Mapping[str, Any]]) -> str:
    """The mrkdwn of every field section, in order."""
    return "\n".join(str(b["text"]["text"]) for b in blocks if "~tf." in str(b.get("block_id", "")))


def shown_fields(blocks: Sequence[Mapping[str, Any]]) -> list[tuple[str, str, JsonValue]]:
    """Each field the blocks show, as (name, kind, value), decoded from what is shown."""
    text = field_text(blocks)
    fields: list[_Shown] = []
    pos = 0
    into = "values"
    while pos < len(text):
        end = text.index("\n", pos)
        lead, pos = text[pos:end], end + 1
        assert text.startswith(FENCE + "\n", pos), text[pos : pos + 40]
        pos += len(FENCE) + 1
        close = text.index("\n" + FENCE, pos)
        body, pos = text[pos:close], close + len(FENCE) + 1
        assert FENCE not in body  # no value can close its box early
        if pos < len(text):
            assert text[pos] == "\n"
            pos += 1
        if head := HEAD.fullmatch(lead):
            assert int(head["n"]) == len(fields) + 1
            marks = head["marks"].split(" · ")
            fields.append(
                _Shown(
                    head["kind"],
                    "name shown escaped" in marks,
                    "shown escaped" in marks,
                    head["name"],
                )
            )
            into = "values" if head["name"] is not None else "names"
        elif more := CONTINUED.fullmatch(lead):
            assert int(more["n"]) == len(fields)
            into = {"name continued": "names", "value": "values"}.get(more["what"], into)
        else:
            raise AssertionError(f"not a field line: {lead!r}")
        getattr(fields[-1], into).append(body)
    return [_decoded(f) for f in fields]


def _decoded(shown: _Shown) -> tuple[str, str, JsonValue]:
    if shown.inline_name is not None:
        name = _unshown(unescape(shown.inline_name), shown.name_escaped)
    else:
        name = _unboxed("".join(shown.names), shown.name_escaped)
    value = _unboxed("".join(shown.values), shown.value_escaped)
    decoded: JsonValue = value if shown.kind == "text" else json.loads(value)
    return name, shown.kind, decoded


def _unboxed(body: str, escaped: bool) -> str:
    return _unshown(unescape(body).replace(ZWSP, ""), escaped)


def _unshown(text: str, escaped: bool) -> str:
    return unreveal(Revealed(text, ("escaped",) if escaped else ()))


def kind_of(value: JsonValue) -> str:
    """The card's word for a value's JSON type (written out here, not taken from the card)."""
    if isinstance(value, str):
        return "text"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | float):
        return "number"
    if value is None:
        return "null"
    return "object" if isinstance(value, dict) else "list"


def expected_fields(tool_input: Mapping[str, JsonValue]) -> list[tuple[str, str, JsonValue]]:
    """What `shown_fields` should read for `tool_input`."""
    return [(name, kind_of(value), value) for name, value in tool_input.items()]


def buttons(blocks: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Every button in the blocks (action rows and accessories)."""
    found: list[Mapping[str, Any]] = []
    for block in blocks:
        for element in [*block.get("elements", []), block.get("accessory")]:
            if isinstance(element, Mapping) and element.get("type") == "button":
                found.append(element)
    return found


def labels(blocks: Sequence[Mapping[str, Any]]) -> list[str]:
    """The text of every button."""
    return [str(b["text"]["text"]) for b in buttons(blocks)]


def allow_button(
    blocks: Sequence[Mapping[str, Any]], allow: str = "Allow"
) -> Mapping[str, Any] | None:
    """The button that picks the allow label, if offered (whatever it looks like)."""
    return next(
        (
            b
            for b in buttons(blocks)
            if str(b["action_id"]).startswith("sq_pick") and b["text"]["text"] == allow
        ),
        None,
    )
