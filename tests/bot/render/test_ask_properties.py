"""Properties of every ask the seam accepts, over generated requests: each payload the renderer
produces is one Slack accepts, no agent text becomes a live mention or a link, and a click on
any option answers with its exact label. Whatever the seam refuses, it refuses with its own
error, never a crash."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from bot import answers
from bot.block_ids import PICK_PATTERN, OptionRef, Ref
from bot.outcomes import Verdict
from bot.payloads import ElementState, StateValues
from bot.render import AskLayout, Settlement, form_modal, lay_out, settled_message
from bot.render.layout import Unshowable
from bot.render.message import ask_message
from bot.render.modal import details_modal, other_modal
from provider import (
    AskUserQuestionRequest,
    ErrorCode,
    UserQuestionError,
    UserQuestionService,
    ask_user_question_tool,
)
from provider.types import AskUserQuestionAnswer, AskUserQuestionAnswerItem
from slack_emulator import check_blocks, check_view

BOUNDED = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Agent text worth trying: markup Slack would read as a mention or a link, and its escapes.
HOSTILE = [
    "<!channel>",
    "<!here>",
    "<!everyone>",
    "<@U0ALICE01>",
    "<!subteam^S0REVIEW1>",
    "<#C0CHAN001>",
    "<https://evil.example|bank>",
    "&lt;!here&gt;",
    "&amp;",
    "*bold* _it_ ~s~ `code`",
    "🚀🔥",
    "e\u0301",
    "```",
    "\n",
    ":smile:",
    "a" * 120,
]
text = st.one_of(
    st.sampled_from(HOSTILE),
    st.text(st.characters(exclude_categories=["Cs"]), min_size=1, max_size=40),
    st.lists(st.sampled_from(HOSTILE), min_size=1, max_size=4).map("".join),
)
label = st.one_of(text, st.text(min_size=1, max_size=300).map(lambda t: "L" + t))


@st.composite
def questions(draw: st.DrawFn, index: int) -> dict[str, Any]:
    labels = draw(st.lists(label, max_size=30, unique=True))
    question: dict[str, Any] = {
        "id": draw(st.one_of(st.just(f"q{index}"), text.map(lambda t: f"{index}{t}"[:60]))),
        "question": draw(text),
        "multiSelect": draw(st.booleans()),
    }
    optionless_but_listed = draw(st.booleans())  # "options": [] reads as a text question
    if labels or optionless_but_listed:
        options: list[dict[str, str]] = []
        for lab in labels:
            described = draw(st.booleans())
            options.append(
                {"label": lab, "description": draw(text)} if described else {"label": lab}
            )
        question["options"] = options
    if draw(st.booleans()):
        question["header"] = draw(text)
    if draw(st.booleans()):
        question["detail"] = draw(text)
    return question


@st.composite
def accepted_requests(draw: st.DrawFn) -> AskUserQuestionRequest:
    count = draw(st.integers(min_value=1, max_value=4))
    wire = {"questions": [draw(questions(n)) for n in range(count)]}
    try:
        return AskUserQuestionRequest.model_validate(wire)
    except ValidationError:
        # Equal labels, blank ids and such: the refusal property covers these.
        reject()


def laid_out(request: AskUserQuestionRequest) -> AskLayout | None:
    try:
        return lay_out(request)
    except Unshowable:
        return None  # refused as ASK_FAILED before anything is stored (test_relay covers it)


ALICE = "U0ALICE001"
# Our own tokens in a decided message: when it was decided, and who decided.
OURS = re.compile(rf"<!date\^\d+\^[^|>]*\|[^>]*>|<@{ALICE}>")


def answered_by_alice(request: AskUserQuestionRequest) -> Settlement:
    """Every option chosen, and hostile text typed, for every question."""
    return Settlement(
        verdict=Verdict.ANSWERED,
        at=1_800_000_000.0,
        actor=ALICE,
        answers={
            q.id: AskUserQuestionAnswerItem(
                id=q.id, selected=list(q.labels), custom="<!channel> & <@U0BOB0001>"
            )
            for q in request.questions
        },
    )


def payloads(request: AskUserQuestionRequest, layout: AskLayout) -> Iterator[tuple[str, Any]]:
    """Every message and modal the renderer makes for this ask, as Slack JSON."""
    for n in range(len(layout.parts)):
        content = ask_message("a1", layout, n, "agent <!here>")
        yield "message", content.blocks_json()
        yield "text", content.text
        if not layout.one_click:  # a one-click ask has no form to open
            yield "view", form_modal("a1", layout, n, "agent", "C1").to_dict()
    for n in range(len(layout.parts)):
        settled = settled_message(layout, n, answered_by_alice(request))
        yield "message", settled.blocks_json()
        yield "text", settled.text
    yield "view", details_modal(list(request.questions)).to_dict()
    if layout.one_click:
        yield "view", other_modal("a1", 0, request.questions[0]).to_dict()


def mrkdwn(value: Any) -> Iterator[str]:
    """Every text Slack parses for mentions and links (plain_text shows `<!here>` as typed)."""
    if isinstance(value, str):
        yield value  # the notification text
    elif isinstance(value, dict):
        if value.get("type") == "mrkdwn":
            yield str(value["text"])
        for key, item in value.items():
            if key != "private_metadata" and not isinstance(item, str):
                yield from mrkdwn(item)
    elif isinstance(value, list):
        for item in value:
            yield from mrkdwn(item)


LIVE = re.compile(r"<[!@#]|<(https?|mailto):|<[a-z]+://", re.IGNORECASE)


@BOUNDED
@given(accepted_requests())
def test_every_payload_of_an_accepted_ask_is_one_slack_accepts(
    request: AskUserQuestionRequest,
) -> None:
    layout = laid_out(request)
    if layout is None:
        return
    for kind, payload in payloads(request, layout):
        if kind == "message":
            assert check_blocks(payload, surface="message") == [], json.dumps(payload)[:2000]
        elif kind == "view":
            assert check_view(payload) == [], json.dumps(payload)[:2000]


@BOUNDED
@given(accepted_requests())
def test_no_agent_text_becomes_a_live_mention_or_link(request: AskUserQuestionRequest) -> None:
    layout = laid_out(request)
    if layout is None:
        return
    for _, payload in payloads(request, layout):
        for shown in mrkdwn(payload):
            assert LIVE.search(OURS.sub("", shown)) is None, shown


def elements_of(blocks: list[dict[str, Any]]) -> Iterator[tuple[str, dict[str, Any]]]:
    for block in blocks:
        for element in block.get("elements", []) or []:
            if isinstance(element, dict):
                yield block.get("block_id", ""), element
        if isinstance(block.get("element"), dict):
            yield block.get("block_id", ""), block["element"]
        if isinstance(block.get("accessory"), dict):
            yield block.get("block_id", ""), block["accessory"]


def option_values(element: dict[str, Any]) -> list[dict[str, Any]]:
    if element.get("type") == "button":
        return [{"text": element["text"], "value": element.get("value")}]
    return list(element.get("options") or [])


@BOUNDED
@given(accepted_requests())
def test_a_click_on_any_one_click_option_answers_its_exact_label(
    request: AskUserQuestionRequest,
) -> None:
    layout = laid_out(request)
    if layout is None or not layout.one_click:
        return
    question = request.questions[0]
    picked = []
    blocks = ask_message("a1", layout, 0, None).blocks_json()
    for _, element in elements_of(blocks):
        if not PICK_PATTERN.search(str(element.get("action_id"))):
            continue
        for option in option_values(element):
            ref = OptionRef.of(Ref.decode(str(option["value"])))
            assert ref.ask_id == "a1"
            picked.extend(answers.pick(question, ref.option).selected)
    assert sorted(picked) == sorted(question.labels)


@BOUNDED
@given(accepted_requests(), st.data())
def test_a_form_answers_each_chosen_option_with_its_exact_label(
    request: AskUserQuestionRequest, data: st.DataObject
) -> None:
    layout = laid_out(request)
    if layout is None or layout.one_click:
        return
    for n, part in enumerate(layout.parts):
        blocks = ask_message("a1", layout, n, None).blocks_json()
        values: StateValues = {}
        expected: dict[str, list[str]] = {}
        for q in part.questions:
            question = q.question
            found = [
                e for block_id, e in elements_of(blocks) if block_id == question.id and "type" in e
            ]
            [element] = found
            if not question.labels:
                values[question.id] = {
                    element["action_id"]: ElementState(type=element["type"], value="typed")
                }
                expected[question.id] = []
                continue
            options = option_values(element)
            chosen = data.draw(
                st.lists(st.sampled_from(options), min_size=1, max_size=3, unique_by=str)
                if question.multi_select
                else st.sampled_from(options).map(lambda o: [o])
            )
            multi = element["type"] in ("checkboxes", "multi_static_select")
            state = {"selected_options": chosen} if multi else {"selected_option": chosen[0]}
            values[question.id] = {
                element["action_id"]: ElementState.model_validate(
                    {"type": element["type"], **state}
                )
            }
            expected[question.id] = sorted(
                question.labels[int(option["value"])] for option in chosen
            )
        result = answers.read_form(layout, n, values)
        assert result.errors == {}
        assert {a.id: sorted(a.selected) for a in result.answers} == expected
        assert {a.id: a.custom for a in result.answers if not expected[a.id]} == {
            q.question.id: "typed" for q in part.questions if not q.question.labels
        }


# --- what the seam refuses -------------------------------------------------------------------

anything = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), text, st.text(max_size=5)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
question_like = st.one_of(
    questions(0),
    st.builds(
        lambda q, key, value: {**q, key: value},
        questions(1),
        st.sampled_from(
            [
                "id",
                "question",
                "options",
                "multiSelect",
                "multi_select",
                "header",
                "detail",
                "intent",
            ]
        ),
        anything,
    ),
    st.just({"id": "6", "question": "a", "options": [{"label": "a", "description": "\udfff"}]}),
    st.just({"id": "d", "question": "a", "options": [{"label": "x"}, {"label": "x"}]}),
    st.just({"id": " ", "question": " "}),
    anything,
)
arguments = st.one_of(
    st.builds(lambda qs: {"questions": qs}, st.lists(question_like, max_size=4)),
    st.builds(lambda q: {"questions": [q, q]}, questions(0)),  # the same id twice
    anything,
)
SEAM_CODES = {"INVALID_ARGUMENTS", *ErrorCode.__members__}


class Laying:
    """A provider that lays the ask out as Slack would show it, and skips every question."""

    async def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        try:
            lay_out(request)
        except Unshowable as error:
            raise UserQuestionError(ErrorCode.ASK_FAILED, str(error)) from error
        return AskUserQuestionAnswer(
            answers=[AskUserQuestionAnswerItem(id=q.id) for q in request.questions]
        )


@BOUNDED
@given(arguments)
async def test_whatever_the_tool_is_given_it_answers_or_refuses_with_a_seam_error(
    args: Any,
) -> None:
    service = UserQuestionService()
    service.register_provider(Laying())
    result = await ask_user_question_tool(service).execute(args)
    if result.error is not None:
        assert result.error.code in SEAM_CODES, result
        assert result.content.startswith("Error: ")
    else:
        assert json.loads(result.content)["answers"]
